// The JSON of a prediction: what `snr pathfind predict --json` prints and
// `-o DIR/prediction.json` holds (keys in docs/pathfind-predict.md).
#pragma once

#include <nlohmann/json.hpp>

#include "pathfind/predict/predict.h"

namespace snr::pathfind {

nlohmann::ordered_json prediction_json(const PredictInputs& inputs, const Prediction& prediction);

}  // namespace snr::pathfind
