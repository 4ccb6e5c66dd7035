// Real .et files written by Chakra's and ASTRA-sim's tools (../shared/data):
// each must read without skips and re-encode to the identical bytes.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "common/file_io.h"
#include "formats/chakra/et_reader.h"
#include "formats/chakra/et_writer.h"
#include "formats/chakra/rank_files.h"

namespace snr::chakra {
namespace {

namespace fs = std::filesystem;

fs::path shared_data() {
  const char* dir = std::getenv("SNR_SHARED_DATA");
  return dir != nullptr ? fs::path(dir) : fs::path();
}

std::vector<fs::path> real_et_files() {
  std::vector<fs::path> files;
  fs::path root = shared_data();
  for (const char* sub : {"astra-sim", "chakra"}) {
    if (!fs::is_directory(root / sub)) continue;
    for (const auto& entry : fs::recursive_directory_iterator(root / sub)) {
      if (entry.is_regular_file() && entry.path().extension() == ".et") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The feeder test trace ships inside a tarball; unpack it once per run.
fs::path unpacked_feeder_trace() {
  fs::path archive = shared_data() / "chakra" / "feeder_tests_trace.tar.gz";
  if (!fs::exists(archive)) return {};
  fs::path dir = fs::temp_directory_path() / ("snr_chakra_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string command = "tar -xzf '" + archive.string() + "' -C '" + dir.string() + "' 2>/dev/null";
  if (std::system(command.c_str()) != 0) return {};
  return dir / "tests" / "data" / "chakra.0.et";
}

void expect_round_trip(const fs::path& path) {
  SCOPED_TRACE(path.string());
  std::string original = read_file(path);
  EtTrace trace = read_trace(path);
  EXPECT_EQ(trace.stats.skipped_records, 0u);
  EXPECT_EQ(trace.stats.zero_length_messages, 0u);
  EXPECT_EQ(trace.stats.bytes_consumed, original.size());
  EXPECT_EQ(encode_trace(trace.metadata, trace.nodes), original);
}

TEST(RealTraces, AstraSimAndChakraFilesRoundTripByteIdentically) {
  auto files = real_et_files();
  if (files.empty()) GTEST_SKIP() << "no .et files under SNR_SHARED_DATA (../shared/data) — skipping";
  for (const auto& path : files) expect_round_trip(path);
  EXPECT_GE(files.size(), 100u);
}

TEST(RealTraces, FeederTraceFromChakraTarballRoundTrips) {
  fs::path path = unpacked_feeder_trace();
  if (path.empty() || !fs::exists(path)) GTEST_SKIP() << "feeder_tests_trace.tar.gz not available";
  expect_round_trip(path);
  EtTrace trace = read_trace(path);
  EXPECT_EQ(trace.nodes.size(), 3664u);
  // Written by an early converter: attributes (schema, pid, time...) but no version.
  EXPECT_GT(trace.metadata.attr_size(), 0);
  fs::remove_all(path.parent_path().parent_path().parent_path());
}

TEST(RealTraces, AstraSimMicrobenchmarkPrefixesDiscoverAllRanks) {
  fs::path prefix = shared_data() / "astra-sim/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce";
  if (!fs::exists(rank_trace_path(prefix, 0))) GTEST_SKIP() << "astra-sim microbenchmarks not available";
  auto ranks = resolve_trace_argument(prefix);
  ASSERT_EQ(ranks.size(), 8u);
  for (size_t i = 0; i < ranks.size(); ++i) EXPECT_EQ(ranks[i].rank, i);
}

}  // namespace
}  // namespace snr::chakra
