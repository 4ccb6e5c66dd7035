#include "pathfind/llm/calculon.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "common/error.h"

namespace snr::pathfind {
namespace {

std::string dir() {
  const char* data = std::getenv("SNR_SHARED_DATA");
  return std::string(data ? data : "") + "/pathfinder/calculon";
}

TEST(PathfindCalculon, ReadsTheSharedFiles) {
  if (!std::filesystem::exists(dir())) GTEST_SKIP() << "SNR_SHARED_DATA/pathfinder/calculon not present";
  TransformerModel m = load_calculon_model(dir() + "/models/turing-530B.json");
  EXPECT_EQ(m.name, "turing-530B");
  EXPECT_EQ(m.hidden, 20480u);
  EXPECT_EQ(m.num_blocks, 105u);
  CalculonExecution e = load_calculon_execution(dir() + "/validation/seqsel/tab5/turing-530B_seqsel.json");
  EXPECT_EQ(e.parallelism.devices, 280u);
  EXPECT_EQ(e.parallelism.pp, 35u);
  EXPECT_EQ(e.parallelism.interleave, 3u);
  EXPECT_TRUE(e.parallelism.sequence_parallel);
  EXPECT_TRUE(e.parallelism.redo_all_gather);
  EXPECT_EQ(e.parallelism.recompute, Recompute::kSelective);
  EXPECT_EQ(e.job.global_batch, 280u);
  DeviceSpec s = load_calculon_system(dir() + "/systems/a100_80g.json", device_preset("a100-80gb"));
  EXPECT_NEAR(s.peak_flops_per_s(DType::kFp16), 312e12, 1e6);
  EXPECT_DOUBLE_EQ(s.main_memory().bandwidth_bytes_per_s, 2048e9);
  ASSERT_EQ(s.network.size(), 2u);
  EXPECT_EQ(s.network[0].size, 8u);
  EXPECT_DOUBLE_EQ(s.network[0].bandwidth_bytes_per_s, 300e9);
  EXPECT_DOUBLE_EQ(s.network[0].efficiency, 0.65);
  // Calculon's latency is once per operation, its ops scale the bytes.
  EXPECT_DOUBLE_EQ(s.network[0].operation_latency_s, 10e-6);
  EXPECT_DOUBLE_EQ(s.network[0].latency_s, 0);
  EXPECT_EQ(s.network[0].traffic.reduce_scatter, (TrafficFactor{1.5, -1}));
  EXPECT_EQ(s.network[0].traffic.all_reduce, (TrafficFactor{2, -1}));
  EXPECT_EQ(s.network[1].traffic.all_reduce, (TrafficFactor{1, 0}));
  EXPECT_DOUBLE_EQ(s.network[1].operation_latency_s, 20e-6);
}

// A system file describes rates, not the chip: without --hw its insides
// are the GPU preset whose 16-bit peak matches the file's matrix rate.
TEST(PathfindCalculon, TheChipsInsidesFollowTheSystemsMatrixRate) {
  const auto system = [](int tflops) {
    return fmt::format(R"({{"matrix": {{"float16": {{"tflops": {}, "gflops_efficiency": [[0, 0.5]]}}}}}})", tflops);
  };
  const CalculonBase a100 = calculon_base_device(system(312), "a.json", "");
  EXPECT_EQ(a100.device.name, device_preset("a100-80gb").name);
  EXPECT_EQ(a100.note, "");
  const CalculonBase h100 = calculon_base_device(system(1000), "h.json", "");  // Calculon's h100_80g_nvl8
  EXPECT_EQ(h100.device.name, device_preset("h100-sxm").name);
  EXPECT_NE(h100.note.find("the chip's insides are h100-sxm's"), std::string::npos) << h100.note;
  const CalculonBase v100 = calculon_base_device(system(125), "v.json", "");
  EXPECT_EQ(v100.device.name, device_preset("v100").name);
  // No preset within 5%: a100-80gb, clocked up, and said so.
  const CalculonBase scaled = calculon_base_device(system(600), "x.json", "");
  EXPECT_EQ(scaled.device.name, device_preset("a100-80gb").name);
  EXPECT_NE(scaled.note.find("run 1.92x as fast"), std::string::npos) << scaled.note;
  EXPECT_NE(scaled.note.find("no preset's peak is within 5%"), std::string::npos) << scaled.note;
  // A named chip is used as named; a mismatch is said.
  const CalculonBase named = calculon_base_device(system(1000), "h.json", "a100-80gb");
  EXPECT_EQ(named.device.name, device_preset("a100-80gb").name);
  EXPECT_NE(named.note.find("run 3.21x as fast"), std::string::npos) << named.note;
  EXPECT_EQ(calculon_base_device(system(1000), "h.json", "h100-sxm").note, "");
}

TEST(PathfindCalculon, NetworkOpsAreChecked) {
  const std::string head = R"({"matrix": {"float16": {"tflops": 312, "gflops_efficiency": [[0, 0.5]]}},
    "vector": {"float16": {"tflops": 78, "gflops_efficiency": [[0, 0.5]]}},
    "mem1": {"GiB": 80, "GBps": 2048, "MB_efficiency": [[0, 0.5]]},
    "mem2": {"GiB": 512, "GBps": 32, "MB_efficiency": [[0, 0.5]]}, "processing_mode": "no_overlap",
    "networks": [{"bandwidth": 300, "efficiency": 0.65, "size": 8, "latency": 1e-5, "must_be_filled": true,
      "processor_usage": 0.1, "ops": {"p2p": [1.0, null], "all_gather": [1.5, -1], "all_reduce": [2.0, -1], )";
  const auto error = [&](std::string_view reduce_scatter) {
    try {
      (void)parse_calculon_system(head + std::string(reduce_scatter) + "}}]}", "s.json", device_preset("a100-80gb"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"("reduce_scatter": [1.5, -1])"), "");
  EXPECT_NE(error(R"("reduce_scatter": [1.5, null])").find("s.json.networks[0].ops.reduce_scatter: expected [scalar"),
            std::string::npos);
  EXPECT_NE(error(R"("reduce_scatter": [0, -1])").find("ops.reduce_scatter"), std::string::npos);
  EXPECT_NE(error(R"("reduce_scatter": [1, -3])").find("offset in [-2, 1e6]"), std::string::npos);
  EXPECT_NE(error(R"("reduce_scatter": [1, -1], "broadcast": [1, 0])").find("ops.broadcast: unknown key"),
            std::string::npos);
  // An empty list is a list: the error says what is missing.
  const std::string no_networks = head.substr(0, head.find("\"networks\"")) + R"("networks": []})";
  try {
    (void)parse_calculon_system(no_networks, "s.json", device_preset("a100-80gb"));
    ADD_FAILURE() << "an empty networks list was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("s.json.networks: expected a list of one or more network tiers"),
              std::string::npos)
        << e.what();
  }
}

// Calculon lists a processor's peak per datatype (its H100 system has float8
// beside float16) and writes unbounded memory as 80e9 GiB.
TEST(PathfindCalculon, SystemsWithSeveralDatatypesAndUnboundedMemory) {
  const auto system = [](std::string_view matrix, std::string_view mem1_gib) {
    return fmt::format(R"({{"matrix": {{{}}},
      "vector": {{"float8": {{"tflops": 120, "gflops_efficiency": [[0, 0.5]]}},
                  "float16": {{"tflops": 78, "gflops_efficiency": [[0, 0.5]]}}}},
      "mem1": {{"GiB": {}, "GBps": 2048, "MB_efficiency": [[0, 0.5]]}},
      "mem2": {{"GiB": 512, "GBps": 32, "MB_efficiency": [[0, 0.5]]}}, "processing_mode": "no_overlap",
      "networks": [{{"bandwidth": 300, "efficiency": 0.65, "size": 8, "latency": 1e-5, "must_be_filled": true,
        "processor_usage": 0.1, "ops": {{"p2p": [1.0, null], "all_gather": [1.5, -1], "all_reduce": [2.0, -1],
        "reduce_scatter": [1.5, -1]}}}}]}})",
                       matrix, mem1_gib);
  };
  const std::string f16 = R"("float16": {"tflops": 1000, "gflops_efficiency": [[0, 0.5]]})";
  const std::string f8 = R"("float8": {"tflops": 2000, "gflops_efficiency": [[128, 0.95], [0, 0.1]]})";
  const std::string bf16 = R"("bfloat16": {"tflops": 900, "gflops_efficiency": [[0, 0.5]]})";
  DeviceSpec s = parse_calculon_system(system(f8 + ", " + f16 + ", " + bf16, "80000000000"), "s.json",
                                       device_preset("a100-80gb"));
  EXPECT_NEAR(s.peak_flops_per_s(DType::kFp16), 1000e12, 1e6);  // float16's peak, not float8's
  EXPECT_DOUBLE_EQ(s.vector_flops_per_s, 78e12);
  EXPECT_DOUBLE_EQ(s.main_memory().capacity_bytes, 80e9 * 1024 * 1024 * 1024);
  const auto error = [&](std::string_view matrix, std::string_view gib) {
    try {
      (void)parse_calculon_system(system(matrix, gib), "s.json", device_preset("a100-80gb"));
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  // Every datatype entry is checked; float16 is the one used, so it must be there.
  EXPECT_NE(error(f16 + R"(, "float8": {"tflops": 0})", "80").find("s.json.matrix.float8.tflops"),
            std::string::npos);
  EXPECT_NE(error(f8, "80").find("s.json.matrix.float16: missing required key"), std::string::npos);
  EXPECT_NE(error(f16 + R"(, "int4": {})", "80").find("s.json.matrix.int4: unknown key"), std::string::npos);
  EXPECT_NE(error(f16, "1e13").find("s.json.mem1.GiB: expected a number in [1e-06, 1000000000000]"),
            std::string::npos);
}

std::string error_of(std::string_view json) {
  try {
    (void)parse_calculon_model(json, "m.json");
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(PathfindCalculon, StrictModelReader) {
  const std::string ok = R"({"hidden": 8, "feedforward": 32, "seq_size": 4, "attn_heads": 2, "attn_size": 4, "num_blocks": 2)";
  EXPECT_EQ(error_of(ok + "}"), "");
  EXPECT_NE(error_of(ok + R"(, "vocab": 5})").find("m.json.vocab: unknown key"), std::string::npos);
  EXPECT_NE(error_of(R"({"hidden": -8})").find("m.json.hidden"), std::string::npos);
  EXPECT_NE(error_of("{").find("m.json"), std::string::npos);
}

TEST(PathfindCalculon, UnmodelledExecutionOptionsAreErrors) {
  std::string e = R"({"num_procs": 8, "tensor_par": 8, "pipeline_par": 1, "data_par": 1, "tensor_par_net": 0,
    "pipeline_par_net": 1, "data_par_net": 1, "batch_size": 4, "microbatch_size": 4, "datatype": "float16",
    "fused_activation": false, "attention_type": "multihead", "activation_recompute": "full",
    "pipeline_interleaving": 1, "optimizer_sharding": false, "tensor_par_comm_type": "ar",
    "tensor_par_overlap": "none", "seq_par_ag_redo": false, "data_par_overlap": false, "weight_offload": false,
    "activations_offload": false, "optimizer_offload": true, "training": true})";
  try {
    (void)parse_calculon_execution(e, "e.json");
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("e.json.optimizer_offload: offloading is not modelled"), std::string::npos)
        << err.what();
  }
}

// Dimensions that share a network tier named the library's "parallelism:
// tiers"; the refusal names the execution file and its own keys.
TEST(PathfindCalculon, SharedTierRefusalNamesTheExecutionFile) {
  const std::string e = R"({"num_procs": 16, "tensor_par": 8, "pipeline_par": 2, "data_par": 1, "tensor_par_net": 0,
    "pipeline_par_net": 0, "data_par_net": 1, "batch_size": 8, "microbatch_size": 4, "datatype": "float16",
    "fused_activation": false, "attention_type": "multihead", "activation_recompute": "attn_only",
    "pipeline_interleaving": 1, "optimizer_sharding": false, "tensor_par_comm_type": "rs_ag",
    "tensor_par_overlap": "none", "seq_par_ag_redo": true, "data_par_overlap": false, "weight_offload": false,
    "activations_offload": false, "optimizer_offload": false, "training": true})";
  const CalculonExecution exec = parse_calculon_execution(e, "exec.json");
  const TransformerModel model{"m", 6144, 24576, 2048, 64, 96, 48, 0};
  try {
    (void)predict_training_iteration(device_preset("a100-80gb"), model, exec.parallelism, exec.job);
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("exec.json: tensor_par_net and pipeline_par_net: tensor_par 8 x "
                                           "pipeline_par 2 share tier 0 ('nvlink3'), which reaches 8 devices, 16 "
                                           "needed"),
              std::string::npos)
        << err.what();
  }
}

TEST(PathfindCalculon, FusedActivationIsRead) {
  const auto execution = [](std::string_view fused) {
    return fmt::format(R"({{"num_procs": 8, "tensor_par": 8, "pipeline_par": 1, "data_par": 1,
      "tensor_par_net": 0, "pipeline_par_net": 1, "data_par_net": 1, "batch_size": 4, "microbatch_size": 4,
      "datatype": "float16", "fused_activation": {}, "attention_type": "multihead",
      "activation_recompute": "full", "pipeline_interleaving": 1, "optimizer_sharding": false,
      "tensor_par_comm_type": "ar", "tensor_par_overlap": "none", "seq_par_ag_redo": false,
      "data_par_overlap": false, "weight_offload": false, "activations_offload": false, "optimizer_offload": false,
      "training": true}})",
                       fused);
  };
  EXPECT_TRUE(parse_calculon_execution(execution("true"), "e.json").parallelism.fused_activation);
  EXPECT_FALSE(parse_calculon_execution(execution("false"), "e.json").parallelism.fused_activation);
  try {
    (void)parse_calculon_execution(execution("1"), "e.json");
    FAIL();
  } catch (const Error& err) {
    EXPECT_NE(std::string(err.what()).find("e.json.fused_activation: expected true or false"), std::string::npos);
  }
}

}  // namespace
}  // namespace snr::pathfind
