// Readers for Calculon's JSON inputs (calculon-ai/calculon: models/*.json,
// systems/*.json, execution JSONs such as validation/seqsel/tab5/*.json), so
// its published configurations run through this model unchanged. Strict:
// unknown keys, wrong types and out-of-range values are errors naming the
// file and key; options this model does not implement (offloading,
// overlapped TP comms, non-multihead attention) are errors, not ignored.
#pragma once

#include <string>
#include <string_view>

#include "pathfind/llm/transformer.h"

namespace snr::pathfind {

TransformerModel parse_calculon_model(std::string_view json, std::string_view source);

// Calculon's system file describes rates, main memory and network tiers but
// not the chip's insides: those come from `base` (e.g. the a100-80gb
// preset). The matrix rate rescales base's clock; vector rate, memory
// capacity/bandwidth and the network tiers replace base's. Efficiency
// curves (gflops_efficiency, MB_efficiency) are read and not used: the
// roofline derives efficiency from the kernel shape instead.
DeviceSpec parse_calculon_system(std::string_view json, std::string_view source, const DeviceSpec& base);

// The chip whose insides a Calculon system file runs on. Named (`hw`: a
// preset or YAML file), that one; else the GPU preset whose 16-bit peak is
// nearest the file's matrix rate, when within kCalculonPresetMatch of it,
// else a100-80gb. `note` says which and, where the chip's clock is scaled
// by more than that to reach the file's rate, by how much ("" when the
// named chip matches).
inline constexpr double kCalculonPresetMatch = 0.05;
struct CalculonBase {
  DeviceSpec device;
  std::string note;
};
CalculonBase calculon_base_device(std::string_view system_json, std::string_view source, const std::string& hw);

struct CalculonExecution {
  Parallelism parallelism;
  TrainingJob job;
};
CalculonExecution parse_calculon_execution(std::string_view json, std::string_view source);

TransformerModel load_calculon_model(const std::string& path);
DeviceSpec load_calculon_system(const std::string& path, const DeviceSpec& base);
CalculonExecution load_calculon_execution(const std::string& path);

}  // namespace snr::pathfind
