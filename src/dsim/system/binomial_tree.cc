#include "dsim/system/binomial_tree.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::dsim {

int64_t BinomialTreePhase::parent_of(uint32_t v) {
  if (v == 0) return -1;
  return static_cast<int64_t>(v & (v - 1));
}

std::vector<uint32_t> BinomialTreePhase::children_of(uint32_t v, uint32_t n) {
  // Masks below v's lowest set bit (all masks below n for the root).
  uint64_t limit = v == 0 ? uint64_t{1} << 40 : (v & (~v + 1));
  std::vector<uint32_t> children;
  uint64_t top = 1;
  while (top < limit && top < n) top <<= 1;
  for (uint64_t mask = top; mask >= 1; mask >>= 1) {
    if (mask < limit && v + mask < n) children.push_back(static_cast<uint32_t>(v + mask));
  }
  return children;
}

uint32_t BinomialTreePhase::subtree_size(uint32_t v, uint32_t n) {
  if (v == 0) return n;
  const uint32_t low = v & (~v + 1);
  return std::min(low, n - v);
}

BinomialTreePhase::BinomialTreePhase(const PhasePlan& plan)
    : kind_(plan.kind), ring_(plan.ring), root_position_(plan.root_position), block_bytes_(plan.input_bytes) {
  if (ring_.size == 0 || root_position_ >= ring_.size) {
    throw Error(fmt::format("{}: root position {} outside a group of {}", collective_name(kind_), root_position_,
                            ring_.size));
  }
  v_ = (ring_.my_position + ring_.size - root_position_) % ring_.size;
  children_ = children_of(v_, ring_.size);
}

NpuId BinomialTreePhase::npu_at(uint32_t v) const { return ring_.member((v + root_position_) % ring_.size); }

uint64_t BinomialTreePhase::message_bytes(uint32_t v) const {
  const bool whole_subtree = kind_ == CollectiveKind::kGather || kind_ == CollectiveKind::kScatter;
  return whole_subtree ? subtree_size(v, ring_.size) * block_bytes_ : block_bytes_;
}

bool BinomialTreePhase::downward() const {
  return kind_ == CollectiveKind::kBroadcast || kind_ == CollectiveKind::kScatter;
}

void BinomialTreePhase::start(uint32_t stream, PhaseActions& actions) {
  if (downward()) {
    if (v_ == 0) {
      actions.process_packet(stream, false, block_bytes_);
    } else {
      actions.post_recv(stream, npu_at(static_cast<uint32_t>(parent_of(v_))), message_bytes(v_));
    }
    return;
  }
  for (uint32_t child : children_) actions.post_recv(stream, npu_at(child), message_bytes(child));
  actions.process_packet(stream, false, block_bytes_);
}

void BinomialTreePhase::on_packet_received(uint32_t stream, PhaseActions& actions) {
  // Down the tree the one message is forwarded; up the tree each child's
  // contribution is reduced (reduce) or appended (gather).
  actions.process_packet(stream, kind_ == CollectiveKind::kReduce, block_bytes_);
}

void BinomialTreePhase::on_packet_ready(uint32_t stream, PhaseActions& actions) {
  ++ready_;
  if (downward()) {
    for (uint32_t child : children_) actions.send(stream, npu_at(child), message_bytes(child));
    finished_ = true;
    actions.phase_finished(stream);
    return;
  }
  finish_up(stream, actions);
}

void BinomialTreePhase::finish_up(uint32_t stream, PhaseActions& actions) {
  if (finished_ || ready_ < children_.size() + 1) return;
  if (v_ != 0) actions.send(stream, npu_at(static_cast<uint32_t>(parent_of(v_))), message_bytes(v_));
  finished_ = true;
  actions.phase_finished(stream);
}

void BinomialTreePhase::on_step_done(uint32_t stream, uint32_t step, PhaseActions& /*actions*/) {
  throw Error(fmt::format("stream {}: step {} done in a binomial-tree phase, which has no steps", stream, step));
}

CollectiveAlgorithmSpec binomial_tree_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "binomial-tree";
  spec.aliases = {"binomialTree"};
  spec.summary = "rooted binomial tree (broadcast, reduce, gather, scatter): log2(n) levels";
  spec.implements = {CollectiveKind::kBroadcast, CollectiveKind::kReduce, CollectiveKind::kGather,
                     CollectiveKind::kScatter};
  spec.create = [](const PhaseContext& context) -> Phase {
    return PluginPhase(std::make_unique<BinomialTreePhase>(context.plan));
  };
  return spec;
}

}  // namespace snr::dsim
