#include "formats/pytorch/text_pool.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "formats/pytorch/host_trace_values.h"

namespace snr::pytorch {
namespace {

// Texts of every length up to 40 bytes that differ in exactly one byte
// (first, last, in each 8-byte word and in a tail shorter than a word)
// stay distinct, and each one interned again returns the first view.
TEST(TextPool, TextsDifferingInOneByteStayDistinct) {
  TextPool pool;
  std::vector<std::string> texts;
  for (size_t size = 1; size <= 40; ++size) {
    const std::string base(size, 'a');
    texts.push_back(base);
    for (size_t at = 0; at < size; ++at) {
      std::string other = base;
      other[at] = 'b';
      texts.push_back(other);
    }
  }
  std::vector<std::string_view> views;
  for (const auto& text : texts) views.push_back(pool.intern(text));
  EXPECT_EQ(pool.distinct_texts(), texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(views[i], texts[i]);
    const std::string copy = texts[i];  // another buffer, the same bytes
    EXPECT_EQ(pool.intern(copy).data(), views[i].data()) << texts[i];
  }
  EXPECT_EQ(pool.distinct_texts(), texts.size());
  EXPECT_TRUE(pool.intern("").empty());
}

TEST(ScalarField, NamesEveryScalarFieldAndNothingElse) {
  using detail::ScalarField;
  using detail::scalar_field_of;
  EXPECT_EQ(scalar_field_of("rf_id"), ScalarField::kRfId);
  EXPECT_EQ(scalar_field_of("fw_parent"), ScalarField::kFwParent);
  EXPECT_EQ(scalar_field_of("seq_id"), ScalarField::kSeqId);
  EXPECT_EQ(scalar_field_of("scope"), ScalarField::kScope);
  EXPECT_EQ(scalar_field_of("tid"), ScalarField::kTid);
  EXPECT_EQ(scalar_field_of("fw_tid"), ScalarField::kFwTid);
  EXPECT_EQ(scalar_field_of("op_schema"), ScalarField::kOpSchema);
  // Same lengths and first bytes as the names above, other names.
  for (const char* other : {"", "pid", "tie", "rf_ix", "score", "scopes", "seq_ix", "fw_tix", "fw_parenT",
                            "op_schemx", "kernel_file", "tensor_range", "RF_ID"}) {
    EXPECT_EQ(scalar_field_of(other), ScalarField::kNone) << other;
    EXPECT_FALSE(detail::is_scalar_field(other)) << other;
  }
}

}  // namespace
}  // namespace snr::pytorch
