// One simulator event: a time, the handler (layer) it is for, and a small
// typed payload. Each layer defines its event types as plain structs with a
// `kKind` number unique among that handler's kinds; the queue stores them in
// 16 bytes without knowing them, and the handler reads them back with
// `event.get<T>()`, which checks the kind in debug builds. Nothing in core
// knows any layer's event types.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <type_traits>

namespace snr::dsim {

using TimeNs = uint64_t;
using NpuId = uint32_t;
// Index of a registered handler in the event loop (see event_loop.h).
using HandlerId = uint8_t;

inline constexpr size_t kEventPayloadBytes = 16;

// An event type: trivially copyable, at most 16 bytes, with its kind.
template <class T>
concept EventPayload = std::is_trivially_copyable_v<T> && sizeof(T) <= kEventPayloadBytes && requires {
  { T::kKind } -> std::convertible_to<uint8_t>;
};

// Two words rather than bytes: copies stay in registers on the hot path.
struct EventData {
  uint64_t words[2] = {0, 0};

  template <EventPayload T>
  static EventData of(const T& payload) {
    EventData data;
    std::memcpy(data.words, &payload, sizeof(T));
    return data;
  }
  template <EventPayload T>
  [[nodiscard]] T as() const {
    T payload;
    std::memcpy(&payload, words, sizeof(T));
    return payload;
  }
};

struct Event {
  TimeNs time_ns = 0;
  EventData data{};
  HandlerId handler = 0;
  uint8_t kind = 0;

  template <EventPayload T>
  [[nodiscard]] T get() const {
    assert(kind == T::kKind);
    return data.as<T>();
  }
};

}  // namespace snr::dsim
