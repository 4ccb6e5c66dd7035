#include "sweep/store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <unistd.h>

#include <fstream>

#include "common/error_of.h"
#include "formats/rundb/sqlite_handle.h"

namespace snr::sweep {
namespace {

using ::testing::HasSubstr;
using snr::testing::error_of;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("sweep_store_test_{}_{}", ::getpid(),
                       ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  static SweepInfo info() {
    SweepInfo i;
    i.kind = "pathfind";
    i.base = "kind: pathfind, base: {device: a100-80gb}";
    i.parameters = {"device.hbm.bandwidth", "parallelism"};
    i.outputs = {{"time_s", ColumnType::kReal, ""}, {"bottleneck", ColumnType::kText, ""},
                 {"memory_fits", ColumnType::kInteger, ""}};
    i.varying_prefix = "time_s.";
    i.objective = "time_s";
    i.feasible = "memory_fits";
    i.grid_text = "kind: pathfind\n";
    i.grid_path = "grid.yaml";
    return i;
  }

  static StoredRow row(std::string key, uint64_t point, std::string bw, double time, int fits) {
    StoredRow r;
    r.key = std::move(key);
    r.point = point;
    r.parameters = {std::move(bw), "tp=8,pp=8"};
    r.status = "ok";
    r.seconds = 0.001;
    r.outputs = {{"time_s", time}, {"bottleneck", "compute"}, {"memory_fits", fits}, {"time_s.compute", time * 0.75},
                 {"time_s.network:tp", time * 0.25}};
    return r;
  }

  std::filesystem::path dir_;
};

TEST_F(StoreTest, StoresReadsBackAndResumes) {
  const auto db = dir_ / "r.sqlite";
  {
    Store store(db, info());
    EXPECT_TRUE(store.stored().empty());
    store.add(row("a", 0, "1TB/s", 2.0, 1));
    store.add(row("b", 1, "2TB/s", 1.0, 0));
    StoredRow failed;
    failed.key = "c";
    failed.point = 2;
    failed.parameters = {"3TB/s", "tp=8,pp=8"};
    failed.status = "error";
    failed.error = "heads, \"96\", do not split\nin 7";
    store.add(failed);
    store.commit();
  }
  {
    Store store(db, info());  // same sweep: opens
    const auto stored = store.stored();
    ASSERT_EQ(stored.size(), 3u);
    EXPECT_EQ(stored.at("a"), "ok");
    EXPECT_EQ(stored.at("c"), "error");
  }
  const ResultTable t = read_results(db);
  EXPECT_EQ(t.info.kind, "pathfind");
  EXPECT_EQ(t.info.parameters, info().parameters);
  ASSERT_EQ(t.rows.size(), 3u);
  EXPECT_EQ(t.columns[0], "key");
  ASSERT_GE(t.column("time_s.network:tp"), 0);  // added when first seen
  EXPECT_EQ(t.rows[0][t.column("device.hbm.bandwidth")], "1TB/s");
  EXPECT_EQ(t.rows[0][t.column("time_s")], 2.0);
  EXPECT_EQ(t.rows[0][t.column("memory_fits")], 1);
  EXPECT_TRUE(t.rows[2][t.column("time_s")].is_null());
  // The best point must fit in memory: "b" is faster but does not.
  EXPECT_EQ(best_row(t), std::optional<size_t>(0));
}

TEST_F(StoreTest, RefusesAnotherSweepsDatabase) {
  const auto db = dir_ / "r.sqlite";
  { Store store(db, info()); }
  SweepInfo other = info();
  other.base = "kind: pathfind, base: {device: h100-sxm}";
  EXPECT_THAT(error_of([&] { Store store(db, other); }), HasSubstr("holds another sweep: its base inputs differ"));
  other = info();
  other.parameters = {"parallelism"};
  EXPECT_THAT(error_of([&] { Store store(db, other); }), HasSubstr("it varies [\"device.hbm.bandwidth\",\"parallelism\"]"));
  other = info();
  other.kind = "sim";
  EXPECT_THAT(error_of([&] { Store store(db, other); }), HasSubstr("its run kind is pathfind"));
  // The same keys in another order, or other values, resume.
  other = info();
  other.parameters = {"parallelism", "device.hbm.bandwidth"};
  other.grid_text = "kind: pathfind # more values\n";
  { Store store(db, other); }
  EXPECT_EQ(read_results(db).info.grid_text, "kind: pathfind # more values\n");
}

TEST_F(StoreTest, ParametersMayNotShadowColumns) {
  SweepInfo i = info();
  i.parameters = {"time_s"};
  EXPECT_THAT(error_of([&] { Store store(dir_ / "x.sqlite", i); }), HasSubstr("key 'time_s' has the name of a column"));
  i.parameters = {"status"};
  EXPECT_THAT(error_of([&] { Store store(dir_ / "y.sqlite", i); }), HasSubstr("key 'status'"));
}

TEST_F(StoreTest, CsvQuotesWhatNeedsIt) {
  EXPECT_EQ(csv_field("plain"), "plain");
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field(" padded"), "\" padded\"");
  EXPECT_EQ(csv_field(""), "");
  const auto db = dir_ / "r.sqlite";
  {
    Store store(db, info());
    store.add(row("a", 0, "1TB/s", 0.5, 1));
  }
  const std::string csv = results_csv(read_results(db));
  EXPECT_THAT(csv, HasSubstr("key,point,status,error,seconds,device.hbm.bandwidth,parallelism,time_s,"));
  EXPECT_THAT(csv, HasSubstr("a,0,ok,,0.001,1TB/s,\"tp=8,pp=8\",0.5,compute,1,0.375,0.125\n"));
}

TEST_F(StoreTest, ParameterCellsKeepNumbersNumeric) {
  EXPECT_EQ(parameter_cell("4096"), 4096);
  EXPECT_EQ(parameter_cell("0.5"), 0.5);
  EXPECT_EQ(parameter_cell("2TB/s"), "2TB/s");
  EXPECT_EQ(parameter_cell("[ring, ring]"), "[ring, ring]");
}

TEST_F(StoreTest, LeavesOtherDatabasesAlone) {
  const auto db = dir_ / "other.sqlite";
  {
    rundb::Database other(db.string(), rundb::Database::Mode::kCreate);
    other.exec("CREATE TABLE runs (x INTEGER)");
  }
  EXPECT_THAT(error_of([&] { Store store(db, info()); }), HasSubstr("an SQLite database of something else"));
  EXPECT_THAT(error_of([&] { read_results(db); }), HasSubstr("not an snr sweep database"));
}

TEST_F(StoreTest, ReadingSomethingElseFailsClearly) {
  EXPECT_THAT(error_of([&] { read_results(dir_ / "missing.sqlite"); }), HasSubstr("no such file"));
  std::ofstream(dir_ / "text.sqlite") << "not a database";
  EXPECT_THAT(error_of([&] { read_results(dir_ / "text.sqlite"); }), HasSubstr("text.sqlite"));
}

}  // namespace
}  // namespace snr::sweep
