#include "common/units.h"

#include <gtest/gtest.h>

#include <cmath>

namespace snr {
namespace {

TEST(Units, ParsesSizes) {
  EXPECT_EQ(parse_bytes("16MiB").value().count, 16u << 20);
  EXPECT_EQ(parse_bytes("4096").value().count, 4096u);
  EXPECT_EQ(parse_bytes("1.5 KB").value().count, 1500u);
  EXPECT_EQ(parse_bytes("2GiB").value().count, 2ULL << 30);
  EXPECT_FALSE(parse_bytes("16Mb").ok());
  EXPECT_FALSE(parse_bytes("0.5B").ok());
  EXPECT_FALSE(parse_bytes("").ok());
  EXPECT_FALSE(parse_bytes("-1KB").ok());
}

TEST(Units, ParsesDurations) {
  EXPECT_EQ(parse_duration("500ns").value().picoseconds, 500'000);
  EXPECT_EQ(parse_duration("1.5us").value().picoseconds, 1'500'000);
  EXPECT_EQ(parse_duration("936.25ns").value().picoseconds, 936'250);
  EXPECT_FALSE(parse_duration("500").ok()) << "a bare number must not be guessed to be ns";
  EXPECT_FALSE(parse_duration("0.1ps").ok());
  EXPECT_FALSE(parse_duration("5 parsecs").ok());
  // Beyond int64 picoseconds: an error, not an undefined conversion.
  EXPECT_FALSE(parse_duration("8888888888888885ms").ok());
  EXPECT_FALSE(parse_duration("-1e10s").ok());
  EXPECT_EQ(parse_duration("9000000s").value().picoseconds, 9'000'000'000'000'000'000);
}

TEST(Units, ParsesBandwidthAndFrequency) {
  EXPECT_DOUBLE_EQ(parse_bandwidth("1.2TB/s").value().bytes_per_second, 1.2e12);
  EXPECT_DOUBLE_EQ(parse_bandwidth("100Gb/s").value().bytes_per_second, 12.5e9);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1GiB/s").value().bytes_per_second, 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_frequency("940MHz").value().hertz, 940e6);
  EXPECT_DOUBLE_EQ(parse_bandwidth("1PB/s").value().bytes_per_second, 1e15);
  EXPECT_FALSE(parse_bandwidth("1.2TB").ok());
  EXPECT_FALSE(parse_frequency("1.2").ok());
}

TEST(Units, FormatsRoundTrip) {
  for (const char* s : {"16MiB", "4096KiB", "3B", "1GiB"}) {
    EXPECT_EQ(format_bytes(parse_bytes(s).value()), s == std::string("4096KiB") ? "4MiB" : s);
  }
  for (const char* s : {"500ns", "1.5us", "936.25ns", "250ps"}) {
    EXPECT_EQ(format_duration(parse_duration(s).value()), s);
  }
  for (const char* s : {"1.2TB/s", "819GB/s", "50GB/s", "1PB/s"}) {
    EXPECT_EQ(format_bandwidth(parse_bandwidth(s).value()), s);
  }
  EXPECT_EQ(format_frequency(parse_frequency("940MHz").value()), "940MHz");
}

// A written value reads back as exactly the same number: a run's hardware
// config is read again to replay on the same hardware, and 1.234567890123GHz
// written as 1234.56789MHz was another clock.
TEST(Units, FormatsReadBackExactly) {
  for (const char* s : {"1.234567890123GHz", "1.05GHz", "1000.0003MHz", "3.000000001GHz", "999999999Hz"}) {
    const Frequency f = parse_frequency(s).value();
    EXPECT_EQ(parse_frequency(format_frequency(f)).value().hertz, f.hertz) << s << " -> " << format_frequency(f);
  }
  EXPECT_EQ(format_frequency(parse_frequency("1.234567890123GHz").value()), "1.234567890123GHz");
  for (const char* s : {"1.23456789012345TB/s", "45.6789012345Gb/s", "819GB/s", "1.000000000001MB/s"}) {
    const Bandwidth b = parse_bandwidth(s).value();
    EXPECT_EQ(parse_bandwidth(format_bandwidth(b)).value().bytes_per_second, b.bytes_per_second)
        << s << " -> " << format_bandwidth(b);
  }
  // No double times 1e6 or 1e9 is this clock: scaling the rounded 1.0507...
  // wrote it in Hz. The digits scaled before rounding read back exactly.
  const Frequency npu{1050760900.9707525};
  EXPECT_EQ(format_frequency(npu), "1.0507609009707525GHz");
  EXPECT_EQ(parse_frequency("1050.7609009707525MHz").value().hertz, npu.hertz);
  EXPECT_EQ(parse_frequency("1.0507609009707525GHz").value().hertz, npu.hertz);
  EXPECT_EQ(parse_frequency("1.0507609009707525e3MHz").value().hertz, npu.hertz);
  EXPECT_EQ(format_bandwidth(Bandwidth{0.5}), "0.5B/s");
  EXPECT_TRUE(std::isinf(parse_frequency("1e300GHz").value().hertz));  // as 1e300 x 1e9 was
  EXPECT_EQ(format_bandwidth(Bandwidth{1e21}), "1000000PB/s");
  for (const char* s : {"123.456ns", "1.234567891ms", "999999.999ns", "1s", "7ps"}) {
    const Duration d = parse_duration(s).value();
    EXPECT_EQ(parse_duration(format_duration(d)).value().picoseconds, d.picoseconds) << s;
  }
}

}  // namespace
}  // namespace snr
