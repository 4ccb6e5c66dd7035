#include "pathfind/mapping/notation.h"

#include <gtest/gtest.h>

#include <string>

#include "common/error.h"

namespace snr::pathfind {
namespace {

std::string error_of(std::string_view text) {
  try {
    (void)parse_parallelism(text);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PathfindNotation, ParsesThePaperForms) {
  ParallelismNotation rc = parse_parallelism("RC-4-2-d3-p2");
  EXPECT_EQ(rc.kind, KernelSplit::kRowColumn);
  EXPECT_EQ(rc.kp1, 4u);
  EXPECT_EQ(rc.kp2, 2u);
  EXPECT_EQ(rc.dp, 3u);
  EXPECT_EQ(rc.lp, 2u);
  EXPECT_EQ(rc.devices(), 48u);
  EXPECT_EQ(rc.to_string(), "RC-4-2-d3-p2");

  ParallelismNotation cr = parse_parallelism("CR-8-d4-p1");
  EXPECT_EQ(cr.kind, KernelSplit::kColumnRow);
  EXPECT_EQ(cr.kp1, 8u);
  EXPECT_EQ(cr.kp2, 1u);
  EXPECT_EQ(cr.devices(), 32u);
  EXPECT_EQ(cr.to_string(), "CR-8-d4-p1");

  ParallelismNotation plain = parse_parallelism("d16-p4");
  EXPECT_EQ(plain.kind, KernelSplit::kNone);
  EXPECT_EQ(plain.kp1, 1u);
  EXPECT_EQ(plain.kp2, 1u);
  EXPECT_EQ(plain.devices(), 64u);
  EXPECT_EQ(plain.to_string(), "d16-p4");
}

TEST(PathfindNotation, AcceptsTheFigureFiveSpellingAndAnyCase) {
  // Figure 5 writes the kernel factors with a K prefix.
  EXPECT_EQ(parse_parallelism("RC-K4-K2-d3-p2"), parse_parallelism("RC-4-2-d3-p2"));
  EXPECT_EQ(parse_parallelism("rc-k4-K2-D3-P2").to_string(), "RC-4-2-d3-p2");
  EXPECT_EQ(parse_parallelism("cr-K8-d4-P1").to_string(), "CR-8-d4-p1");
  EXPECT_EQ(parse_parallelism("  D2-p1 ").to_string(), "d2-p1");
  EXPECT_EQ(parse_parallelism("RC-04-2-d3-p2").to_string(), "RC-4-2-d3-p2");
}

TEST(PathfindNotation, CanonicalFormRoundTrips) {
  for (const char* text : {"RC-1-1-d1-p1", "RC-16-8-d2-p4", "CR-3-d5-p7", "d1-p1", "d1048576-p1"}) {
    EXPECT_EQ(parse_parallelism(parse_parallelism(text).to_string()).to_string(), text);
  }
}

TEST(PathfindNotation, ErrorsNameThePart) {
  EXPECT_EQ(error_of("RC-4-d3-p2"), "parallelism 'RC-4-d3-p2': RC needs two kernel factors (RC-{KP1}-{KP2}-d{DP}-p{LP})");
  EXPECT_EQ(error_of("RC-4-2-2-d3-p2"),
            "parallelism 'RC-4-2-2-d3-p2': RC needs two kernel factors (RC-{KP1}-{KP2}-d{DP}-p{LP})");
  EXPECT_EQ(error_of("CR-4-2-d3-p2"), "parallelism 'CR-4-2-d3-p2': CR takes one kernel factor (CR-{KP1}-d{DP}-p{LP})");
  EXPECT_EQ(error_of("CR-d3-p2"), "parallelism 'CR-d3-p2': CR takes one kernel factor (CR-{KP1}-d{DP}-p{LP})");
  EXPECT_EQ(error_of("RC-4-2-p2"), "parallelism 'RC-4-2-p2': expected the data part d{DP}, got 'p2'");
  EXPECT_EQ(error_of("RC-4-2-d3"), "parallelism 'RC-4-2-d3': missing the pipeline part p{LP}");
  EXPECT_EQ(error_of("d3-x2"), "parallelism 'd3-x2': expected the pipeline part p{LP}, got 'x2'");
  EXPECT_EQ(error_of("d3-p2-q"), "parallelism 'd3-p2-q': unexpected part 'q' after p{LP}");
  EXPECT_EQ(error_of("XY-4-d3-p2"),
            "parallelism 'XY-4-d3-p2': unknown kernel split 'XY' (expected RC, CR or the data part d{DP}; forms: "
            "RC-{KP1}-{KP2}-d{DP}-p{LP}, CR-{KP1}-d{DP}-p{LP} or d{DP}-p{LP})");
  EXPECT_EQ(error_of(""),
            "parallelism '': empty; expected RC-{KP1}-{KP2}-d{DP}-p{LP}, CR-{KP1}-d{DP}-p{LP} or d{DP}-p{LP}");
  EXPECT_EQ(error_of("RC-4--2-d3-p2"),
            "parallelism 'RC-4--2-d3-p2': empty part 3 (two dashes in a row or a dash at an end)");
  EXPECT_EQ(error_of("d3-p2-"), "parallelism 'd3-p2-': empty part 3 (two dashes in a row or a dash at an end)");
}

TEST(PathfindNotation, ErrorsNameTheCount) {
  EXPECT_EQ(error_of("RC-0-2-d3-p2"), "parallelism 'RC-0-2-d3-p2': KP1 must be in 1..1048576, got 0");
  EXPECT_EQ(error_of("RC-4-K0-d3-p2"), "parallelism 'RC-4-K0-d3-p2': KP2 must be in 1..1048576, got 0");
  EXPECT_EQ(error_of("RC-4-2-d0-p2"), "parallelism 'RC-4-2-d0-p2': DP must be in 1..1048576, got 0");
  EXPECT_EQ(error_of("RC-4-2-d3-p0"), "parallelism 'RC-4-2-d3-p0': LP must be in 1..1048576, got 0");
  EXPECT_EQ(error_of("d1048577-p1"), "parallelism 'd1048577-p1': DP must be in 1..1048576, got 1048577");
  EXPECT_EQ(error_of("CR-99999999999999999999-d1-p1"),
            "parallelism 'CR-99999999999999999999-d1-p1': KP1 99999999999999999999 is out of range 1..1048576");
  EXPECT_EQ(error_of("RC-4x-2-d3-p2"), "parallelism 'RC-4x-2-d3-p2': KP1 '4x' is not a number");
  EXPECT_EQ(error_of("RC-K-2-d3-p2"), "parallelism 'RC-K-2-d3-p2': KP1 has no number");
  EXPECT_EQ(error_of("d-p2"), "parallelism 'd-p2': DP has no number");
  EXPECT_EQ(error_of("d2-p+2"), "parallelism 'd2-p+2': LP '+2' is not a number");
  // Each count fits, the product does not.
  EXPECT_EQ(error_of("RC-1048576-1048576-d2-p1"),
            "parallelism 'RC-1048576-1048576-d2-p1': uses 2199023255552 devices, more than the limit of "
            "1099511627776 (2^40)");
}

TEST(PathfindNotation, ValidateNamesTheField) {
  ParallelismNotation n;
  n.kind = KernelSplit::kRowColumn;
  n.kp1 = 4;
  n.kp2 = 0;
  EXPECT_THROW(n.validate(), Error);
  try {
    n.validate();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "parallelism RC-4-0-d1-p1: kp2 must be in 1..1048576, got 0");
  }
  n.kind = KernelSplit::kColumnRow;
  n.kp2 = 2;
  try {
    n.validate();
    ADD_FAILURE() << "CR with kp2 = 2 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "parallelism CR-4-d1-p1: kp2 must be 1 without an RC kernel split, got 2");
  }
}

TEST(PathfindNotation, CheckDevicesComparesWithTheSystem) {
  const ParallelismNotation n = parse_parallelism("RC-4-2-d3-p2");
  EXPECT_NO_THROW(check_devices(n, 48));
  try {
    check_devices(n, 32);
    ADD_FAILURE() << "48 devices accepted on 32";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "parallelism RC-4-2-d3-p2 uses 48 devices but the system has 32");
  }
}

TEST(PathfindNotation, ParallelDimsFollowTheNotation) {
  const ParallelDims rc = parallel_dims(parse_parallelism("RC-4-2-d3-p2"));
  EXPECT_EQ(rc[ParallelDim::kKernelRow], 4u);
  EXPECT_EQ(rc[ParallelDim::kKernelCol], 2u);
  EXPECT_EQ(rc[ParallelDim::kPipeline], 2u);
  EXPECT_EQ(rc[ParallelDim::kData], 3u);
  EXPECT_EQ(rc.shards(), 48u);
  EXPECT_EQ(rc.to_string(), "kernel_row 4 x kernel_col 2 x pipeline 2 x data 3");
  // CR's single ring is the kernel_row dimension.
  const ParallelDims cr = parallel_dims(parse_parallelism("CR-8-d4-p1"));
  EXPECT_EQ(cr.size, (std::array<uint64_t, 4>{8, 1, 1, 4}));
  EXPECT_EQ(parallel_dims(parse_parallelism("d3-p2")).size, (std::array<uint64_t, 4>{1, 1, 2, 3}));
  ParallelDims bad;
  bad.size[index_of(ParallelDim::kPipeline)] = 0;
  EXPECT_THROW(bad.validate(), Error);
}

}  // namespace
}  // namespace snr::pathfind
