#include "rsp/server.h"

#include <gtest/gtest.h>

#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "common/error.h"
#include "rsp/busy.h"

#include "rsp/client.h"
#include "rsp/fake_target.h"

namespace snr::rsp {
namespace {

const std::function<bool()> kNever = [] { return false; };

TEST(PacketHandler, AnswersTheCoreRequests) {
  testing::FakeTarget target;
  PacketHandler handler(target);
  EXPECT_NE(handler.handle("qSupported:multiprocess+", kNever).reply.find("QStartNoAckMode+"), std::string::npos);
  EXPECT_EQ(handler.handle("qfThreadInfo", kNever).reply, "m1,2");
  EXPECT_EQ(handler.handle("qsThreadInfo", kNever).reply, "l");
  EXPECT_EQ(handler.handle("Hg2", kNever).reply, "OK");
  EXPECT_EQ(handler.handle("qC", kNever).reply, "QC2");
  EXPECT_EQ(handler.handle("Hg9", kNever).reply, "E02");
  EXPECT_EQ(handler.handle("T2", kNever).reply, "OK");
  EXPECT_EQ(handler.handle("T7", kNever).reply, "E02");
  EXPECT_EQ(handler.handle("P20=0010000000000000", kNever).reply, "OK");
  EXPECT_EQ(handler.handle("p20", kNever).reply, "0010000000000000");
  EXPECT_EQ(handler.handle("vCont?", kNever).reply, "vCont;c;C;s;S");
  EXPECT_EQ(handler.handle("vCont;s:2;c", kNever).reply, "T0520:0410000000000000;thread:2;");
  EXPECT_EQ(handler.handle("M1000,2:abcd", kNever).reply, "OK");
  EXPECT_EQ(handler.handle("m1000,3", kNever).reply, "abcd00");
  EXPECT_EQ(handler.handle("Z0,2000,4", kNever).reply, "OK");
  EXPECT_EQ(handler.handle("Z2,2000,4", kNever).reply, "");  // watchpoints: unsupported
  EXPECT_EQ(handler.handle("qXfer:features:read:target.xml:0,10", kNever).reply[0], 'm');
  EXPECT_EQ(handler.handle("qXfer:features:read:other.xml:0,10", kNever).reply, "E00");
  EXPECT_EQ(handler.handle("qXfer:features:read:target.xml:100000,10", kNever).reply, "l");
  EXPECT_EQ(handler.handle("D", kNever).reply, "OK");
  EXPECT_TRUE(handler.handle("D", kNever).end_session);
}

TEST(PacketHandler, MalformedRequestsGetErrorsNotCrashes) {
  testing::FakeTarget target;
  PacketHandler handler(target);
  for (const char* bad : {"m", "m1000", "m1000,", "mzz,1", "M1000,2:abc", "M1000,3:abcd", "p", "pxyz", "P1",
                          "P1=zz", "Hgzz", "vCont;x", "vCont;s:zz", "vCont", "Z0", "Z0,zz", "s1000", "c1000",
                          "qXfer:features:read:target.xml", "G0"}) {
    const std::string reply = handler.handle(bad, kNever).reply;
    ASSERT_FALSE(reply.empty()) << bad;
    EXPECT_EQ(reply[0], 'E') << bad << " -> " << reply;
  }
  EXPECT_EQ(handler.handle("m0,4", kNever).reply, "E03");  // unmapped
  EXPECT_EQ(handler.handle("jzzy", kNever).reply, "");     // unknown: empty reply
}

TEST(PacketHandler, BinaryReadsCarryRawBytes) {
  testing::FakeTarget target;
  PacketHandler handler(target);
  EXPECT_NE(handler.handle("qSupported", kNever).reply.find("binary-upload+"), std::string::npos);
  // '}', '#', '$', '*' and NUL: the reply carries them raw; framing escapes.
  ASSERT_EQ(handler.handle("M1000,5:7d23242a00", kNever).reply, "OK");
  const std::string reply = handler.handle("x1000,5", kNever).reply;
  EXPECT_EQ(reply, std::string("b}#$*\0", 6));
  std::vector<Incoming> decoded;
  PacketDecoder decoder;
  decoder.feed(frame_packet(reply), decoded);
  ASSERT_EQ(decoded.size(), 1u);
  EXPECT_EQ(decoded[0].payload, reply);
  EXPECT_EQ(handler.handle("x1000,0", kNever).reply, "b");
  // Longer than the memory: the target refuses; longer than one reply: shortened.
  EXPECT_EQ(handler.handle("x1ffc,8", kNever).reply, "E03");
  EXPECT_EQ(handler.handle("x0,4", kNever).reply, "E03");
}

TEST(PacketHandler, MalformedBinaryReadsGetE01) {
  testing::FakeTarget target;
  PacketHandler handler(target);
  for (const char* bad : {"x", "x1000", "x1000,", "x,4", "xzz,1", "x1000,zz", "x1000;4", "x-1,4",
                          "x10000000000000000,1", "x1000,10000000000000000"}) {
    EXPECT_EQ(handler.handle(bad, kNever).reply, "E01") << bad;
  }
  // A huge length is clamped to one reply, never allocated whole.
  const std::string reply = handler.handle("x1000,ffffffffffffffff", kNever).reply;
  EXPECT_EQ(reply, "E03");  // the fake target has 4 KiB, so even the clamped length is unmapped
}

TEST(Session, PipelinedRequestsAreAnsweredInOrder) {
  testing::FakeTarget target;
  Listener listener("127.0.0.1", 0);
  std::thread server([&] {
    Connection connection = listener.accept(std::chrono::milliseconds(10000));
    if (connection.is_open()) serve_connection(connection, target);
  });
  {
    Client client(connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000)),
                  std::chrono::milliseconds(5000));
    EXPECT_THROW(client.queue_request("g"), Error);  // ack mode: not allowed
    client.handshake();
    EXPECT_TRUE(client.supports_binary_read());
    const uint64_t before = client.round_trips();
    client.queue_request("vCont;s:1");
    client.queue_request("vCont;s:2");
    client.queue_request("x1000,4");
    client.queue_request("vCont;s:1");
    EXPECT_EQ(client.outstanding(), 4u);
    EXPECT_THROW(client.request("g"), Error);  // replies still unread
    EXPECT_EQ(parse_stop_reply(client.receive_reply(std::chrono::milliseconds(5000))).thread.value(), 1u);
    EXPECT_EQ(parse_stop_reply(client.receive_reply(std::chrono::milliseconds(5000))).thread.value(), 2u);
    EXPECT_EQ(client.receive_reply(std::chrono::milliseconds(5000)), std::string("b\0\0\0\0", 5));
    const StopReply last = parse_stop_reply(client.receive_reply(std::chrono::milliseconds(5000)));
    EXPECT_EQ(last.thread.value(), 1u);
    EXPECT_EQ(last.registers.at(0).second, (std::vector<uint8_t>{8, 0, 0, 0, 0, 0, 0, 0}));  // stepped twice
    EXPECT_EQ(client.round_trips() - before, 1u);  // all four left in one write
    EXPECT_THROW(client.receive_reply(std::chrono::milliseconds(100)), Error);
    EXPECT_EQ(client.request("D"), "OK");
  }
  server.join();
}

TEST(Session, ClientAndServerTalkOverLoopback) {
  testing::FakeTarget target;
  Listener listener("127.0.0.1", 0);
  ASSERT_NE(listener.port(), 0);
  SessionEnd end = SessionEnd::kDisconnected;
  std::thread server([&] {
    Connection connection = listener.accept(std::chrono::milliseconds(10000));
    if (connection.is_open()) end = serve_connection(connection, target);
  });
  {
    Client client(connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000)),
                  std::chrono::milliseconds(5000));
    client.handshake();
    EXPECT_TRUE(client.no_ack());
    EXPECT_TRUE(client.supports_vcont_step());
    TargetDescription description = client.read_target_description();
    EXPECT_EQ(description.architecture, "riscv:rv64");
    ASSERT_NE(description.find("pc"), nullptr);
    EXPECT_EQ(description.find("pc")->regnum, 32u);
    StopReply stop = parse_stop_reply(client.request("vCont;s:1"));
    EXPECT_EQ(stop.thread.value(), 1u);
    // A corrupted packet in no-ack mode gets an error reply, and the
    // session goes on.
    EXPECT_EQ(client.request("m1000,zz"), "E01");
    EXPECT_EQ(client.request("D"), "OK");
  }
  server.join();
  EXPECT_EQ(end, SessionEnd::kDetached);
}

TEST(Session, AckModeAndBadChecksumsAreHandled) {
  testing::FakeTarget target;
  Listener listener("127.0.0.1", 0);
  std::thread server([&] {
    Connection connection = listener.accept(std::chrono::milliseconds(10000));
    if (connection.is_open()) serve_connection(connection, target);
  });
  Connection raw = connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000));
  raw.send_all("$g#00");  // wrong checksum
  std::string got;
  for (int i = 0; i < 50 && got.find('-') == std::string::npos; ++i) got += raw.receive(std::chrono::milliseconds(100));
  EXPECT_NE(got.find('-'), std::string::npos);
  raw.send_all(frame_packet(std::string(kMaxPayloadBytes + 10, 'm')));  // oversized
  got.clear();
  for (int i = 0; i < 50 && got.find("E01") == std::string::npos; ++i) got += raw.receive(std::chrono::milliseconds(100));
  EXPECT_NE(got.find("$E01#"), std::string::npos);
  raw.send_all(frame_packet("k"));
  server.join();
  EXPECT_TRUE(target.killed);
}

TEST(Session, ASilentDebuggerEndsTheSessionAfterTheIdleTimeout) {
  testing::FakeTarget target;
  Listener listener("127.0.0.1", 0);
  SessionEnd end = SessionEnd::kDetached;
  std::thread server([&] {
    Connection connection = listener.accept(std::chrono::milliseconds(10000));
    if (connection.is_open()) {
      end = serve_connection(connection, target, nullptr, {.idle_timeout = std::chrono::milliseconds(200)});
    }
  });
  Connection raw = connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000));
  raw.send_all("$qSupp");  // half a packet, then silence
  server.join();
  EXPECT_EQ(end, SessionEnd::kIdleTimeout);
  EXPECT_EQ(session_end_name(end), "idle for too long (disconnected)");
  // The server closed its side: the client sees the end of the stream.
  std::string rest;
  EXPECT_THROW(
      {
        for (int i = 0; i < 50; ++i) rest += raw.receive(std::chrono::milliseconds(100));
      },
      Error);
}

TEST(Session, ADebuggerThatKeepsTalkingIsNotIdle) {
  testing::FakeTarget target;
  Listener listener("127.0.0.1", 0);
  SessionEnd end = SessionEnd::kIdleTimeout;
  std::thread server([&] {
    Connection connection = listener.accept(std::chrono::milliseconds(10000));
    if (connection.is_open()) {
      end = serve_connection(connection, target, nullptr, {.idle_timeout = std::chrono::milliseconds(1000)});
    }
  });
  {
    Client client(connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000)),
                  std::chrono::milliseconds(5000));
    client.handshake();
    for (int i = 0; i < 5; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(300));
      EXPECT_EQ(client.request("qC"), "QC1");
    }
    EXPECT_EQ(client.request("D"), "OK");
  }
  server.join();
  EXPECT_EQ(end, SessionEnd::kDetached);
}

TEST(BusyRejecter, ASecondClientIsToldTheServerIsBusyAndClosed) {
  Listener listener("127.0.0.1", 0);
  std::vector<std::string> log;
  std::mutex log_mutex;
  std::optional<BusyRejecter> busy;
  busy.emplace(listener, "busy: a debugger from 127.0.0.1:1 is connected", [&](const std::string& line) {
    const std::lock_guard lock(log_mutex);
    log.push_back(line);
  });
  for (int i = 0; i < 20; ++i) {
    Connection second = connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000));
    second.send_all(frame_packet("qSupported:multiprocess+"));
    std::string got;
    bool closed = false;
    for (int tries = 0; tries < 100 && !closed; ++tries) {
      try {
        got += second.receive(std::chrono::milliseconds(50));
      } catch (const Error&) {
        closed = true;
      }
    }
    EXPECT_EQ(got, frame_packet("E.busy: a debugger from 127.0.0.1:1 is connected"));
    EXPECT_TRUE(closed);
  }
  EXPECT_EQ(busy->refused(), 20u);
  busy.reset();  // stops accepting and joins
  const std::lock_guard lock(log_mutex);
  ASSERT_EQ(log.size(), 20u);
  EXPECT_NE(log[0].find("refused debugger from 127.0.0.1:"), std::string::npos) << log[0];
  // Stopped: the listener is the owner's again.
  Connection third = connect_tcp({"127.0.0.1", listener.port()}, std::chrono::milliseconds(5000));
  EXPECT_TRUE(listener.accept(std::chrono::milliseconds(2000)).is_open());
}

TEST(Socket, LoopbackAddresses) {
  EXPECT_TRUE(is_loopback_address("127.0.0.1"));
  EXPECT_TRUE(is_loopback_address("127.1.2.3"));
  EXPECT_TRUE(is_loopback_address("localhost"));
  EXPECT_FALSE(is_loopback_address("0.0.0.0"));
  EXPECT_FALSE(is_loopback_address("192.168.1.4"));
  EXPECT_FALSE(is_loopback_address("128.0.0.1"));
  EXPECT_FALSE(is_loopback_address("not an address"));
}

}  // namespace
}  // namespace snr::rsp
