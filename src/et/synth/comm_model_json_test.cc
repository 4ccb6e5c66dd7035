#include <gtest/gtest.h>

#include "common/error.h"
#include "et/generate/patterns.h"
#include "et/synth/comm_model.h"

namespace snr::et::synth {
namespace {

CommModel small_model() {
  PatternOptions o;
  o.pattern = "hybrid";
  o.npus = 4;
  o.layers = 3;
  return fit_comm_model({{"hybrid", generate_pattern(o)}});
}

TEST(CommModelJson, RoundTripsByteForByte) {
  const std::string text = comm_model_to_json(small_model());
  const CommModel back = comm_model_from_json(text, "model.json");
  EXPECT_EQ(comm_model_to_json(back), text);
  EXPECT_EQ(comm_model_to_json(small_model()), text);  // fitting is deterministic
}

std::string replace(std::string text, const std::string& from, const std::string& to) {
  const auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

void expect_error(const std::string& text, const std::string& fragment) {
  try {
    (void)comm_model_from_json(text, "m.json");
    ADD_FAILURE() << "accepted a model that should be rejected: " << fragment;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(CommModelJson, RejectsBadModels) {
  const std::string good = comm_model_to_json(small_model());
  expect_error("{", "line 1, column 2 (byte 1)");
  expect_error("[]", "model: expected an object");
  expect_error(replace(good, "\"format\"", "\"extra\": 1, \"format\""), "unknown key 'extra'");
  expect_error(replace(good, "\"version\": 1", "\"version\": 7"), "unsupported 'version'");
  expect_error(replace(good, "\"comm_type\": \"ALL_GATHER\"", "\"comm_type\": \"ALL_GOSSIP\""), "not a collective type name");
  expect_error(replace(good, "\"kind\": \"block\"", "\"kind\": \"ring\""), "unknown scope kind 'ring'");
  expect_error(replace(good, "\"sequence_lengths\": [", "\"sequence_lengths\": [0,"), "'sequence_lengths' entries");
  expect_error(replace(good, "\"offset\": 1.0", "\"offset\": 2.0"), "'offset' must be 0 or 1");
}

}  // namespace
}  // namespace snr::et::synth
