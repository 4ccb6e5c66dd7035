#include "common/file_io.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "common/error.h"

namespace snr {

std::string read_file(const std::filesystem::path& path) {
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
  if (path_.has_parent_path() && !path_.parent_path().empty()) {
    std::error_code ec;
    std::filesystem::create_directories(path_.parent_path(), ec);
  }
  out_.open(temp_path_, binary ? std::ios::binary | std::ios::trunc : std::ios::trunc);
  if (!out_) {
    throw Error(fmt::format("cannot create '{}': {}", path_.string(), std::strerror(errno)));
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (!committed_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(temp_path_, ec);
  }
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
}

void write_file_atomic(const std::filesystem::path& path, std::string_view data) {
  AtomicFileWriter writer(path);
  writer.write(data);
  writer.commit();
}

}  // namespace snr
