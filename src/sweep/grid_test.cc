#include "sweep/grid.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "common/error_of.h"
#include "sweep/document.h"

namespace snr::sweep {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

Grid parse(std::string_view text) { return parse_grid(text, "dir/grid.yaml"); }

std::vector<std::string> values_of(const std::vector<Point>& points, size_t key) {
  std::vector<std::string> out;
  for (const Point& p : points) out.push_back(p.canonical[key]);
  return out;
}

TEST(Grid, ProductWithZipExpandsLastAxisFastest) {
  const Grid g = parse(R"(
kind: pathfind
name: hbm
base: {device: a100-80gb, parallelism: "tp=8"}
grid:
  device.hbm.bandwidth: [1TB/s, 2TB/s]
  zip:
    - model.hidden: [4096, 8192, 12288]
      model.heads: [32, 64, 96]
  parallelism: ["tp=8,pp=8", "tp=4,pp=16"]
)");
  EXPECT_EQ(g.kind, "pathfind");
  EXPECT_EQ(g.name, "hbm");
  EXPECT_EQ(g.dir, "dir");
  EXPECT_EQ(g.keys(), (std::vector<std::string>{"device.hbm.bandwidth", "model.hidden", "model.heads", "parallelism"}));
  const auto points = expand(g);
  ASSERT_EQ(points.size(), 2u * 3 * 2);
  EXPECT_EQ(points[0].canonical, (std::vector<std::string>{"1TB/s", "4096", "32", "tp=8,pp=8"}));
  EXPECT_EQ(points[1].canonical, (std::vector<std::string>{"1TB/s", "4096", "32", "tp=4,pp=16"}));
  EXPECT_EQ(points[2].canonical, (std::vector<std::string>{"1TB/s", "8192", "64", "tp=8,pp=8"}));
  EXPECT_EQ(points[11].canonical, (std::vector<std::string>{"2TB/s", "12288", "96", "tp=4,pp=16"}));
  std::set<std::string> keys;
  for (const Point& p : points) keys.insert(p.key);
  EXPECT_EQ(keys.size(), points.size());
  EXPECT_THAT(g.where("parallelism"), HasSubstr("dir/grid.yaml:10: "));
}

TEST(Grid, RangesKeepTheUnitAndIntegers) {
  const Grid g = parse(R"(
kind: pathfind
base: {}
grid:
  device.hbm.bandwidth: {range: [500GB/s, 2TB/s], steps: 4}
  model.layers: {range: [1, 10], steps: 4}
  device.frequency: {range: [1GHz, 4GHz], steps: 3, scale: log}
)");
  const auto points = expand(g);
  ASSERT_EQ(points.size(), 4u * 4 * 3);
  std::vector<std::string> bandwidths, layers, freqs;
  for (const Point& p : points) {
    if (p.canonical[1] == "1" && p.canonical[2] == "1GHz") bandwidths.push_back(p.canonical[0]);
    if (p.canonical[0] == "500GB/s" && p.canonical[2] == "1GHz") layers.push_back(p.canonical[1]);
    if (p.canonical[0] == "500GB/s" && p.canonical[1] == "1") freqs.push_back(p.canonical[2]);
  }
  EXPECT_EQ(bandwidths, (std::vector<std::string>{"500GB/s", "1000GB/s", "1500GB/s", "2000GB/s"}));
  EXPECT_EQ(layers, (std::vector<std::string>{"1", "4", "7", "10"}));
  EXPECT_EQ(freqs, (std::vector<std::string>{"1GHz", "2GHz", "4GHz"}));
}

// Six significant digits used to put [100.0001, 100.0004] in 4 steps at
// "100" four times: one point, outside the range.
TEST(Grid, RangeValuesStayInsideTheRangeAndApart) {
  const auto range_values = [](const std::string& spec) {
    const Grid grid = parse("kind: k\nbase: {}\ngrid:\n  a: " + spec + "\n");
    std::vector<std::string> out;
    for (const YAML::Node& v : grid.axes.at(0).values.at(0)) out.push_back(v.Scalar());
    return out;
  };
  using Texts = std::vector<std::string>;
  EXPECT_EQ(range_values("{range: [100.0001, 100.0004], steps: 4}"),
            (Texts{"100.0001", "100.0002", "100.0003", "100.0004"}));
  EXPECT_EQ(range_values("{range: [100.0001GB/s, 100.0004GB/s], steps: 4}"),
            (Texts{"100.0001GB/s", "100.0002GB/s", "100.0003GB/s", "100.0004GB/s"}));
  EXPECT_EQ(range_values("{range: [0.1, 0.3], steps: 3}"), (Texts{"0.1", "0.2", "0.3"}));
  EXPECT_EQ(range_values("{range: [1.0000001, 1.0000009], steps: 2, scale: log}"), (Texts{"1.0000001", "1.0000009"}));
  const Texts fine = range_values("{range: [1e-9, 1.00000000001e-9], steps: 7}");
  EXPECT_EQ(std::set<std::string>(fine.begin(), fine.end()).size(), 7u);
  for (const std::string& text : fine) {
    const double v = parse_quantity(text)->number;
    EXPECT_TRUE(v >= 1e-9 && v <= 1.00000000001e-9) << text;
  }
  for (const std::string spec : {"{range: [1, 3], steps: 5}", "{range: [5, 5], steps: 2}",
                                 "{range: [1, 1.0000000000000002], steps: 3}", "{range: [1B, 2B], steps: 3}"}) {
    EXPECT_THAT(error_of([&] { range_values(spec); }), HasSubstr("cannot all be told apart")) << spec;
  }
  EXPECT_EQ(range_values("{range: [5, 5], steps: 1}"), (Texts{"5"}));
  // Random draws stay inside too.
  const Grid g = parse("kind: k\nbase: {}\nrandom: {samples: 50, keys: {a: {uniform: [100.0001, 100.0004]}}}\n");
  for (const Point& p : expand(g)) {
    const double v = parse_quantity(p.canonical[0])->number;
    EXPECT_TRUE(v >= 100.0001 && v <= 100.0004) << p.canonical[0];
  }
}

constexpr std::string_view kRandom = R"(
kind: pathfind
base: {}
grid:
  parallelism: ["tp=8", "tp=4"]
random:
  samples: 50
  seed: SEED
  keys:
    device.hbm.bandwidth: {log-uniform: [1TB/s, 4000GB/s]}
    model.layers: {uniform: [2, 9]}
    device.hbm.capacity: {uniform: [16GiB, 80GiB]}
    mapping: {choice: [best, "r,c,p,d"]}
)";

Grid random_grid(std::string_view seed) {
  std::string text(kRandom);
  text.replace(text.find("SEED"), 4, seed);
  return parse(text);
}

TEST(Grid, RandomSamplesAreDeterministicAndInRange) {
  const auto a = expand(random_grid("7"));
  const auto b = expand(random_grid("7"));
  const auto c = expand(random_grid("8"));
  ASSERT_EQ(a.size(), 100u);  // the same 50 samples with each grid value
  for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].key, b[i].key);
  EXPECT_NE(values_of(a, 1), values_of(c, 1));
  std::set<std::string> mappings;
  for (size_t i = 0; i < a.size(); ++i) {
    const Point& p = a[i];
    // Paired: sample i is the same for both parallelisms.
    if (i >= 50) {
      EXPECT_EQ(std::vector<std::string>(p.canonical.begin() + 1, p.canonical.end()),
                std::vector<std::string>(a[i - 50].canonical.begin() + 1, a[i - 50].canonical.end()));
    }
    const auto bw = parse_quantity(p.canonical[1]);
    ASSERT_TRUE(bw) << p.canonical[1];
    EXPECT_EQ(bw->unit, "TB/s");
    EXPECT_GE(bw->base, 1e12);
    EXPECT_LE(bw->base, 4e12);
    const auto layers = parse_quantity(p.canonical[2]);
    ASSERT_TRUE(layers && layers->integer) << p.canonical[2];
    EXPECT_GE(layers->number, 2);
    EXPECT_LE(layers->number, 9);
    const auto capacity = parse_quantity(p.canonical[3]);
    ASSERT_TRUE(capacity) << p.canonical[3];
    EXPECT_EQ(capacity->kind->name, "size");
    EXPECT_GE(capacity->base, 16.0 * (1 << 30));
    EXPECT_LE(capacity->base, 80.0 * (1 << 30));
    mappings.insert(p.canonical[4]);
  }
  EXPECT_EQ(mappings, (std::set<std::string>{"best", "r,c,p,d"}));
}

TEST(Grid, DuplicatePointsRunOnce) {
  const Grid g = parse("kind: k\nbase: {}\ngrid:\n  a: [1, 2, 1]\n");
  EXPECT_EQ(expand(g).size(), 2u);
}

TEST(Grid, PointKeysDoNotDependOnKeyOrder) {
  EXPECT_EQ(point_key("pathfind", {"a", "b"}, {"1", "2"}), point_key("pathfind", {"b", "a"}, {"2", "1"}));
  EXPECT_NE(point_key("pathfind", {"a", "b"}, {"1", "2"}), point_key("sim", {"a", "b"}, {"1", "2"}));
  EXPECT_NE(point_key("pathfind", {"a", "b"}, {"1", "2"}), point_key("pathfind", {"a", "b"}, {"2", "1"}));
  EXPECT_EQ(point_key("pathfind", {"a"}, {"1"}).size(), 16u);
}

TEST(Grid, StructureErrorsNameTheKeyAndLine) {
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  device.hbm.bandwidth: []\n"); }),
              HasSubstr("grid.yaml:4: key 'device.hbm.bandwidth': empty list of values"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  model.layers: {range: [1, 4], steps: 0}\n"); }),
              HasSubstr("key 'model.layers': empty range (steps: 0)"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  x: {range: [4, 1], steps: 3}\n"); }),
              HasSubstr("key 'x': empty range"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  d.bw: {range: [1TB/s, 80GiB], steps: 3}\n"); }),
              HasSubstr("key 'd.bw': unit mismatch: '1TB/s' is a bandwidth but '80GiB' is a size"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\nrandom: {samples: 3, keys: {d.bw: {uniform: [1TB/s, 2]}}}\n"); }),
              HasSubstr("key 'd.bw': unit mismatch"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  a: [1]\nrandom: {samples: 2, keys: {a: {choice: [1]}}}\n"); }),
              HasSubstr("key 'a' varies twice (first at line 4)"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  zip:\n    - {a: [1, 2], b: [1]}\n"); }),
              HasSubstr("zip: key 'b' has 1 values but 'a' has 2"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  a: 5\n"); }), HasSubstr("key 'a': give a list"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\nrandom: {samples: 0, keys: {a: {choice: [1]}}}\n"); }),
              HasSubstr("samples must be a count"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\nrandom: {samples: 2, keys: {a: {normal: [1, 2]}}}\n"); }),
              HasSubstr("key 'a': 'normal' is not a draw"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\nrandom: {samples: 2, keys: {a: {log-uniform: [0, 2]}}}\n"); }),
              HasSubstr("key 'a': a log scale needs ends above zero"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngird:\n  a: [1]\n"); }), HasSubstr("unknown key 'gird'"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\n"); }), HasSubstr("nothing varies"));
  EXPECT_THAT(error_of([] { parse("base: {}\ngrid: {a: [1]}\n"); }), HasSubstr("kind: missing"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid: {a: [1, ~]}\n"); }), HasSubstr("a value is empty"));
  EXPECT_THAT(error_of([] { parse("kind: k\nbase: {}\ngrid:\n  a: {range: [1, 2], steps: 100000000}\n"); }),
              HasSubstr("steps must be a count up to"));
  EXPECT_THAT(error_of([] {
                parse("kind: k\nbase: {}\ngrid:\n  a: {range: [1, 2.0], steps: 10000}\n  b: {range: [1, 2.0], steps: 10000}\n");
              }),
              HasSubstr("more than"));
}

TEST(Quantity, ReadsPlainNumbersAndUnits) {
  EXPECT_TRUE(parse_quantity("4096")->integer);
  EXPECT_FALSE(parse_quantity("0.5")->integer);
  EXPECT_EQ(parse_quantity("2TB/s")->kind->name, "bandwidth");
  EXPECT_DOUBLE_EQ(parse_quantity("2TB/s")->base, 2e12);
  EXPECT_EQ(parse_quantity("64KiB")->kind->name, "size");
  EXPECT_EQ(parse_quantity("10ms")->kind->name, "duration");
  EXPECT_EQ(parse_quantity("1.41GHz")->kind->name, "frequency");
  EXPECT_EQ(parse_quantity("400W")->kind->name, "power");
  EXPECT_EQ(parse_quantity("826mm2")->kind->name, "area");
  EXPECT_EQ(parse_quantity("312TFLOP/s")->kind->name, "compute rate");
  EXPECT_FALSE(parse_quantity("tp=8"));
  EXPECT_FALSE(parse_quantity("12 parsecs"));
  EXPECT_EQ(format_quantity(1234.5678, "GB/s", false), "1234.57GB/s");
  EXPECT_EQ(format_quantity(3.6, "", true), "4");
  EXPECT_EQ(format_quantity(-0.4, "", true), "0");
  // Whole numbers beyond int64_t used to wrap to -9223372036854775808.
  EXPECT_EQ(format_quantity(0x1p70, "", true), "1180591620717411303424");
}

}  // namespace
}  // namespace snr::sweep
