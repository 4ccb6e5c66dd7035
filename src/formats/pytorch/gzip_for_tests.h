// gzip members written in memory, for the tests of the gzip readers.
#pragma once

#include <zlib.h>

#include <string>

namespace snr::pytorch {

// `text` as one gzip member, as `gzip` writes it ("" if zlib fails);
// `header_crc` sets FHCRC with the header's CRC.
inline std::string gzip_member(const std::string& text, bool header_crc = false) {
  z_stream stream{};
  if (deflateInit2(&stream, Z_BEST_SPEED, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) return "";
  gz_header header{};
  header.hcrc = header_crc ? 1 : 0;
  if (header_crc) deflateSetHeader(&stream, &header);
  std::string out(deflateBound(&stream, text.size()) + 64, '\0');  // room for the header CRC
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  stream.avail_in = static_cast<uInt>(text.size());
  stream.next_out = reinterpret_cast<Bytef*>(out.data());
  stream.avail_out = static_cast<uInt>(out.size());
  const int status = deflate(&stream, Z_FINISH);
  out.resize(stream.total_out);
  deflateEnd(&stream);
  return status == Z_STREAM_END ? out : "";
}

}  // namespace snr::pytorch
