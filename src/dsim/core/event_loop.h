// The simulator's main loop: one event queue and the handlers the layers
// register on it. Each layer (workload, system, network backend, ...) adds
// itself once with add_handler and schedules its events with the id it got
// back; run() hands every event, in (time, scheduling order), to the handler
// it names. Core knows no layer and no event type.
//
// Why handlers may loop themselves: a handler is reached through one
// virtual call per event, which is cheap, but it is also a wall for the
// optimizer. A layer whose hot path is a chain of its own events (the
// collective engine: endpoint delay, reduction, message arrival, next send)
// keeps going with `next_for(id, event)` while the next event is its own,
// so that chain compiles into one function. The order of events is the
// queue's either way.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dsim/core/event.h"
#include "dsim/core/event_queue.h"

namespace snr::dsim {

class EventHandler {
 public:
  virtual ~EventHandler() = default;
  // One event of this handler (time == the loop's now).
  virtual void handle(const Event& event) = 0;
};

class EventLoop {
 public:
  static constexpr size_t kMaxHandlers = 255;

  // Registers a handler; `name` identifies it in errors. The handler must
  // outlive every run(). Throws snr::Error beyond kMaxHandlers.
  HandlerId add_handler(std::string_view name, EventHandler& handler);

  template <EventPayload T>
  [[gnu::always_inline]] void schedule(TimeNs time_ns, HandlerId handler, const T& payload) {
    queue_.schedule(time_ns, handler, payload);
  }
  // An event of one NPU's same-tick batch (event_queue.h, "Batches"): the
  // system layers' own events, which ASTRA-sim runs per system and tick.
  template <EventPayload T>
  [[gnu::always_inline]] void schedule_batched(TimeNs time_ns, NpuId npu, HandlerId handler, const T& payload) {
    queue_.schedule_batched(time_ns, npu, handler, payload);
  }
  // Reserved sequence numbers (event_queue.h): an event that may not be
  // needed keeps the place it would have had among same-time events.
  [[nodiscard]] uint64_t reserve_sequence() { return queue_.reserve_sequence(); }
  template <EventPayload T>
  [[gnu::always_inline]] void schedule_reserved(TimeNs time_ns, uint64_t sequence, HandlerId handler,
                                                const T& payload) {
    queue_.schedule_reserved(time_ns, sequence, handler, payload);
  }
  [[nodiscard]] bool after_current(TimeNs time_ns, uint64_t sequence) const {
    return queue_.after_current(time_ns, sequence);
  }
  // Hands `payload` to `handler` now, without going through the queue (a
  // zero-time delivery that must not be reordered behind pending events).
  template <EventPayload T>
  void deliver_now(HandlerId handler, const T& payload) {
    ++nested_;
    handlers_[handler].handler->handle(
        Event{queue_.now(), EventData::of(payload), handler, static_cast<uint8_t>(T::kKind)});
    --nested_;
  }
  // For a handler inside run(): pops the next event into `event` when it is
  // for `handler` too (see above). Never inside deliver_now, whose caller
  // has not finished its own event yet.
  [[gnu::always_inline]] bool next_for(HandlerId handler, Event& event) {
    return nested_ == 0 && queue_.pop_if_for(handler, event);
  }
  // The same rule for a handler that checks once and then pops with
  // queue().pop_if_for (nothing changes it while the handler runs).
  [[nodiscard]] bool delivering_now() const { return nested_ != 0; }

  // Runs events until none is left.
  void run();
  // Runs the events at times <= `limit` (a loop co-simulated under another
  // clock, gpu/memory_network.h's picosecond loop under `snr sim`'s
  // nanoseconds); later ones stay queued.
  void run_until(TimeNs limit);

  [[nodiscard]] TimeNs now() const { return queue_.now(); }
  [[nodiscard]] EventQueue& queue() { return queue_; }
  [[nodiscard]] const EventQueue& queue() const { return queue_; }
  [[nodiscard]] uint64_t events_processed() const { return queue_.events_processed(); }
  [[nodiscard]] std::string_view handler_name(HandlerId id) const;
  [[nodiscard]] size_t handler_count() const { return handlers_.size(); }

 private:
  struct Entry {
    EventHandler* handler;
    std::string name;
  };
  EventQueue queue_;
  std::vector<Entry> handlers_;
  uint32_t nested_ = 0;  // deliver_now calls (and run_until) in progress
};

// The error a handler throws for an event kind it does not know.
[[noreturn]] void throw_unknown_event(std::string_view handler_name, const Event& event);

}  // namespace snr::dsim
