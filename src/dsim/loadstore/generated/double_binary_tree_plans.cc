// The double binary tree all-reduce (NCCL's, ncclGetDtree in trees.cc):
// two binary trees over the N GPUs, each reducing and then broadcasting
// half of the data, so every GPU's links carry traffic in both trees.
//
// - Tree 0 is NCCL's btree over ranks: the root is GPU 0 with one child;
//   GPU r's parent flips r's lowest set bit b and sets 2b (or only flips b
//   when that leaves the range), its children are r - b/2 and r + b/2 (the
//   latter shrunk to fit). Tree 1 is tree 0 mirrored (r -> N-1-r) for even
//   N, shifted by one rank for odd N. For even N every GPU is a leaf in one
//   tree and an inner node (or root) in the other; for a power of two the
//   trees are ASTRA-sim's in-order RootMin and RootMax trees.
// - Data. Workgroup (channel) w moves slice w of every chunk; its first
//   half goes through tree 0, the second through tree 1, each in pieces
//   (one per chunk, cut again into `slices_per_step`), so the reduction of
//   one piece overlaps the broadcast of the pieces before it.
// - Up (reduce): a GPU adds what its children sent to its input and stores
//   the sum into its parent's receive slot; the root writes the result to
//   its output and into its children's broadcast slots in the same loop.
//   Down (broadcast): a GPU copies what arrived into its output and its
//   children's slots. As in nccl-tree each direction of each tree runs on
//   its own workgroup (4w + 2·tree + {0: up, 1: down}), so a channel takes
//   four SMs.
// - Receive slots: scratch slots 0..N-1 hold what child 0 sends up (one per
//   piece), N..2N-1 child 1's, 2N..3N-1 what the parent sends down; the two
//   trees use different halves of them. No slot is reused, so no credits,
//   and LL flags are written once.
// - Simple: a piece's wait is followed by a hold, a fenced signal is
//   preceded by one; each child has its own semaphore (a fast child's
//   second piece must not stand for a slow child's first). Before the first
//   store every receiver tells its senders its slots are free. LL: packets,
//   no semaphores.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "dsim/loadstore/generated/plan_builder.h"
#include "dsim/loadstore/generated/plan_generator.h"

namespace snr::dsim::loadstore {
namespace {

constexpr uint32_t kNoRank = UINT32_MAX;

struct TreeLinks {
  uint32_t parent = kNoRank;
  std::array<uint32_t, 2> children{kNoRank, kNoRank};
};

// NCCL's ncclGetBtree.
TreeLinks btree(uint32_t n, uint32_t rank) {
  uint32_t bit = 1;
  while (bit < n && (bit & rank) == 0) bit <<= 1;
  TreeLinks links;
  if (rank == 0) {
    if (n > 1) links.children[1] = bit >> 1;
    return links;
  }
  uint32_t up = (rank ^ bit) | (bit << 1);
  if (up >= n) up = rank ^ bit;
  links.parent = up;
  uint32_t low = bit >> 1;
  if (low != 0) links.children[0] = rank - low;
  while (low != 0 && rank + low >= n) low >>= 1;
  if (low != 0) links.children[1] = rank + low;
  return links;
}

// Tree `tree` (0 or 1) of NCCL's ncclGetDtree.
TreeLinks dtree(uint32_t n, uint32_t rank, uint32_t tree) {
  if (tree == 0) return btree(n, rank);
  const bool mirror = n % 2 == 0;
  auto to_tree = [&](uint32_t r) { return mirror ? n - 1 - r : (r + n - 1) % n; };
  auto from_tree = [&](uint32_t r) { return r == kNoRank ? kNoRank : mirror ? n - 1 - r : (r + 1) % n; };
  const TreeLinks t = btree(n, to_tree(rank));
  return TreeLinks{from_tree(t.parent), {from_tree(t.children[0]), from_tree(t.children[1])}};
}

class TreeChannel {
 public:
  TreeChannel(PlanBuilder& b, uint32_t rank, uint32_t channel, uint32_t tree)
      : b_(b), n_(b.gpus()), me_(rank), channel_(channel), tree_(tree),
        simple_(b.options().protocol == Protocol::kSimple),
        pieces_(std::max<uint32_t>(1, b.options().slices_per_step)), links_(dtree(n_, rank, tree)) {
    for (uint32_t c : links_.children) {
      if (c != kNoRank) children_.push_back(c);
    }
  }

  void up() {
    begin(up_workgroup());
    const bool root = links_.parent == kNoRank;
    if (simple_) {
      for (uint32_t c : links_.children) {
        if (c != kNoRank) b_.notify(c, up_workgroup(), "free up", true);
      }
      if (!root) wait("free up", 1, "parent's slots free");
      if (root) wait("free down", static_cast<uint32_t>(children_.size()), "children's slots free");
    }
    for_each_piece([&](uint64_t k) {
      std::vector<Region> loads;
      for (uint32_t i = 0; i < 2; ++i) {
        if (links_.children[i] == kNoRank) continue;
        if (simple_) b_.await(fmt::format("up {}", i), 1);
        loads.push_back(slot(me_, i * uint64_t{n_} + k));
      }
      if (simple_ && !loads.empty()) b_.hold("children's pieces arrived");
      loads.push_back(b_.chunk(me_, Space::kInput, k));
      if (!root) {
        const Region to = slot(links_.parent, child_index(links_.parent) * uint64_t{n_} + k);
        if (loads.size() == 1) {
          b_.copy(loads[0], to, "send");
        } else {
          b_.load_store(loads, {to}, true, "recvReduceSend");
        }
        signal(links_.parent, up_workgroup(), fmt::format("up {}", child_index(links_.parent)));
        return;
      }
      std::vector<Region> stores{b_.chunk(me_, Space::kOutput, k)};
      for (uint32_t c : children_) stores.push_back(slot(c, 2 * uint64_t{n_} + k));
      b_.load_store(loads, stores, loads.size() > 1, "recvReduceCopySend");
      for (uint32_t c : children_) signal(c, down_workgroup(), "down");
    });
    b_.end_workgroup();
  }

  // The root has no down workgroup: its up workgroup starts the broadcast.
  void down() {
    if (links_.parent == kNoRank) return;
    begin(down_workgroup());
    if (simple_) {
      const uint32_t parent = links_.parent;
      const bool parent_is_root = dtree(n_, parent, tree_).parent == kNoRank;
      b_.notify(parent, parent_is_root ? up_workgroup() : down_workgroup(), "free down", true);
      if (!children_.empty()) wait("free down", static_cast<uint32_t>(children_.size()), "children's slots free");
    }
    for_each_piece([&](uint64_t k) {
      if (simple_) wait("down", 1, "parent's piece arrived");
      const Region from = slot(me_, 2 * uint64_t{n_} + k);
      std::vector<Region> stores{b_.chunk(me_, Space::kOutput, k)};
      for (uint32_t c : children_) stores.push_back(slot(c, 2 * uint64_t{n_} + k));
      if (stores.size() == 1) {
        b_.copy(from, stores[0], "recv");
      } else {
        b_.load_store({from}, stores, false, "recvCopySend");
      }
      for (uint32_t c : children_) signal(c, down_workgroup(), "down");
    });
    b_.end_workgroup();
  }

 private:
  uint32_t up_workgroup() const { return 4 * channel_ + 2 * tree_; }
  uint32_t down_workgroup() const { return up_workgroup() + 1; }
  // Which child of `parent` this GPU is: the slot it sends up into.
  uint32_t child_index(uint32_t parent) const {
    return dtree(n_, parent, tree_).children[0] == me_ ? 0 : 1;
  }
  // This tree's half of the channel's slice (for handshakes covering it).
  void select_half() {
    b_.select_slice(channel_, b_.options().workgroups);
    b_.select_piece(tree_, 2);
  }
  void begin(uint32_t workgroup) {
    b_.begin_workgroup(me_, workgroup);
    select_half();
  }
  template <typename Fn>
  void for_each_piece(Fn&& fn) {
    for (uint64_t k = 0; k < n_; ++k) {
      for (uint32_t p = 0; p < pieces_; ++p) {
        b_.select_slice(channel_, b_.options().workgroups);
        b_.select_piece(uint64_t{tree_} * pieces_ + p, 2 * uint64_t{pieces_});
        fn(k);
      }
    }
  }
  void wait(std::string_view purpose, uint32_t times, std::string_view why) {
    if (times == 0) return;
    b_.await(purpose, times);
    b_.hold(why);
  }
  void signal(uint32_t peer, uint32_t peer_workgroup, std::string_view purpose) {
    if (!simple_) return;
    b_.hold("piece stored");
    b_.notify(peer, peer_workgroup, purpose, false);
  }
  Region slot(uint32_t gpu, uint64_t index) const { return b_.protocol_slot(gpu, index); }

  PlanBuilder& b_;
  uint32_t n_, me_, channel_, tree_;
  bool simple_;
  uint32_t pieces_;
  TreeLinks links_;
  std::vector<uint32_t> children_;
};

class DoubleBinaryTreePlanAlgorithm final : public PlanAlgorithm {
 public:
  std::string_view name() const override { return "double-binary-tree"; }
  std::string_view summary() const override {
    return "double binary tree all-reduce: two complementary trees each reduce and broadcast half the data, "
           "pipelined in pieces";
  }
  std::vector<std::string_view> collectives() const override { return {kAllReduce}; }
  bool supports(Transfer transfer, Protocol protocol) const override {
    return transfer == Transfer::kPut && protocol != Protocol::kLL128;
  }
  std::vector<PlanParameter> parameters() const override {
    return {{"gpus", "any N >= 2: NCCL's btree and its mirror (even N) or shift (odd N)"},
            {"workgroups", "channels: slice w of every chunk, half per tree, on four workgroups (up and down "
                           "per tree)"},
            {"buffer_bytes", "cut into one chunk per GPU; a chunk's half is a tree's pipeline piece"},
            {"protocol", "Simple (signal per piece) or LL (packets)"},
            {"slices_per_step", "pieces per chunk and tree (default 1)"}};
  }
  uint64_t bytes_per_step(const GeneratedPlanOptions& options) const override {
    return options.buffer_bytes / options.gpus / 2 / std::max<uint32_t>(1, options.slices_per_step);
  }

  void expand(const GeneratedPlanOptions& options, PlanBuilder& b) const override {
    const uint32_t n = options.gpus;
    b.set_scratch_bytes(3 * uint64_t{n} * b.chunk_bytes());
    for (uint32_t gpu = 0; gpu < n; ++gpu) {
      for (uint32_t w = 0; w < options.workgroups; ++w) {
        for (uint32_t tree = 0; tree < 2; ++tree) {
          TreeChannel c(b, gpu, w, tree);
          c.up();
          c.down();
        }
      }
    }
  }
};

}  // namespace

std::unique_ptr<PlanAlgorithm> make_double_binary_tree_plan_algorithm() {
  return std::make_unique<DoubleBinaryTreePlanAlgorithm>();
}

}  // namespace snr::dsim::loadstore
