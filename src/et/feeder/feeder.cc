#include "et/feeder/feeder.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "common/error.h"

namespace snr::et {

using ChakraProtoMsg::Node;

namespace {

class ReaderSource final : public NodeSource {
 public:
  explicit ReaderSource(chakra::EtReader reader) : reader_(std::move(reader)) {}
  bool next(Node& node) override { return reader_.next(node); }
  [[nodiscard]] std::string describe() const override { return reader_.display_name(); }

 private:
  chakra::EtReader reader_;
};

class VectorSource final : public NodeSource {
 public:
  VectorSource(std::vector<Node> nodes, std::string name) : nodes_(std::move(nodes)), name_(std::move(name)) {}
  bool next(Node& node) override {
    if (position_ >= nodes_.size()) return false;
    node.Swap(&nodes_[position_++]);
    return true;
  }
  [[nodiscard]] std::string describe() const override { return name_; }

 private:
  std::vector<Node> nodes_;
  std::string name_;
  size_t position_ = 0;
};

enum class SlotStatus : uint8_t { kFree, kWaiting, kReady, kIssued };

struct Slot {
  Node node;
  uint32_t unresolved_deps = 0;
  SlotStatus status = SlotStatus::kFree;
  std::vector<uint32_t> children;  // slots waiting on this node
};

std::string describe_node(const Node& node) {
  if (node.name().empty()) return fmt::format("node {}", node.id());
  return fmt::format("node {} ({})", node.id(), node.name());
}

}  // namespace

std::unique_ptr<NodeSource> make_reader_source(chakra::EtReader reader) {
  return std::make_unique<ReaderSource>(std::move(reader));
}

std::unique_ptr<NodeSource> make_vector_source(std::vector<Node> nodes, std::string name) {
  return std::make_unique<VectorSource>(std::move(nodes), std::move(name));
}

struct TraceFeeder::State {
  std::unique_ptr<NodeSource> source;
  FeederOptions options;
  FeederStats stats;
  bool source_exhausted = false;

  // Slots live in a deque so node pointers handed out stay valid while the
  // window grows; freed slots are reused (their Node keeps its allocations).
  std::deque<Slot> slots;
  std::vector<uint32_t> free_slots;
  std::unordered_map<uint64_t, uint32_t> slot_of_id;  // unfinished nodes in the window
  std::unordered_set<uint64_t> completed_ids;
  // Dependencies on ids not read yet: id -> slots waiting for it.
  std::unordered_map<uint64_t, std::vector<uint32_t>> waiting_on_unread;
  // Min-heap of (id, slot) of ready nodes.
  std::vector<std::pair<uint64_t, uint32_t>> ready;
  size_t unfinished = 0;
  size_t issued = 0;
  std::vector<uint64_t> dependency_scratch;

  State(std::unique_ptr<NodeSource> node_source, FeederOptions feeder_options)
      : source(std::move(node_source)), options(feeder_options) {
    size_t expected = options.window_nodes == 0 ? 1024 : options.window_nodes;
    slot_of_id.reserve(expected * 2);
    ready.reserve(expected);
  }

  void push_ready(uint32_t slot_index) {
    Slot& slot = slots[slot_index];
    slot.status = SlotStatus::kReady;
    ready.emplace_back(slot.node.id(), slot_index);
    std::push_heap(ready.begin(), ready.end(), std::greater<>());
  }

  uint32_t take_slot() {
    if (!free_slots.empty()) {
      uint32_t index = free_slots.back();
      free_slots.pop_back();
      return index;
    }
    slots.emplace_back();
    return static_cast<uint32_t>(slots.size() - 1);
  }

  void release_slot(uint32_t index) {
    Slot& slot = slots[index];
    slot.node.Clear();
    slot.children.clear();
    slot.unresolved_deps = 0;
    slot.status = SlotStatus::kFree;
    free_slots.push_back(index);
  }

  // Reads one node into the window; false at the end of the source.
  bool admit_one() {
    uint32_t index = take_slot();
    Slot& slot = slots[index];
    if (!source->next(slot.node)) {
      free_slots.push_back(index);
      source_exhausted = true;
      on_source_exhausted();
      return false;
    }
    ++stats.nodes_read;
    const Node& node = slot.node;
    uint64_t id = node.id();
    if (slot_of_id.count(id) != 0 || completed_ids.count(id) != 0) {
      throw Error(fmt::format("{}: duplicate node id {}: {} reuses it", source->describe(), id,
                              describe_node(node)));
    }
    dependency_scratch.assign(node.data_deps().begin(), node.data_deps().end());
    if (options.wait_on_control_dependencies) {
      dependency_scratch.insert(dependency_scratch.end(), node.ctrl_deps().begin(), node.ctrl_deps().end());
    }
    std::sort(dependency_scratch.begin(), dependency_scratch.end());
    auto unique_end = std::unique(dependency_scratch.begin(), dependency_scratch.end());
    stats.duplicate_dependencies += static_cast<uint64_t>(dependency_scratch.end() - unique_end);
    dependency_scratch.erase(unique_end, dependency_scratch.end());

    slot.unresolved_deps = 0;
    for (uint64_t dep : dependency_scratch) {
      if (dep == id) {
        if (options.ignore_self_dependencies) {
          ++stats.self_dependencies_ignored;
          continue;
        }
        throw Error(fmt::format("{}: {} depends on itself", source->describe(), describe_node(node)));
      }
      if (completed_ids.count(dep) != 0) continue;
      auto parent = slot_of_id.find(dep);
      if (parent != slot_of_id.end()) {
        slots[parent->second].children.push_back(index);
      } else {
        waiting_on_unread[dep].push_back(index);
      }
      ++slot.unresolved_deps;
    }
    slot_of_id.emplace(id, index);
    if (auto waiting = waiting_on_unread.find(id); waiting != waiting_on_unread.end()) {
      slot.children.insert(slot.children.end(), waiting->second.begin(), waiting->second.end());
      waiting_on_unread.erase(waiting);
    }
    ++unfinished;
    stats.peak_window_nodes = std::max<uint64_t>(stats.peak_window_nodes, unfinished);
    if (slot.unresolved_deps == 0) {
      push_ready(index);
    } else {
      slot.status = SlotStatus::kWaiting;
    }
    return true;
  }

  void on_source_exhausted() {
    if (waiting_on_unread.empty()) return;
    // Sorted so the message (and which nodes get released) is deterministic.
    std::vector<uint64_t> missing;
    for (const auto& entry : waiting_on_unread) missing.push_back(entry.first);
    std::sort(missing.begin(), missing.end());
    if (!options.ignore_dangling_dependencies) {
      std::string listed;
      size_t shown = 0;
      for (uint64_t dep : missing) {
        for (uint32_t child : waiting_on_unread[dep]) {
          if (shown++ == 5) break;
          listed += fmt::format("; {} depends on node {}", describe_node(slots[child].node), dep);
        }
      }
      throw Error(fmt::format("{}: {} dangling dependenc{} on ids not in the trace{}{}", source->describe(),
                              missing.size(), missing.size() == 1 ? "y" : "ies", listed,
                              shown > 5 ? "; ..." : ""));
    }
    for (uint64_t dep : missing) {
      for (uint32_t child : waiting_on_unread[dep]) {
        ++stats.dangling_dependencies_ignored;
        if (--slots[child].unresolved_deps == 0) push_ready(child);
      }
    }
    waiting_on_unread.clear();
  }

  void fill() {
    if (source_exhausted) return;
    size_t bound = options.window_nodes;
    while (!source_exhausted && (bound == 0 || unfinished < bound)) admit_one();
    // Nothing ready and nothing running: only reading further can help.
    while (!source_exhausted && ready.empty() && issued == 0) admit_one();
  }

  [[noreturn]] void report_cycle() {
    // Every waiting node has an unfinished dependency in the window, so
    // walking to any such dependency repeatedly must revisit a node.
    uint32_t start = 0;
    while (slots[start].status != SlotStatus::kWaiting) ++start;
    std::unordered_map<uint32_t, size_t> position;
    std::vector<uint32_t> path;
    uint32_t current = start;
    while (position.count(current) == 0) {
      position.emplace(current, path.size());
      path.push_back(current);
      const Node& node = slots[current].node;
      uint32_t next = current;
      for (const auto* deps : {&node.data_deps(), &node.ctrl_deps()}) {
        if (deps == &node.ctrl_deps() && !options.wait_on_control_dependencies) continue;
        for (uint64_t dep : *deps) {
          auto it = slot_of_id.find(dep);
          if (it != slot_of_id.end() && it->second != current && next == current) next = it->second;
        }
      }
      current = next;
    }
    std::string cycle;
    for (size_t i = position[current]; i < path.size(); ++i) {
      cycle += describe_node(slots[path[i]].node) + " -> ";
    }
    cycle += describe_node(slots[current].node);
    throw Error(fmt::format("{}: dependency cycle, {} node(s) can never issue: {} (each waits on the next)",
                            source->describe(), unfinished, cycle));
  }

  const Node* next_issuable() {
    fill();
    if (ready.empty()) {
      if (issued == 0 && unfinished > 0) report_cycle();
      return nullptr;
    }
    std::pop_heap(ready.begin(), ready.end(), std::greater<>());
    uint32_t index = ready.back().second;
    ready.pop_back();
    slots[index].status = SlotStatus::kIssued;
    ++issued;
    ++stats.nodes_issued;
    return &slots[index].node;
  }

  void push_completed(uint64_t id) {
    auto it = slot_of_id.find(id);
    if (it == slot_of_id.end() || slots[it->second].status != SlotStatus::kIssued) {
      const char* why = completed_ids.count(id) != 0 ? "it is already completed"
                        : it == slot_of_id.end()      ? "no such node is in the window"
                                                      : "it was never issued";
      throw Error(fmt::format("{}: push_completed({}): {}", source->describe(), id, why));
    }
    uint32_t index = it->second;
    slot_of_id.erase(it);
    completed_ids.insert(id);
    for (uint32_t child : slots[index].children) {
      if (--slots[child].unresolved_deps == 0) push_ready(child);
    }
    release_slot(index);
    --issued;
    --unfinished;
    ++stats.nodes_completed;
  }
};

TraceFeeder::TraceFeeder(std::unique_ptr<NodeSource> source, FeederOptions options)
    : state_(std::make_unique<State>(std::move(source), options)) {}
TraceFeeder::TraceFeeder(chakra::EtReader reader, FeederOptions options)
    : TraceFeeder(make_reader_source(std::move(reader)), options) {}
TraceFeeder::TraceFeeder(std::vector<Node> nodes, FeederOptions options)
    : TraceFeeder(make_vector_source(std::move(nodes)), options) {}
TraceFeeder::TraceFeeder(TraceFeeder&&) noexcept = default;
TraceFeeder& TraceFeeder::operator=(TraceFeeder&&) noexcept = default;
TraceFeeder::~TraceFeeder() = default;

const Node* TraceFeeder::next_issuable() { return state_->next_issuable(); }
bool TraceFeeder::has_issuable() {
  state_->fill();
  return !state_->ready.empty();
}
void TraceFeeder::push_completed(uint64_t node_id) { state_->push_completed(node_id); }
bool TraceFeeder::has_pending() {
  state_->fill();
  return state_->unfinished > 0 || !state_->source_exhausted;
}
const Node* TraceFeeder::lookup(uint64_t node_id) const {
  auto it = state_->slot_of_id.find(node_id);
  return it == state_->slot_of_id.end() ? nullptr : &state_->slots[it->second].node;
}
size_t TraceFeeder::issued_count() const { return state_->issued; }
const FeederStats& TraceFeeder::stats() const { return state_->stats; }

}  // namespace snr::et
