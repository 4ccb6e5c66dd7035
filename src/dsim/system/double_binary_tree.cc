#include "dsim/system/double_binary_tree.h"

#include <fmt/format.h>

#include <bit>

#include "common/error.h"
#include "dsim/system/algorithm_registry.h"

namespace snr::dsim {
namespace {

// Links of in-order index j in a perfect binary tree of 2^levels - 1 nodes
// (1-based x = j + 1; a node of height h has children x -/+ 2^(h-1) and is
// a left child when bit h+1 of x is clear).
struct PerfectTreeLinks {
  int64_t parent = -1;  // -1: the perfect tree's own root
  int64_t left = -1;
  int64_t right = -1;
};

PerfectTreeLinks perfect_tree_links(uint32_t j, uint32_t levels) {
  const uint64_t x = uint64_t{j} + 1;
  const int h = std::countr_zero(x);
  PerfectTreeLinks links;
  if (h > 0) {
    links.left = static_cast<int64_t>(x - (uint64_t{1} << (h - 1))) - 1;
    links.right = static_cast<int64_t>(x + (uint64_t{1} << (h - 1))) - 1;
  }
  if (static_cast<uint32_t>(h) + 1 < levels) {
    const bool is_left_child = ((x >> (h + 1)) & 1) == 0;
    const uint64_t parent = is_left_child ? x + (uint64_t{1} << h) : x - (uint64_t{1} << h);
    links.parent = static_cast<int64_t>(parent) - 1;
  }
  return links;
}

}  // namespace

DoubleBinaryTreePhase::DoubleBinaryTreePhase(const PhasePlan& plan, bool use_min_tree)
    : ring_(plan.ring), bytes_(plan.input_bytes) {
  const uint32_t n = ring_.size;
  if (plan.kind != CollectiveKind::kAllReduce) {
    // Collectives of other kinds are refused before they start, and an
    // all-reduce's split phases are planned as all-reduces.
    throw Error(fmt::format("doubleBinaryTree implements all-reduce only, not {}", collective_name(plan.kind)));
  }
  if (n < 2 || (n & (n - 1)) != 0) {
    throw Error(fmt::format("doubleBinaryTree needs a power-of-two number of NPUs per phase, got {}", n));
  }
  const auto levels = static_cast<uint32_t>(std::countr_zero(n));  // perfect tree of n-1 nodes
  const uint32_t pos = ring_.my_position;
  // In-order positions: RootMax puts the perfect tree at 0..n-2 and the
  // root last; RootMin puts the root first and the tree at 1..n-1.
  const uint32_t root = use_min_tree ? 0 : n - 1;
  const int64_t offset = use_min_tree ? 1 : 0;
  const int64_t subtree_root = static_cast<int64_t>((uint64_t{1} << (levels - 1)) - 1) + offset;
  if (pos == root) {
    role_ = Role::kRoot;
    (use_min_tree ? right_child_ : left_child_) = subtree_root;
    return;
  }
  const PerfectTreeLinks links = perfect_tree_links(static_cast<uint32_t>(pos - offset), levels);
  parent_ = links.parent < 0 ? root : links.parent + offset;
  left_child_ = links.left < 0 ? -1 : links.left + offset;
  right_child_ = links.right < 0 ? -1 : links.right + offset;
  role_ = left_child_ < 0 ? Role::kLeaf : Role::kInner;
}

void DoubleBinaryTreePhase::start(uint32_t stream, PhaseActions& actions) { step(stream, false, actions); }
void DoubleBinaryTreePhase::on_packet_ready(uint32_t stream, PhaseActions& actions) { step(stream, false, actions); }
void DoubleBinaryTreePhase::on_packet_received(uint32_t stream, PhaseActions& actions) {
  step(stream, true, actions);
}

void DoubleBinaryTreePhase::step(uint32_t stream, bool received, PhaseActions& actions) {
  const auto npu = [&](int64_t position) { return ring_.member(static_cast<uint32_t>(position)); };
  switch (role_) {
    case Role::kLeaf:
      switch (state_) {
        case State::kBegin:
          state_ = State::kSendingToParent;
          actions.process_packet(stream, false, bytes_);
          return;
        case State::kSendingToParent:
          state_ = State::kWaitingForParent;
          actions.send(stream, npu(parent_), bytes_);
          actions.post_recv(stream, npu(parent_), bytes_);
          return;
        case State::kWaitingForParent:
          state_ = State::kEnd;
          actions.process_packet(stream, false, bytes_);
          return;
        case State::kEnd:
          actions.phase_finished(stream);  // replaces this phase: touch nothing after
          return;
        default: break;
      }
      break;
    case Role::kInner:
      if (state_ == State::kBegin) {
        state_ = State::kWaitingForTwoChildren;
        actions.post_recv(stream, npu(left_child_), bytes_);
        actions.post_recv(stream, npu(right_child_), bytes_);
        return;
      }
      if (received && state_ == State::kWaitingForTwoChildren) {
        state_ = State::kWaitingForOneChild;
        actions.process_packet(stream, true, bytes_);
        return;
      }
      if (received && state_ == State::kWaitingForOneChild) {
        state_ = State::kSendingToParent;
        actions.process_packet(stream, true, bytes_);
        return;
      }
      // The first of the two children's reductions only counts.
      if (!received && reductions_ < 1) {
        ++reductions_;
        return;
      }
      if (state_ == State::kSendingToParent) {
        state_ = State::kWaitingForParent;
        actions.send(stream, npu(parent_), bytes_);
        actions.post_recv(stream, npu(parent_), bytes_);
        return;
      }
      if (received && state_ == State::kWaitingForParent) {
        state_ = State::kSendingToChildren;
        actions.process_packet(stream, true, bytes_);
        return;
      }
      if (state_ == State::kSendingToChildren) {
        actions.send(stream, npu(left_child_), bytes_);
        actions.send(stream, npu(right_child_), bytes_);
        actions.phase_finished(stream);  // replaces this phase: touch nothing after
        return;
      }
      break;
    case Role::kRoot: {
      const int64_t child = left_child_ >= 0 ? left_child_ : right_child_;
      if (state_ == State::kBegin) {
        state_ = State::kWaitingForOneChild;
        actions.post_recv(stream, npu(child), bytes_);
        return;
      }
      if (state_ == State::kWaitingForOneChild) {
        state_ = State::kSendingToChildren;
        actions.process_packet(stream, true, bytes_);
        return;
      }
      if (state_ == State::kSendingToChildren) {
        actions.send(stream, npu(child), bytes_);
        actions.phase_finished(stream);  // replaces this phase: touch nothing after
        return;
      }
      break;
    }
  }
  // ASTRA-sim ignores events its state machine has no transition for.
}

CollectiveAlgorithmSpec double_binary_tree_algorithm_spec() {
  CollectiveAlgorithmSpec spec;
  spec.name = "doubleBinaryTree";
  spec.summary = "two in-order binary trees used alternately, all-reduce on power-of-two phases";
  spec.implements = {CollectiveKind::kAllReduce};
  spec.all_reduce_in_split_phases = true;
  spec.create = [](const PhaseContext& context) -> Phase {
    // ASTRA-sim hands out its two trees alternately, per NPU and dimension.
    return DoubleBinaryTreePhase(context.plan, context.plan.earlier_in_queue % 2 == 1);
  };
  return spec;
}

}  // namespace snr::dsim
