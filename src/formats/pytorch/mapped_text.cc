#include "formats/pytorch/mapped_text.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace snr::pytorch {

std::unique_ptr<MappedText> MappedText::map_plain(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return nullptr;
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode) || info.st_size < 2) {
    ::close(fd);
    return nullptr;
  }
  const auto size_bytes = static_cast<size_t>(info.st_size);
  void* data = ::mmap(nullptr, size_bytes, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);  // the mapping keeps the file
  if (data == MAP_FAILED) return nullptr;
  const auto* bytes = static_cast<const unsigned char*>(data);
  if (bytes[0] == 0x1f && bytes[1] == 0x8b) {
    ::munmap(data, size_bytes);
    return nullptr;
  }
  // Read front to back: let the kernel read ahead generously.
  (void)::madvise(data, size_bytes, MADV_SEQUENTIAL);
  return std::unique_ptr<MappedText>(new MappedText(static_cast<const char*>(data), size_bytes));
}

MappedText::~MappedText() { ::munmap(const_cast<char*>(data_), size_bytes_); }

void MappedText::release_before(size_t offset) {
  const auto page_bytes = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t end = std::min(offset, size_bytes_) / page_bytes * page_bytes;
  if (end <= released_bytes_) return;
  // A private, never written file mapping: dropped pages read back from the file.
  (void)::madvise(const_cast<char*>(data_) + released_bytes_, end - released_bytes_, MADV_DONTNEED);
  released_bytes_ = end;
}

void MappedText::release_range(size_t begin, size_t end) const {
  const auto page_bytes = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t first = (begin + page_bytes - 1) / page_bytes * page_bytes;
  const size_t last = std::min(end, size_bytes_) / page_bytes * page_bytes;
  if (last <= first) return;
  (void)::madvise(const_cast<char*>(data_) + first, last - first, MADV_DONTNEED);
}

void MappedText::populate(size_t begin, size_t bytes) const {
#ifdef MADV_POPULATE_READ
  if (begin >= size_bytes_) return;
  const auto page_bytes = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t first = begin / page_bytes * page_bytes;
  const size_t last = bytes > size_bytes_ - begin ? size_bytes_ : begin + bytes;
  (void)::madvise(const_cast<char*>(data_) + first, last - first, MADV_POPULATE_READ);
#else
  (void)begin;
  (void)bytes;
#endif
}

size_t find_nul_releasing(std::string_view text, MappedText* mapped) {
  constexpr size_t kStepBytes = size_t{4} << 20;
  if (mapped != nullptr) mapped->begin_pass();
  for (size_t at = 0; at < text.size(); at += kStepBytes) {
    const size_t step = std::min(kStepBytes, text.size() - at);
    if (const void* nul = std::memchr(text.data() + at, '\0', step)) {
      return static_cast<size_t>(static_cast<const char*>(nul) - text.data());
    }
    if (mapped != nullptr) mapped->release_before(at + step);
  }
  return std::string_view::npos;
}

}  // namespace snr::pytorch
