// A plain (not gzip) trace file mapped read-only for a reader that goes
// through it front to back: the reader hands back the pages it is done with,
// so the process holds a few windows of a large trace's text at a time
// instead of all of it. Pages handed back are read from the file again if a
// later pass (an error message's line count) touches them.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string_view>

namespace snr::pytorch {

class MappedText {
 public:
  // nullptr when `path` is not a non-empty regular file that maps, or when
  // it starts with the gzip magic (those are inflated into memory).
  static std::unique_ptr<MappedText> map_plain(const std::filesystem::path& path);

  MappedText(const MappedText&) = delete;
  MappedText& operator=(const MappedText&) = delete;
  ~MappedText();

  [[nodiscard]] std::string_view text() const { return {data_, size_bytes_}; }

  // Starts a pass from the front: release_before then drops what this pass
  // has gone past, even where an earlier pass dropped it already.
  void begin_pass() { released_bytes_ = 0; }
  // Drops the whole pages before `offset` (not yet dropped in this pass)
  // from this process's memory.
  void release_before(size_t offset);
  // Drops the whole pages inside [begin, end), whatever was dropped before;
  // for a second reader of the same mapping (it keeps no cursor).
  void release_range(size_t begin, size_t end) const;
  // Maps the pages of the `bytes` from `begin` (clipped to the text) into
  // this process in one call where the kernel can (MADV_POPULATE_READ, Linux
  // 5.14), so that reading them takes no page fault per 64 KiB; a no-op
  // elsewhere.
  void populate(size_t begin, size_t bytes) const;

 private:
  MappedText(const char* data, size_t size_bytes) : data_(data), size_bytes_(size_bytes) {}

  const char* data_;
  size_t size_bytes_;
  size_t released_bytes_ = 0;
};

// The first NUL byte of `text` (npos if none), handing the pages searched
// back to `mapped` when there is one.
size_t find_nul_releasing(std::string_view text, MappedText* mapped);

}  // namespace snr::pytorch
