#include "rsp/server.h"

#include <gtest/gtest.h>

#include <thread>

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
  EXPECT_EQ(handler.handle("xyzzy", kNever).reply, "");    // unknown: empty reply
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

}  // namespace
}  // namespace snr::rsp
