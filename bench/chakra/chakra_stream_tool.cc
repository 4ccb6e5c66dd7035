// Helper for bench/chakra/peak_memory.sh:
//   chakra_stream_tool generate OUT.et TARGET_BYTES   writes a synthetic trace
//   chakra_stream_tool read IN.et                     streams it, prints
//                                                     bytes, nodes, MB/s, peak RSS
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "common/error.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/test_traces.h"

namespace {

int generate(const char* path, uint64_t target_bytes) {
  snr::chakra::EtWriter writer(path, snr::chakra::testing::sample_metadata());
  uint64_t id = 0;
  while (writer.bytes_written() < target_bytes) writer.write(snr::chakra::testing::synthetic_node(id++));
  writer.commit();
  fmt::print("{}: {} nodes, {} bytes\n", path, writer.nodes_written(), writer.bytes_written());
  return 0;
}

int read(const char* path) {
  auto start = std::chrono::steady_clock::now();
  auto reader = snr::chakra::EtReader::open(path);
  ChakraProtoMsg::Node node;
  uint64_t nodes = 0;
  while (reader.next(node)) ++nodes;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  uint64_t bytes = reader.stats().bytes_consumed;
  fmt::print("{}: {} nodes, {} bytes in {:.2f} s = {:.0f} MB/s, peak RSS {} MiB\n", path, nodes, bytes, seconds,
             static_cast<double>(bytes) / seconds / 1e6, usage.ru_maxrss / 1024);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    std::string verb = argc > 1 ? argv[1] : "";
    if (verb == "generate" && argc == 4) return generate(argv[2], std::strtoull(argv[3], nullptr, 10));
    if (verb == "read" && argc == 3) return read(argv[2]);
    std::fprintf(stderr, "usage: %s generate OUT.et TARGET_BYTES | read IN.et\n", argv[0]);
    return 2;
  } catch (const snr::Error& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
