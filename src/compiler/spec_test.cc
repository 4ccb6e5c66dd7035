#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/error.h"
#include "compiler/spec.h"

namespace snr::compiler {
namespace {

std::string error_of(std::string_view yaml) {
  try {
    Spec s = parse_spec_yaml(yaml, "s.yaml");
    s.validate();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Spec, ParsesNestedKeys) {
  const Spec s = parse_spec_yaml("model:\n  hidden: 1024\n  heads: 8\nschedule:\n  buffering: double\n"
                                 "  prefetch_distance: 1\n  allgather_setup: pinned\nphase: prefill\n",
                                 "s.yaml");
  EXPECT_EQ(s.model.hidden, 1024u);
  EXPECT_EQ(s.model.heads, 8u);
  EXPECT_EQ(s.schedule.buffers, 2u);
  EXPECT_EQ(s.schedule.allgather_setup, SetupMode::kPinned);
  EXPECT_EQ(s.phase, Phase::kPrefill);
}

TEST(Spec, EmptyCommentOnlyAndDuplicateKeysAreErrors) {
  EXPECT_NE(error_of("").find("s.yaml: no YAML content"), std::string::npos);
  EXPECT_NE(error_of("# a spec to fill in later\n").find("no YAML content"), std::string::npos);
  EXPECT_EQ(error_of("model:\n  hidden: 1024\n  hidden: 2048\n"), "s.yaml:3: duplicate key 'hidden' (first at line 2)");
}

TEST(Spec, UnknownKeyNamesFileAndLine) {
  EXPECT_EQ(error_of("model:\n  hidden: 1024\n  hiden: 3\n"),
            "s.yaml:3: unknown key 'model.hiden' (see docs/compiler.md for the keys)");
}

TEST(Spec, BadValuesAreErrors) {
  EXPECT_NE(error_of("batch: -1\n").find("s.yaml:1: batch"), std::string::npos);
  EXPECT_NE(error_of("phase: train\n").find("not one of: decode, prefill"), std::string::npos);
  EXPECT_NE(error_of("collective: 5\n").find("'collective' is a section, not a value: give its keys (collective.op"),
            std::string::npos)
      << error_of("collective: 5\n");
  EXPECT_NE(error_of("model: [1, 2\n").find("s.yaml:"), std::string::npos);
  EXPECT_NE(error_of("model:\n  kv_heads: 2\n").find("not divisible by parallel.tensor"), std::string::npos);
  EXPECT_NE(error_of("schedule:\n  prefetch_distance: 4\n  buffering: 4\n").find("needs schedule.buffering > 4"),
            std::string::npos);
}

TEST(Spec, OverridesApplyAndValidate) {
  Spec s;
  apply_spec_overrides(s, {"parallel.tensor=2", "schedule.vmem_allocator=best-fit"});
  EXPECT_EQ(s.tensor_parallel, 2u);
  EXPECT_EQ(s.schedule.allocator, AllocatorPolicy::kBestFit);
  EXPECT_THROW(apply_spec_overrides(s, {"nonsense"}), Error);
  EXPECT_THROW(apply_spec_overrides(s, {"model.layers=0"}), Error);
  // One key twice is a contradiction, not "the last one wins".
  EXPECT_THAT([&] { apply_spec_overrides(s, {"parallel.tensor=2", "parallel.tensor=4"}); },
              ::testing::ThrowsMessage<Error>(
                  ::testing::HasSubstr("key 'parallel.tensor' is given twice ('2' and '4')")));
  // Reals are finite (std::stod reads "inf" and "nan").
  for (const char* bad :
       {"model.norm_eps=inf", "model.rope_theta=inf", "model.norm_eps=nan", "model.rope_theta=1e400"}) {
    EXPECT_THROW(apply_spec_overrides(s, {bad}), Error) << bad;
  }
}

TEST(Spec, TextRoundTrips) {
  Spec s;
  s.model.hidden = 2048;
  s.schedule.allgather_setup = SetupMode::kParallel;
  const Spec back = parse_spec_yaml(s.to_text(), "round-trip");
  EXPECT_EQ(back.to_text(), s.to_text());
}

}  // namespace
}  // namespace snr::compiler
