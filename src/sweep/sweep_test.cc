#include "sweep/sweep.h"

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <fstream>

#include "common/error_of.h"
#include "taskfarm/farm.h"

namespace snr::sweep {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

constexpr std::string_view kGrid = R"(kind: pathfind
base:
  device: a100-80gb
  model: {name: tiny, kind: transformer, phase: training, batch: 16, microbatch: 1, sequence: 512,
          model: {hidden: 1024, heads: 16, head_dim: 64, ffn: 4096, layers: 4}}
  parallelism: "tp=2,pp=2"
grid:
  device.hbm.bandwidth: [1TB/s, 2TB/s, 4TB/s]
  parallelism: ["tp=2,pp=2", "tp=4", "tp=3"]
)";

class SweepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("sweep_test_{}_{}", ::getpid(), ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  Grid grid(std::string_view text) const { return parse_grid(text, dir_ / "grid.yaml"); }

  std::filesystem::path dir_;
  taskfarm::Session session_;
};

TEST_F(SweepTest, RunsStoresAndResumes) {
  const auto db = dir_ / "r.sqlite";
  const SweepSummary first = run_sweep(grid(kGrid), db, session_);
  EXPECT_EQ(first.points, 9u);
  EXPECT_EQ(first.run, 9u);
  EXPECT_EQ(first.ok, 6u);
  EXPECT_EQ(first.failed, 3u);  // tp=3 does not split 16 heads: recorded, the sweep goes on
  EXPECT_FALSE(first.interrupted);
  ASSERT_TRUE(first.best);
  EXPECT_EQ(first.best->objective, "time_s");

  const ResultTable t = read_results(db);
  ASSERT_EQ(t.rows.size(), 9u);
  const int status = t.column("status"), error = t.column("error"), par = t.column("parallelism");
  const int time = t.column("time_s"), bw = t.column("device.hbm.bandwidth");
  ASSERT_GE(t.column("time_s.compute"), 0);
  double slow = 0, fast = 0;
  for (const auto& row : t.rows) {
    if (row[par] == "tp=3") {
      EXPECT_EQ(row[status], "error");
      EXPECT_THAT(row[error].get<std::string>(), HasSubstr("3"));
      continue;
    }
    EXPECT_EQ(row[status], "ok");
    EXPECT_GT(row[time].get<double>(), 0);
    if (row[par] == "tp=4" && row[bw] == "1TB/s") slow = row[time].get<double>();
    if (row[par] == "tp=4" && row[bw] == "4TB/s") fast = row[time].get<double>();
  }
  EXPECT_LT(fast, slow);  // more HBM bandwidth, less time
  EXPECT_DOUBLE_EQ(first.best->value, std::min(fast, first.best->value));

  const SweepSummary again = run_sweep(grid(kGrid), db, session_);
  EXPECT_EQ(again.skipped, 9u);
  EXPECT_EQ(again.run, 0u);
  SweepOptions retry;
  retry.retry_failed = true;
  const SweepSummary retried = run_sweep(grid(kGrid), db, session_, retry);
  EXPECT_EQ(retried.run, 3u);
  EXPECT_EQ(retried.skipped, 6u);
  EXPECT_EQ(read_results(db).rows.size(), 9u);
}

TEST_F(SweepTest, AStoppedSweepResumesWithoutRecomputing) {
  const auto db = dir_ / "r.sqlite";
  std::atomic<int> stop{0};
  SweepOptions options;
  options.stop = &stop;
  options.progress = [&](const SweepProgress& p) {
    if (p.done == 4) stop = 1;
  };
  const SweepSummary stopped = run_sweep(grid(kGrid), db, session_, options);
  EXPECT_TRUE(stopped.interrupted);
  EXPECT_EQ(stopped.run, 4u);
  EXPECT_EQ(stopped.remaining, 5u);
  EXPECT_EQ(read_results(db).rows.size(), 4u);
  const SweepSummary resumed = run_sweep(grid(kGrid), db, session_);
  EXPECT_EQ(resumed.skipped, 4u);
  EXPECT_EQ(resumed.run, 5u);
  EXPECT_FALSE(resumed.interrupted);
}

std::string bad(std::string_view grid_line) {
  std::string text(kGrid);
  text += grid_line;
  return text;
}

TEST_F(SweepTest, BadGridsFailBeforeAnyPointNamingTheKey) {
  const auto db = dir_ / "never.sqlite";
  const auto fails = [&](std::string_view line) {
    return error_of([&] { run_sweep(grid(bad(line)), db, session_); });
  };
  EXPECT_THAT(fails("  modle.hidden: [1024]\n"), HasSubstr("grid.yaml:10: unknown key 'modle.hidden' for a pathfind sweep"));
  EXPECT_THAT(fails("  device.hbm.bandwith: [1TB/s]\n"), HasSubstr("key 'device.hbm.bandwith' = '1TB/s'"));
  EXPECT_THAT(fails("  device.hbm.capacity: [80GiB, 2TB/s]\n"), HasSubstr("key 'device.hbm.capacity' = '2TB/s'"));
  EXPECT_THAT(fails("  model.hidden: [1024, 1.5]\n"), HasSubstr("key 'model.hidden' = '1.5'"));
  EXPECT_THAT(fails("  mapping: [best, \"r,c\"]\n"), HasSubstr("key 'mapping' = 'r,c'"));
  EXPECT_THAT(fails("  device.l3.capacity: [1MiB]\n"), HasSubstr("has no field 'l3'"));
  EXPECT_THAT(fails("  tech: [n7]\n"), HasSubstr("key 'tech' = 'n7': keys tech, arch and budget need a generated"));
  EXPECT_THAT(error_of([&] { run_sweep(grid("kind: pathfind\nbase: {device: a100-80gb}\ngrid: {mapping: [best]}\n"), db,
                                       session_); }),
              HasSubstr("base: model missing"));
  EXPECT_THAT(error_of([&] { run_sweep(grid("kind: nope\nbase: {}\ngrid: {x: [1]}\n"), db, session_); }),
              HasSubstr("'nope' is not a sweep run kind (registered: pathfind, sim"));
  EXPECT_FALSE(std::filesystem::exists(db));  // nothing ran, nothing was written
}

TEST_F(SweepTest, RelativeInputsResolveAgainstTheGridFolder) {
  std::ofstream(dir_ / "model.yaml") << "workload:\n  name: g\n  kind: gemm\n  gemm: {m: 4096, n: 4096, k: 4096}\n";
  const std::string text =
      "kind: pathfind\nbase: {device: a100-80gb, model: model.yaml, parallelism: \"tp=1\"}\n"
      "grid:\n  model.m: [1024, 8192]\n  device: [a100-80gb, h100-sxm]\n";
  const SweepSummary s = run_sweep(grid(text), dir_ / "r.sqlite", session_);
  EXPECT_EQ(s.ok, 4u);
  const ResultTable t = read_results(dir_ / "r.sqlite");
  EXPECT_EQ(t.rows[0][t.column("device_name")], "a100-80gb");
  EXPECT_EQ(t.rows[1][t.column("device_name")], "h100-sxm");
}

// A run kind added at run time: the registry and the sweep know nothing
// about it beyond its declaration.
class SquareRun final : public PreparedRun {
 public:
  void check_base() override {}
  void check(const std::string&, const YAML::Node& value) override { number_of(value); }
  nlohmann::ordered_json run(const std::vector<std::string>&, const std::vector<YAML::Node>& values) override {
    const double x = number_of(values[0]);
    if (x > 50) throw Error("too big");
    return {{"y", x * x}};
  }

 private:
  static double number_of(const YAML::Node& v) {
    const auto q = parse_quantity(v.Scalar());
    if (!q) throw Error("not a number");
    return q->number;
  }
};

class SquareKind final : public RunKind {
 public:
  [[nodiscard]] std::string_view name() const override { return "square-test"; }
  [[nodiscard]] std::string_view summary() const override { return "x -> x^2"; }
  [[nodiscard]] std::vector<KeySpec> keys() const override { return {{"x", "a number", false}}; }
  [[nodiscard]] std::vector<OutputColumn> outputs() const override { return {{"y", ColumnType::kReal, ""}}; }
  [[nodiscard]] std::string_view varying_output_prefix() const override { return ""; }
  [[nodiscard]] std::string_view objective() const override { return "y"; }
  [[nodiscard]] std::string_view feasible() const override { return ""; }
  [[nodiscard]] std::unique_ptr<PreparedRun> prepare(const YAML::Node&, const std::filesystem::path&) const override {
    return std::make_unique<SquareRun>();
  }
};

TEST_F(SweepTest, RunKindsArePlugIns) {
  static const bool registered = [] {
    register_run_kind(std::make_unique<SquareKind>());
    return true;
  }();
  ASSERT_TRUE(registered);
  EXPECT_THAT(error_of([] { register_run_kind(std::make_unique<SquareKind>()); }), HasSubstr("already registered"));
  const std::string text = "kind: square-test\nbase: {}\nrandom: {samples: 40, seed: 3, keys: {x: {uniform: [-100, 100]}}}\n";
  const SweepSummary s = run_sweep(grid(text), dir_ / "r.sqlite", session_);
  EXPECT_EQ(s.points, s.run);
  EXPECT_GT(s.failed, 0u);
  EXPECT_EQ(s.ok + s.failed, s.run);
  const ResultTable t = read_results(dir_ / "r.sqlite");
  for (const auto& row : t.rows) {
    if (row[t.column("status")] != "ok") continue;
    const double x = row[t.column("x")].get<double>();
    EXPECT_EQ(row[t.column("y")].get<double>(), x * x);
  }
  ASSERT_TRUE(s.best);
  EXPECT_LT(s.best->value, 2500.0);
  const auto json = summary_json(s);
  for (const char* key : {"kind", "database", "points", "skipped", "run", "ok", "failed", "remaining", "interrupted",
                          "ranks", "mpi", "seconds", "best"}) {
    EXPECT_TRUE(json.contains(key)) << key;
  }
  EXPECT_THAT(error_of([&] { run_sweep(grid("kind: square-test\nbase: {}\ngrid: {x: [1, two]}\n"), dir_ / "s.sqlite",
                                       session_); }),
              HasSubstr("key 'x' = 'two': not a number"));
}

// Every key a kind declares may vary: sim's `backend` used to be refused as
// a grid key because an output column had its name.
TEST(RunKinds, EveryKeyCanBeAGridKey) {
  for (const std::string& name : run_kind_names()) {
    const RunKind& kind = find_run_kind(name);
    for (const KeySpec& key : kind.keys()) {
      for (const OutputColumn& column : kind.outputs()) EXPECT_NE(key.name, column.name) << name;
      const std::string prefix(kind.varying_output_prefix());
      EXPECT_TRUE(prefix.empty() || !key.name.starts_with(prefix)) << name << ": " << key.name;
    }
  }
}

}  // namespace
}  // namespace snr::sweep
