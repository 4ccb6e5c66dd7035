#include "dsim/gpu/gpu_config.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <utility>

#include "common/error.h"
#include "common/file_io.h"
#include "common/yaml_input.h"

namespace snr::dsim::gpu {

uint64_t GpuConfig::cycle_ps() const {
  return static_cast<uint64_t>(std::llround(1000.0 / clock_ghz));
}

const char* to_string(Granularity granularity) {
  return granularity == Granularity::kFlow ? "flow" : "request";
}

Granularity parse_granularity(std::string_view name) {
  if (name == "request") return Granularity::kRequest;
  if (name == "flow") return Granularity::kFlow;
  throw Error(fmt::format("unknown granularity '{}': expected request or flow", name));
}

std::vector<std::string> gpu_presets() {
  return {"generic-448", "dgx-a100", "dgx-h100"};
}

namespace {

// The GPUs of NVIDIA's DGX A100 and DGX H100 as NCCL drives them (the
// network side, NVLink and NVSwitch, is the same-named NoC preset).
// Published figures: A100 SXM4 80 GB has 108 SMs at a 1410 MHz boost clock
// (deviceQuery); H100 SXM5 has 132 SMs (66 TPCs) at 1.98 GHz (NVIDIA's
// H100 whitepaper figures). The loop parameters come from how NCCL's
// kernels move data, not from a fit: a warp keeps 4 (COLL_UNROLL) 16-byte
// loads per thread in flight, 2 KiB = 16 lines; an SM's 256 KB register file
// holds 2048 lines, half of which we allow as loads in flight.
GpuConfig dgx_gpu(std::string name, uint32_t sms, double clock_ghz) {
  GpuConfig c;
  c.name = std::move(name);
  c.compute_units = sms;
  c.workgroups_per_cu = 2;
  c.clock_ghz = clock_ghz;
  c.unroll = 16;
  c.max_outstanding_per_cu = 1024;
  return c;
}

}  // namespace

GpuConfig gpu_config_preset(std::string_view name) {
  if (name == "generic-448") return GpuConfig{};
  if (name == "dgx-a100") return dgx_gpu("dgx-a100", 108, 1.41);
  if (name == "dgx-h100") return dgx_gpu("dgx-h100", 132, 1.98);
  throw Error(fmt::format("unknown GPU preset '{}' (known: generic-448, dgx-a100, dgx-h100; or give a YAML file)",
                          name));
}

namespace {

uint64_t read_integer(const YAML::Node& value, std::string_view key, uint64_t min, uint64_t max) {
  const int line = value.Mark().line + 1;
  uint64_t v = 0;
  try {
    if (!value.IsScalar()) throw YAML::Exception(value.Mark(), "not a scalar");
    const std::string text = value.as<std::string>();
    if (text.empty() || text[0] == '-' || text[0] == '+') throw YAML::Exception(value.Mark(), "sign");
    v = value.as<uint64_t>();
  } catch (const YAML::Exception&) {
    throw Error(fmt::format("key '{}' must be a whole number (line {})", key, line));
  }
  if (v < min || v > max) {
    throw Error(fmt::format("key '{}' = {} is out of range (line {}): valid {} .. {}", key, v, line, min, max));
  }
  return v;
}

double read_number(const YAML::Node& value, std::string_view key, double min, double max) {
  const int line = value.Mark().line + 1;
  double v = 0;
  try {
    if (!value.IsScalar()) throw YAML::Exception(value.Mark(), "not a scalar");
    v = value.as<double>();
  } catch (const YAML::Exception&) {
    throw Error(fmt::format("key '{}' must be a number (line {})", key, line));
  }
  if (!std::isfinite(v) || v < min || v > max) {
    throw Error(fmt::format("key '{}' = {} is out of range (line {}): valid {:g} .. {:g}", key, value.as<std::string>(),
                            line, min, max));
  }
  return v;
}

}  // namespace

GpuConfig parse_gpu_config(std::string_view yaml_text, std::string_view source_name, const GpuConfig& base) {
  return with_error_context(std::string(source_name), [&] {
    const YAML::Node root = load_yaml_document(yaml_text, source_name, "a GPU configuration");
    if (!root.IsMap()) throw Error("top level must be a mapping");
    // reset(), not operator=: assigning a YAML::Node writes through to the
    // node it refers to (here: the document root).
    YAML::Node section;
    section.reset(root);
    if (root["gpu"]) {
      section.reset(root["gpu"]);
      if (!section.IsMap()) throw Error(fmt::format("key 'gpu' must be a mapping (line {})", section.Mark().line + 1));
      for (const auto& entry : root) {
        const std::string key = entry.first.IsScalar() ? entry.first.Scalar() : std::string("?");
        if (key != "gpu" && key != "network") {
          throw Error(fmt::format("unknown top-level key '{}' (line {}): expected gpu or network", key,
                                  entry.first.Mark().line + 1));
        }
      }
    }
    GpuConfig config = base;
    for (const auto& entry : section) {
      if (!entry.first.IsScalar()) {
        throw Error(fmt::format("keys must be plain names (line {})", entry.first.Mark().line + 1));
      }
      const std::string key = entry.first.Scalar();
      const YAML::Node& v = entry.second;
      if (key == "name") {
        if (!v.IsScalar()) throw Error(fmt::format("key 'name' must be a string (line {})", v.Mark().line + 1));
        config.name = v.Scalar();
      } else if (key == "compute_units") {
        config.compute_units = static_cast<uint32_t>(read_integer(v, key, 1, 65536));
      } else if (key == "workgroups_per_cu") {
        config.workgroups_per_cu = static_cast<uint32_t>(read_integer(v, key, 1, 1024));
      } else if (key == "cache_line_bytes") {
        config.cache_line_bytes = static_cast<uint32_t>(read_integer(v, key, 16, 4096));
        if ((config.cache_line_bytes & (config.cache_line_bytes - 1)) != 0) {
          throw Error(fmt::format("key 'cache_line_bytes' = {} must be a power of two (line {})",
                                  config.cache_line_bytes, v.Mark().line + 1));
        }
      } else if (key == "clock_ghz") {
        config.clock_ghz = read_number(v, key, 0.01, 100.0);
      } else if (key == "unroll") {
        config.unroll = static_cast<uint32_t>(read_integer(v, key, 1, 1024));
      } else if (key == "max_outstanding_per_cu") {
        config.max_outstanding_per_cu = static_cast<uint32_t>(read_integer(v, key, 1, 1u << 20));
      } else if (key == "reduce_cycles_per_line") {
        config.reduce_cycles_per_line = static_cast<uint32_t>(read_integer(v, key, 0, 1u << 20));
      } else if (key == "stores_wait_for_ack") {
        const std::optional<bool> value = strict_yaml_bool(v);
        if (!value) {
          throw Error(fmt::format("key 'stores_wait_for_ack' must be true or false (line {})", v.Mark().line + 1));
        }
        config.stores_wait_for_ack = *value;
      } else if (key == "granularity") {
        if (!v.IsScalar()) {
          throw Error(fmt::format("key 'granularity' must be request or flow (line {})", v.Mark().line + 1));
        }
        try {
          config.granularity = parse_granularity(v.Scalar());
        } catch (const Error& e) {
          throw Error(fmt::format("{} (line {})", e.what(), v.Mark().line + 1));
        }
      } else if (key == "control_message_bytes") {
        config.control_message_bytes = static_cast<uint32_t>(read_integer(v, key, 1, 4096));
      } else {
        throw Error(
            fmt::format("unknown key '{}' (line {}): expected name, compute_units, workgroups_per_cu, "
                        "cache_line_bytes, clock_ghz, unroll, max_outstanding_per_cu, "
                        "reduce_cycles_per_line, control_message_bytes, stores_wait_for_ack, granularity",
                        key, entry.first.Mark().line + 1));
      }
    }
    return config;
  });
}

GpuConfig load_gpu_config(const std::string& preset_or_path) {
  for (const std::string& preset : gpu_presets()) {
    if (preset == preset_or_path) return gpu_config_preset(preset);
  }
  if (!std::filesystem::exists(preset_or_path)) {
    throw Error(fmt::format("'{}' is neither a GPU preset (generic-448, dgx-a100, dgx-h100) nor a file",
                            preset_or_path));
  }
  // A file that names no GPU is called by its path, not by the preset it
  // starts from (messages about it would name generic-448).
  GpuConfig base;
  base.name = preset_or_path;
  return parse_gpu_config(read_file(preset_or_path), preset_or_path, base);
}

}  // namespace snr::dsim::gpu
