// Sequential byte sources behind EtReader: a plain file read with read(2) in
// large chunks, a gzip stream inflated with zlib (concatenated members are
// followed), and an in-memory buffer. Internal to snr_chakra.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

namespace snr::chakra {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Copies up to `capacity` bytes into `out`; returns 0 only at the end of
  // the stream. Throws snr::Error on I/O or decompression errors.
  virtual size_t read_some(uint8_t* out, size_t capacity) = 0;
};

// Opens `path`, sniffing the gzip magic; sets `gzip` accordingly.
std::unique_ptr<ByteSource> open_file_source(const std::filesystem::path& path, bool& gzip);
// `bytes` must outlive the source; gzip data is inflated as for files.
std::unique_ptr<ByteSource> open_memory_source(std::string_view bytes, std::string display_name,
                                               bool& gzip);

}  // namespace snr::chakra
