// Trace feeder: hands a simulator the nodes of one rank's Chakra trace in an
// order that respects their dependencies (seed 002 §5.5).
//
//   snr::et::TraceFeeder feeder(snr::chakra::EtReader::open("w.0.et"));
//   while (feeder.has_pending()) {
//     while (const ChakraProtoMsg::Node* node = feeder.next_issuable()) start(*node);
//     ...                              // later, when the simulator finishes one:
//     feeder.push_completed(finished_id);
//   }
//
// A node becomes issuable once every id in its data_deps and ctrl_deps has
// been completed; among issuable nodes the smallest id comes first.
// next_issuable() returns nullptr when nothing is ready *now* (the caller
// must complete an issued node first). The returned pointer stays valid until
// that node is completed.
//
// Streaming window: nodes are read from the source on demand, keeping about
// `window_nodes` unfinished nodes in memory. When nothing is issuable and
// nothing is in flight, the window grows past the bound to read the node
// that unblocks the rest, so a trace whose dependencies point far ahead
// still runs, at the cost of memory. Memory is O(window + completed ids):
// completed ids are kept (8 bytes each plus hash overhead) so that a
// dependency on an already finished node is recognised.
//
// Errors (snr::Error, naming the nodes): a duplicate node id, a node that
// depends on itself, a dependency on an id that never appears in the trace
// (dangling; reported once the whole trace is read), a dependency cycle
// (reported, with the ids on the cycle, when no node can ever become
// issuable), and push_completed() of an id that was not issued.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "formats/chakra/et_def.pb.h"
#include "formats/chakra/et_reader.h"

namespace snr::et {

struct FeederOptions {
  // Target number of unfinished nodes held in memory; 0 reads the whole
  // trace up front.
  size_t window_nodes = 4096;
  // When true, a dependency on an id that never appears is treated as
  // satisfied (and counted in FeederStats) instead of being an error.
  bool ignore_dangling_dependencies = false;
  // When true, a node listing its own id is released from that dependency
  // (counted) instead of being an error. Traces from early PyTorch
  // converters contain such nodes.
  bool ignore_self_dependencies = false;
  // ASTRA-sim's feeder waits on data_deps only; set false to match it.
  bool wait_on_control_dependencies = true;
};

struct FeederStats {
  uint64_t nodes_read = 0;
  uint64_t nodes_issued = 0;
  uint64_t nodes_completed = 0;
  uint64_t peak_window_nodes = 0;
  uint64_t duplicate_dependencies = 0;  // the same id listed twice by one node
  uint64_t dangling_dependencies_ignored = 0;
  uint64_t self_dependencies_ignored = 0;
};

// Where the feeder pulls nodes from; EtReader-backed and vector-backed
// sources are provided.
class NodeSource {
 public:
  virtual ~NodeSource() = default;
  // Fills `node`; false at the end of the trace.
  virtual bool next(ChakraProtoMsg::Node& node) = 0;
  // Names the source in error messages (a file path, "memory").
  [[nodiscard]] virtual std::string describe() const = 0;
};

std::unique_ptr<NodeSource> make_reader_source(chakra::EtReader reader);
std::unique_ptr<NodeSource> make_vector_source(std::vector<ChakraProtoMsg::Node> nodes,
                                               std::string name = "memory");

class TraceFeeder {
 public:
  explicit TraceFeeder(std::unique_ptr<NodeSource> source, FeederOptions options = {});
  explicit TraceFeeder(chakra::EtReader reader, FeederOptions options = {});
  explicit TraceFeeder(std::vector<ChakraProtoMsg::Node> nodes, FeederOptions options = {});
  TraceFeeder(TraceFeeder&&) noexcept;
  TraceFeeder& operator=(TraceFeeder&&) noexcept;
  ~TraceFeeder();

  // The ready node with the smallest id, marked issued; nullptr when none is
  // ready until an issued node completes. Throws on a cycle / dangling
  // dependency once it is certain no node can become ready.
  const ChakraProtoMsg::Node* next_issuable();
  // True if next_issuable() would return a node now.
  [[nodiscard]] bool has_issuable();
  // Marks an issued node complete, releasing its dependents.
  void push_completed(uint64_t node_id);
  // True while any node of the trace is not yet completed.
  [[nodiscard]] bool has_pending();
  // An unfinished node currently in the window, or nullptr.
  [[nodiscard]] const ChakraProtoMsg::Node* lookup(uint64_t node_id) const;
  [[nodiscard]] size_t issued_count() const;  // issued and not completed
  [[nodiscard]] const FeederStats& stats() const;

  struct State;

 private:
  std::unique_ptr<State> state_;
};

}  // namespace snr::et
