#include "dsim/core/event_loop.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/error.h"

namespace snr::dsim {
namespace {

struct Ping {
  static constexpr uint8_t kKind = 1;
  uint32_t id;
};
struct Pong {
  static constexpr uint8_t kKind = 2;
  uint64_t value;
};

// Records (who, id, time) and schedules follow-ups to show the loop's order.
struct Log {
  std::vector<std::string> lines;
};

class Recorder final : public EventHandler {
 public:
  Recorder(std::string name, EventLoop& loop, Log& log) : name_(std::move(name)), log_(log) {
    id_ = loop.add_handler(name_, *this);
  }
  void handle(const Event& event) override {
    if (event.kind == Ping::kKind) {
      log_.lines.push_back(name_ + " ping " + std::to_string(event.get<Ping>().id) + " @" +
                           std::to_string(event.time_ns));
    } else if (event.kind == Pong::kKind) {
      log_.lines.push_back(name_ + " pong " + std::to_string(event.get<Pong>().value) + " @" +
                           std::to_string(event.time_ns));
    } else {
      throw_unknown_event(name_, event);
    }
  }
  [[nodiscard]] HandlerId id() const { return id_; }

 private:
  std::string name_;
  Log& log_;
  HandlerId id_ = 0;
};

// A handler that keeps going with its own events (next_for), as the
// collective engine does; the interleaving must stay the queue's order.
class Greedy final : public EventHandler {
 public:
  Greedy(EventLoop& loop, Log& log) : loop_(loop), log_(log) { id_ = loop.add_handler("greedy", *this); }
  void handle(const Event& first) override {
    Event event = first;
    ++calls;
    do {
      log_.lines.push_back("greedy ping " + std::to_string(event.get<Ping>().id) + " @" +
                           std::to_string(event.time_ns));
    } while (loop_.next_for(id_, event));
  }
  [[nodiscard]] HandlerId id() const { return id_; }
  int calls = 0;

 private:
  EventLoop& loop_;
  Log& log_;
  HandlerId id_ = 0;
};

TEST(EventLoop, DispatchesToTheNamedHandlerInTimeThenSchedulingOrder) {
  EventLoop loop;
  Log log;
  Recorder a("a", loop, log);
  Recorder b("b", loop, log);
  loop.schedule(5, b.id(), Ping{1});
  loop.schedule(3, a.id(), Pong{42});
  loop.schedule(5, a.id(), Ping{2});
  loop.run();
  EXPECT_EQ(log.lines, (std::vector<std::string>{"a pong 42 @3", "b ping 1 @5", "a ping 2 @5"}));
  EXPECT_EQ(loop.events_processed(), 3u);
  EXPECT_EQ(loop.handler_name(b.id()), "b");
}

TEST(EventLoop, AHandlerGoingOnWithItsOwnEventsKeepsTheOrder) {
  EventLoop loop;
  Log log;
  Greedy greedy(loop, log);
  Recorder other("other", loop, log);
  loop.schedule(1, greedy.id(), Ping{1});
  loop.schedule(1, greedy.id(), Ping{2});
  loop.schedule(2, other.id(), Ping{3});
  loop.schedule(2, greedy.id(), Ping{4});
  loop.schedule(9, greedy.id(), Ping{5});
  loop.run();
  EXPECT_EQ(log.lines, (std::vector<std::string>{"greedy ping 1 @1", "greedy ping 2 @1", "other ping 3 @2",
                                                 "greedy ping 4 @2", "greedy ping 5 @9"}));
  EXPECT_EQ(greedy.calls, 2);  // 1, 2 in one call; 4, 5 in the next
}

TEST(EventLoop, DeliverNowDoesNotLetTheHandlerRunAhead) {
  EventLoop loop;
  Log log;
  Greedy greedy(loop, log);
  loop.schedule(0, greedy.id(), Ping{2});
  loop.deliver_now(greedy.id(), Ping{1});  // must not pull event 2 in
  EXPECT_EQ(log.lines, (std::vector<std::string>{"greedy ping 1 @0"}));
  loop.run();
  EXPECT_EQ(log.lines.back(), "greedy ping 2 @0");
}

struct Odd {
  static constexpr uint8_t kKind = 9;
  uint32_t x;
};

TEST(EventLoop, UnknownKindIsAnErrorNamingTheHandler) {
  EventLoop loop;
  Log log;
  Recorder a("the-layer", loop, log);
  loop.schedule(1, a.id(), Odd{0});
  try {
    loop.run();
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("the-layer: unexpected event kind 9"), std::string::npos) << e.what();
  }
}

TEST(EventLoop, EventForAnUnregisteredHandlerIsAnError) {
  EventLoop loop;
  loop.schedule(1, 3, Ping{0});
  EXPECT_THROW(loop.run(), Error);
}

}  // namespace
}  // namespace snr::dsim
