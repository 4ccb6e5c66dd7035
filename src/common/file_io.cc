#include "common/file_io.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/error.h"
#include "common/output.h"

namespace snr {

std::string read_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(fmt::format("'{}' is a directory; expected a file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw Error(fmt::format("cannot open '{}': {}", path.string(), std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(fmt::format("error reading '{}'", path.string()));
  return std::move(buffer).str();
}

std::vector<uint8_t> read_file_bytes(const std::filesystem::path& path) {
  std::string data = read_file(path);
  return {data.begin(), data.end()};
}

AtomicFileWriter::AtomicFileWriter(std::filesystem::path path, bool binary)
    : path_(std::move(path)),
      temp_path_(path_.string() + fmt::format(".tmp.{}", static_cast<long>(::getpid()))) {
  output::check_output_file(path_, "output");
  slot_ = output::detail::register_staging(temp_path_);
  out_.open(temp_path_, binary ? std::ios::binary | std::ios::trunc : std::ios::trunc);
  if (!out_) {
    const int error = errno;
    output::detail::unregister_staging(slot_);
    throw Error(fmt::format("cannot create '{}': {}", path_.string(), std::strerror(error)));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(temp_path_, ec);
  }
  output::detail::unregister_staging(slot_);
}

void AtomicFileWriter::commit() {
  out_.flush();
  if (!out_) throw Error(fmt::format("error writing '{}'", path_.string()));
  out_.close();
  std::error_code ec;
  std::filesystem::rename(temp_path_, path_, ec);
  if (ec) {
    throw Error(fmt::format("cannot move output into place at '{}': {}", path_.string(), ec.message()));
  }
  committed_ = true;
  output::detail::unregister_staging(slot_);
  slot_ = -1;
}

void write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  AtomicFileWriter writer(path);
  writer.write(data);
  writer.commit();
}

}  // namespace snr
