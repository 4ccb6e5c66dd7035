// Reader of PyTorch host execution traces (ExecutionTraceObserver JSON),
// schemas 1.0.1 through 1.1.x, and of the linked traces `snr et link` writes
// (the same document with device fields added; docs/formats/pytorch.md).
//
// Two node layouts exist and are detected per node, not from the schema
// string: 1.0.1 puts everything flat on the node ("parent", "rf_id",
// "inputs": [values], "input_shapes", "input_types", ...); 1.0.2 and later
// use "ctrl_deps", "inputs": {"values", "shapes", "types", "strides"} and an
// "attrs" list of {name, type, value}.
//
// Reading is lenient: unknown fields are ignored; a node that cannot be used
// (no integer id, duplicate id, inputs that are not lists) is skipped and
// recorded in `skipped` with its index and id. A document that is not JSON
// or has no "nodes" list is an error naming the file.
//
// The document is streamed (simdjson on-demand: no DOM), "nodes" indexed and
// walked a few megabytes at a time, or first read once through by a scanner
// of the common node that leaves the rest to that walk (host_node_scanner.h).
// Syntax errors are reported as snr::parse_json_input words them (line,
// column, byte, key). Values kept only to be written out again (arguments,
// shapes, strides, unknown attributes) are kept as compact JSON text, exactly as nlohmann::json::dump() would write
// them (sorted keys, nlohmann's escaping and number forms), so writers copy
// them out unchanged; the json_text_* helpers below read such text.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "formats/pytorch/list_arena.h"
#include "formats/pytorch/text_pool.h"

namespace snr::pytorch {

// One tensor as the observer records it: [tensor_id, storage_id, offset,
// num_elem, elem_bytes, device].
struct TensorRef {
  uint64_t tensor_id = 0;
  uint64_t storage_id = 0;
  uint64_t offset = 0;
  uint64_t num_elem = 0;
  uint64_t elem_bytes = 0;
  std::string_view device;  // in the trace's TextPool or the pool given to find_tensors
  // Bytes from the recorded shape and dtype (shape product x dtype size),
  // falling back to num_elem x elem_bytes when the dtype or the shape is
  // unknown. size_known is false (size_bytes 0) when the recorded shape is
  // not a list of non-negative integers or the bytes exceed 64 bits.
  uint64_t size_bytes = 0;
  bool size_known = true;
};

// One positional argument or result, kept verbatim for re-serialisation as
// compact JSON text ("" reads as null). The views are into the trace's
// TextPool (HostTrace::text_pool) or into string literals.
struct HostValue {
  std::string_view type;  // "Tensor(float)", "Int", "GenericList[Tensor(float)]", ...
  std::string_view value = "null";
  std::string_view shape = "null";
  std::string_view stride = "null";  // null when the schema has none
};

enum class HostNodeKind { kOperator, kKernel, kGpuMemcpy, kGpuMemset };

// A synchronising runtime call made inside a host operator (linked traces).
struct HostSyncCall {
  std::string api;  // cudaDeviceSynchronize, cudaStreamSynchronize, ...
  int64_t ts_ns = 0;
  int64_t stream = -1;  // -1: every stream (device-wide or unknown stream)
};

// A GPU-side wait made by a host operator (cudaStreamWaitEvent, linked
// traces): work launched on `stream` after the call waits for the work
// launched on `wait_on_stream` before it. -1: the trace does not say.
struct HostStreamWait {
  int64_t ts_ns = 0;
  int64_t stream = -1;
  int64_t wait_on_stream = -1;
};

struct HostNode {
  HostNode() = default;
  // A node whose lists (arguments, tensors, attributes) take their memory
  // from `lists`, its trace's ListArena; copies of it use the heap.
  explicit HostNode(ListArena* lists)
      : inputs(ListAllocator<HostValue>(lists)), outputs(ListAllocator<HostValue>(lists)),
        extra_attrs(ListAllocator<std::string_view>(lists)) {}

  uint64_t id = 0;
  std::string name;
  std::optional<uint64_t> parent_id;  // "ctrl_deps" / "parent"
  std::optional<uint64_t> rf_id;
  uint64_t fw_parent = 0;
  int64_t seq_id = -1;
  uint64_t scope = 0;
  uint64_t tid = 0;
  uint64_t fw_tid = 0;
  std::string_view op_schema;  // in the trace's TextPool
  ArenaList<HostValue> inputs;
  ArenaList<HostValue> outputs;
  // Attributes of the 1.0.2+ "attrs" list that have no field above, verbatim
  // as compact JSON objects (in the trace's TextPool).
  ArenaList<std::string_view> extra_attrs;

  // Device fields of linked traces; absent in plain execution traces.
  HostNodeKind kind = HostNodeKind::kOperator;
  std::optional<int64_t> ts_ns;
  std::optional<int64_t> dur_ns;
  std::optional<int64_t> launch_ts_ns;  // device nodes: when the runtime launched it
  int64_t stream = -1;
  int64_t device = -1;
  int64_t correlation = -1;
  std::vector<HostSyncCall> syncs;
  std::vector<HostStreamWait> stream_waits;
};

struct SkippedRecord {
  size_t index = 0;  // position in the source list
  std::string id;    // the record's id when it had one, else ""
  std::string reason;
};

struct ProcessGroupInfo {
  std::string pg_name;
  std::string backend_config;
  int64_t backend_id = -1;  // what older record_param_comms pass as the group
  std::vector<int64_t> ranks;
  int64_t group_size = 0;
};

struct HostTrace {
  std::string schema;
  int64_t pid = 0;
  std::optional<int64_t> rank;  // root "rank" or "distributedInfo": {"rank"}
  std::vector<HostNode> nodes;  // in file order
  std::vector<ProcessGroupInfo> process_groups;
  std::vector<SkippedRecord> skipped;
  bool linked = false;          // written by `snr et link`
  nlohmann::json root_fields = nlohmann::json::object();  // other root keys, verbatim
  // The text the nodes' string_views point into; shared by copies of the
  // trace, so a copied node stays valid as long as any copy lives.
  std::shared_ptr<TextPool> text_pool = std::make_shared<TextPool>();
  // The memory of the lists of the nodes read from the text, shared by
  // copies of the trace as `text_pool` is.
  std::shared_ptr<ListArena> list_arena = std::make_shared<ListArena>();
};

// What a reader may leave out of the nodes: what only writing the trace
// back needs (`snr et link` writes it; the converter does not). Left out or
// not, every value is read and checked the same way.
struct HostReadOptions {
  bool keep_strides = true;      // else every HostValue::stride is "null"
  bool keep_extra_attrs = true;  // else every HostNode::extra_attrs is empty
};

HostTrace parse_host_trace(const nlohmann::json& document, const std::string& source_name);
HostTrace parse_host_trace_text(std::string_view text, const std::string& source_name);
HostTrace read_host_trace(const std::filesystem::path& path, const HostReadOptions& options = {});

namespace detail {
// How the nodes of a window are read: by the scanner that takes the common
// node straight from the text, with the simdjson walk for what it declines
// (what the readers do; a large list is read in two halves at once where
// there are two cores), by the scanner with the list always read in two
// halves, or by the walk alone. All give the same trace or the same error;
// tests and fuzzing compare them.
enum class NodeReading { kScanFirst, kScanFirstSplit, kWalkOnly };
// parse_host_trace_text with the "nodes" list walked in windows of about
// `window_bytes` (the readers use a few megabytes); for tests and fuzzing,
// which must see the same trace whatever the window.
HostTrace parse_host_trace_text(std::string_view text, const std::string& source_name, size_t window_bytes,
                                NodeReading reading = NodeReading::kScanFirst);
// read_host_trace with the same window choice (a plain file is mapped and
// handed back a window at a time; gzip is inflated into memory).
HostTrace read_host_trace(const std::filesystem::path& path, size_t window_bytes,
                          NodeReading reading = NodeReading::kScanFirst, const HostReadOptions& options = {});
}  // namespace detail

// The tensors in `values` (a node's inputs or outputs), in order: each
// Tensor argument and each tensor inside a list argument. Found when asked
// for, not when the trace is read: a converter needs the tensors of a few
// nodes only. A device name written with escapes is unescaped into `pool`
// (left empty without one); others are views of the value texts.
void find_tensors(std::span<const HostValue> values, std::vector<TensorRef>& out, TextPool* pool);
std::vector<TensorRef> find_tensors(std::span<const HostValue> values, TextPool* pool);
// The sum of size_bytes over find_tensors(values).
uint64_t tensor_bytes(std::span<const HostValue> values);
// Why a tensor of `values` has no size (TensorRef::size_known), or the sum
// of their sizes exceeds 64 bits; "" when every size is known.
std::string tensor_size_problem(std::span<const HostValue> values);
// Appends (tensor_id, storage_id) of each tensor find_tensors finds, at a
// fraction of its cost (no sizes, no devices).
void find_tensor_ids(std::span<const HostValue> values, std::vector<std::pair<uint64_t, uint64_t>>& out);

// Bytes per element of a dtype as it appears in "Tensor(<dtype>)"; 0 if unknown.
uint64_t dtype_size_bytes(std::string_view dtype);

// Readers of the compact JSON text HostValue keeps (as nlohmann's dump()
// writes it; "" is null). Numbers convert as json_to_int64/json_to_uint64 do
// (integral doubles count); the string reader unescapes.
bool json_text_to_int64(std::string_view text, int64_t& out);
bool json_text_to_uint64(std::string_view text, uint64_t& out);
std::optional<std::string> json_text_string(std::string_view text);
// The top-level elements of a compact JSON array's text, one at a time
// (strings and brackets followed, not validated).
class JsonTextElements {
 public:
  explicit JsonTextElements(std::string_view text)
      : text_(text), is_array_(text.size() >= 2 && text.front() == '[' && text.back() == ']'),
        at_(is_array_ && text.size() > 2 ? 1 : text.size()) {}
  [[nodiscard]] bool is_array() const { return is_array_; }
  // The next element; false past the last one (or when not an array).
  bool next(std::string_view& element);

 private:
  std::string_view text_;
  bool is_array_;
  size_t at_;
};
// All of them; false when `text` is not an array.
bool json_text_elements(std::string_view text, std::vector<std::string_view>& out);
// Appends `text` as a JSON string literal escaped as nlohmann's dump() does
// (UTF-8 kept; control characters as \b \f \n \r \t or \u00xx).
void append_json_string(std::string& out, std::string_view text);

// True for the annotation nodes the observer writes as roots of each thread
// and process ("[pytorch|profiler|execution_trace|thread]", the older
// "execution_graph" spelling) and "## ... ##" markers.
bool is_trace_annotation(std::string_view name);

}  // namespace snr::pytorch
