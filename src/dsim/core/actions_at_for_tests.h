// For tests: runs callbacks at given times of an event loop, in the loop's
// order, as a layer outside the model under test would (the system layer
// launching kernels, a test poking a network at a chosen moment).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dsim/core/event_loop.h"

namespace snr::dsim {

class ActionsAt final : public EventHandler {
 public:
  explicit ActionsAt(EventLoop& loop, const std::string& name = "test actions")
      : loop_(loop), id_(loop.add_handler(name, *this)) {}
  // Runs `action` at `time` (the loop's unit).
  void at(TimeNs time, std::function<void()> action) {
    actions_.push_back(std::move(action));
    loop_.schedule(time, id_, Go{static_cast<uint32_t>(actions_.size() - 1)});
  }
  void handle(const Event& event) override { actions_[event.get<Go>().index](); }

 private:
  struct Go {
    static constexpr uint8_t kKind = 1;
    uint32_t index;
  };
  EventLoop& loop_;
  HandlerId id_;
  std::vector<std::function<void()>> actions_;
};

}  // namespace snr::dsim
