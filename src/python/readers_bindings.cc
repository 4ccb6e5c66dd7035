// snr.et and snr.rundb: the project's own files as plain Python values.
// Traces come out in the same protobuf canonical JSON `snr et jsonize`
// writes; a run.db as tables of columns (pandas.DataFrame(table) works).
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <nlohmann/json.hpp>

#include "et/tools/jsonize.h"
#include "formats/chakra/et_reader.h"
#include "formats/rundb/load.h"
#include "python/bindings.h"
#include "python/convert.h"

namespace snr::python {
namespace {

py::object read_trace(const py::object& path_like) {
  const std::string path = py::module_::import("os").attr("fspath")(path_like).cast<std::string>();
  nlohmann::ordered_json trace;
  {
    py::gil_scoped_release release;
    auto reader = chakra::EtReader::open(path);
    trace["globalMetadata"] = nlohmann::ordered_json::parse(et::message_to_json(reader.metadata(), 0));
    nlohmann::ordered_json nodes = nlohmann::ordered_json::array();
    ChakraProtoMsg::Node node;
    while (reader.next(node)) nodes.push_back(nlohmann::ordered_json::parse(et::message_to_json(node, 0)));
    trace["nodes"] = std::move(nodes);
    trace["skipped_records"] = reader.stats().skipped_records;
  }
  return to_python(trace);
}

// Columns of `rows`: {name: [values...]} for each (name, getter).
template <typename Row, typename... Columns>
py::dict columns(const std::vector<Row>& rows, const Columns&... named) {
  py::dict table;
  auto add = [&](const auto& column) {
    py::list values;
    for (const Row& row : rows) values.append(py::cast(column.second(row)));
    table[column.first] = std::move(values);
  };
  (add(named), ...);
  return table;
}

template <typename Getter>
std::pair<const char*, Getter> col(const char* name, Getter getter) {
  return {name, getter};
}

py::object read_run(const py::object& path_like, bool dependencies) {
  const std::string path = py::module_::import("os").attr("fspath")(path_like).cast<std::string>();
  rundb::LoadOptions options;
  options.dependencies = dependencies;
  rundb::RunData data;
  {
    py::gil_scoped_release release;
    data = rundb::load_run_data(path, options);
  }
  using rundb::InstructionRecord, rundb::DmaRecord, rundb::UnitBusyRecord, rundb::ChipSummary;
  py::dict run;
  py::dict meta;
  for (const auto& [key, value] : data.meta) meta[py::str(key)] = value;
  run["meta"] = meta;
  run["hw_config_yaml"] = data.hw_config_yaml;
  run["total_cycles"] = data.total_cycles;
  run["op_names"] = py::cast(data.op_names);
  run["chips"] = columns(data.chips, col("chip", [](const ChipSummary& c) { return c.chip; }),
                         col("instructions", [](const ChipSummary& c) { return c.instructions; }),
                         col("first_cycle", [](const ChipSummary& c) { return c.first_cycle; }),
                         col("last_cycle", [](const ChipSummary& c) { return c.last_cycle; }),
                         col("stall_cycles", [](const ChipSummary& c) { return c.stall_cycles; }));
  const auto& ops = data.op_names;
  run["instructions"] = columns(
      data.instructions, col("step", [](const InstructionRecord& i) { return i.step; }),
      col("chip", [](const InstructionRecord& i) { return i.chip; }),
      col("pc", [](const InstructionRecord& i) { return i.pc; }),
      col("op", [&ops](const InstructionRecord& i) { return i.op < ops.size() ? ops[i.op] : std::string(); }),
      col("mnemonic", [](const InstructionRecord& i) { return std::string(i.mnemonic); }),
      col("issue_cycle", [](const InstructionRecord& i) { return i.issue_cycle; }),
      col("complete_cycle", [](const InstructionRecord& i) { return i.complete_cycle; }),
      col("stall_cycles", [](const InstructionRecord& i) { return i.stall_cycles; }),
      col("stall_reason", [](const InstructionRecord& i) { return std::string(i.stall_reason); }));
  run["dmas"] = columns(data.dmas, col("dma_id", [](const DmaRecord& d) { return d.dma_id; }),
                        col("chip", [](const DmaRecord& d) { return d.chip; }),
                        col("issue_step", [](const DmaRecord& d) { return d.issue_step; }),
                        col("src_chip", [](const DmaRecord& d) { return d.src_chip; }),
                        col("src_space", [](const DmaRecord& d) { return d.src_space; }),
                        col("dst_chip", [](const DmaRecord& d) { return d.dst_chip; }),
                        col("dst_space", [](const DmaRecord& d) { return d.dst_space; }),
                        col("bytes", [](const DmaRecord& d) { return d.bytes; }),
                        col("link", [](const DmaRecord& d) { return d.link; }),
                        col("issue_cycle", [](const DmaRecord& d) { return d.issue_cycle; }),
                        col("transfer_start_cycle", [](const DmaRecord& d) { return d.transfer_start_cycle; }),
                        col("transfer_end_cycle", [](const DmaRecord& d) { return d.transfer_end_cycle; }),
                        col("waited", [](const DmaRecord& d) { return d.waited; }),
                        col("wait_start_cycle", [](const DmaRecord& d) { return d.wait_start_cycle; }),
                        col("wait_end_cycle", [](const DmaRecord& d) { return d.wait_end_cycle; }));
  run["unit_busy"] = columns(data.unit_busy, col("chip", [](const UnitBusyRecord& u) { return u.chip; }),
                             col("unit", [](const UnitBusyRecord& u) { return u.unit; }),
                             col("start_cycle", [](const UnitBusyRecord& u) { return u.start_cycle; }),
                             col("end_cycle", [](const UnitBusyRecord& u) { return u.end_cycle; }),
                             col("instructions", [](const UnitBusyRecord& u) { return u.instructions; }));
  if (dependencies) {
    using rundb::DependencyRecord;
    run["dependencies"] =
        columns(data.dependencies, col("producer_step", [](const DependencyRecord& d) { return d.producer_step; }),
                col("consumer_step", [](const DependencyRecord& d) { return d.consumer_step; }),
                col("kind", [](const DependencyRecord& d) { return std::string(d.kind); }),
                col("chip", [](const DependencyRecord& d) { return d.chip; }),
                col("first", [](const DependencyRecord& d) { return d.first; }),
                col("last", [](const DependencyRecord& d) { return d.last; }));
  }
  return run;
}

}  // namespace

void bind_readers(py::module_& snr_module) {
  py::module_ et = snr_module.def_submodule("et", "Chakra execution traces");
  et.def("read", &read_trace, R"(Read a Chakra .et trace (plain or gzip).

Returns {"globalMetadata": {...}, "nodes": [{...}, ...], "skipped_records": N}
with each message in protobuf canonical JSON, exactly as `snr et jsonize`
writes it (lowerCamelCase keys, 64-bit integers as strings). Raises
snr.Error for an unreadable trace.)",
         py::arg("path"));
  py::module_ rundb = snr_module.def_submodule("rundb", "Replayed NPU runs (run.db)");
  rundb.def("read", &read_run, R"(Read a run.db written by `snr replay` or `snr run`.

Returns a dict: meta (key -> value), hw_config_yaml, total_cycles, op_names,
and tables as {column: [values]} (pandas.DataFrame(run["instructions"])):
chips (instructions, first/last/stall cycles), instructions (step, chip, pc,
op, mnemonic, issue/complete cycle, stall cycles and reason), dmas (ids,
chips, memory spaces, bytes, link, issue/transfer/wait cycles), unit_busy
(chip, unit, start/end cycle, instructions), and with dependencies=True the
dependency edges (the largest table). Cycles are NPU clock cycles.)",
            py::arg("path"), py::kw_only(), py::arg("dependencies") = false);
}

}  // namespace snr::python
