#include <gtest/gtest.h>

#include <cstring>

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "common/error.h"
#include "common/file_io.h"
#include "compiler/artifacts.h"
#include "compiler/compiler.h"
#include "compiler/hbm_image.h"

namespace snr::compiler {
namespace {

namespace fs = std::filesystem;

class ArtifactsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("snr_artifacts_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

Spec small() {
  Spec s;
  s.source_name = "small.yaml";
  s.model.hidden = 256;
  s.model.heads = 4;
  s.model.kv_heads = 2;
  s.model.ffn = 512;
  s.model.layers = 1;
  s.batch = 1;
  s.context = 10;
  s.tensor_parallel = 2;
  return s;
}

TEST_F(ArtifactsTest, RoundTripsEverythingTheRunnerNeeds) {
  const CompiledModel model = compile(small());
  write_compiled_model(model, dir_);
  ASSERT_TRUE(is_compiled_model_directory(dir_));
  const ModelImage back = read_compiled_model(dir_);
  ASSERT_EQ(back.chips(), 2u);
  EXPECT_EQ(back.seed, model.image.seed);
  EXPECT_EQ(back.layer_instructions, model.image.layer_instructions);
  EXPECT_EQ(back.hw.to_yaml(), model.image.hw.to_yaml());
  ASSERT_EQ(back.ops.size(), model.image.ops.size());
  for (size_t i = 0; i < back.ops.size(); ++i) {
    EXPECT_EQ(back.ops[i].name, model.image.ops[i].name);
    EXPECT_EQ(back.ops[i].pc_begin, model.image.ops[i].pc_begin);
    EXPECT_EQ(back.ops[i].flops, model.image.ops[i].flops);
  }
  for (uint32_t c = 0; c < 2; ++c) {
    EXPECT_EQ(back.programs[c].sections.at(0).data, model.image.programs[c].sections.at(0).data);
    EXPECT_EQ(back.programs[c].sections.at(1).data, model.image.programs[c].sections.at(1).data);
    ASSERT_EQ(back.hbm[c].tensors.size(), model.image.hbm[c].tensors.size());
    for (size_t t = 0; t < back.hbm[c].tensors.size(); ++t) {
      const GeneratedTensor& a = back.hbm[c].tensors[t];
      const GeneratedTensor& b = model.image.hbm[c].tensors[t];
      EXPECT_EQ(a.value(back.seed, 3, 5), b.value(model.image.seed, 3, 5)) << a.name;
      EXPECT_EQ(a.storage_index(3, 5), b.storage_index(3, 5)) << a.name;
    }
    ASSERT_EQ(back.hbm[c].regions.size(), model.image.hbm[c].regions.size());
    for (size_t r = 0; r < back.hbm[c].regions.size(); ++r) {
      EXPECT_EQ(back.hbm[c].regions[r].bytes, model.image.hbm[c].regions[r].bytes);
    }
  }
  // The PC->op map annotates every instruction of an op.
  const OpInfo& op = back.ops[3];
  EXPECT_EQ(back.op_at(op.pc_begin), 3);
  EXPECT_EQ(back.op_at(op.pc_end - 4), 3);
}

TEST_F(ArtifactsTest, DamagedManifestsNameFileAndField) {
  write_compiled_model(compile(small()), dir_);
  const fs::path manifest = dir_ / "manifest.json";
  std::string text = read_file(manifest);
  write_file_atomic(manifest, text.substr(0, text.size() / 2));
  EXPECT_THROW(read_compiled_model(dir_), Error);
  write_file_atomic(manifest, R"({"format": "snr-compiled-model", "version": 1, "name": "x", "seed": 1})");
  try {
    read_compiled_model(dir_);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("manifest has no 'layer_instructions'"), std::string::npos) << e.what();
  }
  write_file_atomic(manifest, R"({"format": "other"})");
  EXPECT_THROW(read_compiled_model(dir_), Error);
}


// The generator's values are part of every snapshot and run: an independent
// spelling of its definition (splitmix64, the top 53 bits as a fraction,
// offset + scale * (2u - 1) in double, rounded to float then bf16) must
// give the same bits as the vectorized run loops, for every element.
TEST(HbmImage, GeneratedValuesFollowTheirDefinition) {
  const auto splitmix = [](uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  };
  for (ElementType type : {ElementType::kBf16, ElementType::kF32}) {
    GeneratedTensor t;
    t.rows = 128;
    t.cols = 256;
    t.type = type;
    t.stream = 3;
    t.scale = 0.75;
    t.offset = 0.125;
    const uint64_t seed = 99;
    std::vector<uint8_t> bytes(t.size_bytes());
    t.materialize_range(seed, 0, bytes);
    const uint64_t key = splitmix(seed ^ (t.stream * 0xD6E8FEB86659FD93ull));
    for (uint64_t r = 0; r < t.rows; ++r) {
      for (uint64_t c = 0; c < t.cols; ++c) {
        const uint64_t h = splitmix(key + r * t.cols + c);
        const double unit = static_cast<double>(h >> 11) / 9007199254740992.0;
        const float v = static_cast<float>(t.offset + t.scale * (2.0 * unit - 1.0));
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        const uint64_t at = (r * t.cols + c) * t.element_bytes();
        if (type == ElementType::kBf16) {
          const auto expected = static_cast<uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
          uint16_t found;
          std::memcpy(&found, &bytes[at], 2);
          ASSERT_EQ(found, expected) << "bf16 element " << r << "," << c;
        } else {
          uint32_t found;
          std::memcpy(&found, &bytes[at], 4);
          ASSERT_EQ(found, bits) << "f32 element " << r << "," << c;
        }
      }
    }
  }
}

// Per-page generation must give exactly the bytes of whole-tensor generation,
// for every layout, element type and range boundary (mid-element included).
TEST(HbmImage, MaterializeRangeMatchesMaterialize) {
  const TensorLayout layouts[] = {TensorLayout::kRowMajor, TensorLayout::kWeightTiles,
                                  TensorLayout::kTransposedTiles};
  for (TensorLayout layout : layouts) {
    for (ElementType type : {ElementType::kBf16, ElementType::kF32}) {
      GeneratedTensor t;
      t.rows = 256;
      t.cols = 384;
      t.type = type;
      t.layout = layout;
      t.stream = 7;
      t.scale = 0.5;
      t.replicate_rows = layout == TensorLayout::kRowMajor ? 8 : 0;
      const std::vector<uint8_t> all = t.materialize(42);
      for (uint64_t from : {uint64_t{0}, uint64_t{1}, uint64_t{4093}, all.size() / 2 + 3}) {
        for (uint64_t size : {uint64_t{1}, uint64_t{3}, uint64_t{65536}}) {
          if (from + size > all.size()) continue;
          std::vector<uint8_t> part(size, 0xAB);
          t.materialize_range(42, from, part);
          EXPECT_TRUE(std::equal(part.begin(), part.end(), all.begin() + static_cast<ptrdiff_t>(from)))
              << "layout " << static_cast<int>(layout) << " from " << from << " size " << size;
        }
      }
    }
  }
}

}  // namespace
}  // namespace snr::compiler
