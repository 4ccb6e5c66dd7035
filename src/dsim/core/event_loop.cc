#include "dsim/core/event_loop.h"

#include <fmt/format.h>

#include "common/error.h"

namespace snr::dsim {

HandlerId EventLoop::add_handler(std::string_view name, EventHandler& handler) {
  if (handlers_.size() >= kMaxHandlers) {
    throw Error(fmt::format("event loop: more than {} handlers (adding '{}')", kMaxHandlers, name));
  }
  handlers_.push_back(Entry{&handler, std::string(name)});
  return static_cast<HandlerId>(handlers_.size() - 1);
}

std::string_view EventLoop::handler_name(HandlerId id) const {
  return id < handlers_.size() ? std::string_view(handlers_[id].name) : std::string_view("?");
}

void EventLoop::run() {
  while (!queue_.empty()) {
    const Event event = queue_.pop();
    if (event.handler >= handlers_.size()) {
      throw Error(fmt::format("event loop: event for handler {}, but only {} are registered", event.handler,
                              handlers_.size()));
    }
    handlers_[event.handler].handler->handle(event);
  }
}

void EventLoop::run_until(TimeNs limit) {
  // Handlers that go on with their own next events (next_for, pop_if_for)
  // would not stop at `limit`: counted as nested, they return to this loop
  // after each event (the order is the queue's either way).
  ++nested_;
  struct Unnest {
    uint32_t& nested;
    ~Unnest() { --nested; }
  } unnest{nested_};
  while (!queue_.empty() && queue_.next_time() <= limit) {
    const Event event = queue_.pop();
    if (event.handler >= handlers_.size()) {
      throw Error(fmt::format("event loop: event for handler {}, but only {} are registered", event.handler,
                              handlers_.size()));
    }
    handlers_[event.handler].handler->handle(event);
  }
}

void throw_unknown_event(std::string_view handler_name, const Event& event) {
  throw Error(fmt::format("{}: unexpected event kind {} at {} ns", handler_name, event.kind, event.time_ns));
}

}  // namespace snr::dsim
