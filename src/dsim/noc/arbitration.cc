#include "dsim/noc/arbitration.h"

#include <fmt/format.h>

#include <functional>
#include <map>

#include "common/error.h"

namespace snr::dsim::noc {

namespace {

uint8_t only_waiting(const QueueHeads& h) {
  return h.waiting[0] ? 0 : 1;
}

// First come, first served across both classes.
class FifoArbiter final : public Arbiter {
 public:
  uint8_t pick(const QueueHeads& h) const override {
    if (!(h.waiting[0] && h.waiting[1])) return only_waiting(h);
    return h.sequence[0] < h.sequence[1] ? 0 : 1;
  }
};

// Round robin between the classes: when both wait, the one not sent last.
class FairArbiter final : public Arbiter {
 public:
  uint8_t pick(const QueueHeads& h) const override {
    if (!(h.waiting[0] && h.waiting[1])) return only_waiting(h);
    return h.last_class == 0 ? 1 : 0;
  }
};

// Control messages always first (small, and they unblock whole lines of data).
class ControlFirstArbiter final : public Arbiter {
 public:
  uint8_t pick(const QueueHeads& h) const override { return h.waiting[0] ? 0 : 1; }
};

const std::map<std::string, std::function<std::unique_ptr<Arbiter>()>, std::less<>>& registry() {
  static const std::map<std::string, std::function<std::unique_ptr<Arbiter>()>, std::less<>> known{
      {"fifo", [] { return std::make_unique<FifoArbiter>(); }},
      {"fair", [] { return std::make_unique<FairArbiter>(); }},
      {"control_first", [] { return std::make_unique<ControlFirstArbiter>(); }},
  };
  return known;
}

}  // namespace

bool has_arbiter(std::string_view name) {
  return registry().contains(name);
}

std::string arbiter_names() {
  std::string names;
  for (const auto& [name, make] : registry()) names += (names.empty() ? "" : ", ") + name;
  return names;
}

std::unique_ptr<Arbiter> make_arbiter(std::string_view name) {
  auto it = registry().find(name);
  if (it == registry().end()) throw Error(fmt::format("unknown arbitration '{}' (known: {})", name, arbiter_names()));
  return it->second();
}

}  // namespace snr::dsim::noc
