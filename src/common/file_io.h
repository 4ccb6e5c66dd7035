// Whole-file reads and all-or-nothing writes. Outputs are written to a
// temporary file beside the target and renamed into place on commit(), so a
// failed or interrupted run never leaves a half-written output behind (see
// common/output.h for the checks and the interrupt cleanup).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace snr {

// Reads a whole file; throws snr::Error naming the path on failure.
std::string read_file(const std::filesystem::path& path);
std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path);

class AtomicFileWriter {
 public:
  explicit AtomicFileWriter(std::filesystem::path path, bool binary = true);
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter&) = delete;
  AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

  std::ostream& stream() { return out_; }
  void write(std::string_view data) { out_.write(data.data(), static_cast<std::streamsize>(data.size())); }
  // Flushes, checks for write errors and renames into place.
  void commit();
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::filesystem::path temp_path_;
  std::ofstream out_;
  bool committed_ = false;
  int slot_ = -1;  // interrupt-cleanup registration of temp_path_
};

// Convenience: atomically replace `path` with `data`.
void write_file_atomic(const std::filesystem::path& path, std::string_view data);

}  // namespace snr
