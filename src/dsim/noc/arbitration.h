// Link arbitration between the control and data messages waiting for one
// link, chosen by name from the network config (seed 003 §5.2: with plain
// first-come order, a get's control requests queue behind data responses;
// fair arbitration between the two classes narrows that gap).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace snr::dsim::noc {

// What an arbiter sees of a link's two queues (class 0 control, 1 data).
struct QueueHeads {
  bool waiting[2] = {false, false};
  uint64_t sequence[2] = {0, 0};  // arrival order of each queue's head
  uint8_t last_class = 1;         // the class the link sent last
};

class Arbiter {
 public:
  virtual ~Arbiter() = default;
  // The class to send next; at least one queue is waiting.
  [[nodiscard]] virtual uint8_t pick(const QueueHeads& heads) const = 0;
};

std::unique_ptr<Arbiter> make_arbiter(std::string_view name);
bool has_arbiter(std::string_view name);
std::string arbiter_names();

}  // namespace snr::dsim::noc
