// Fuzzes everything that parses bytes from a debugger peer: the packet
// decoder, the request handler (against an in-memory target), stop-reply
// and target-description parsing.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "common/error.h"
#include "rsp/client.h"
#include "rsp/fake_target.h"
#include "rsp/server.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  snr::rsp::PacketDecoder decoder(4096);
  std::vector<snr::rsp::Incoming> items;
  decoder.feed(bytes, items);
  snr::rsp::testing::FakeTarget target;
  snr::rsp::PacketHandler handler(target);
  const std::function<bool()> never = [] { return false; };
  for (const auto& item : items) {
    if (item.kind == snr::rsp::Incoming::Kind::kPacket) handler.handle(item.payload, never);
  }
  handler.handle(bytes, never);
  try {
    snr::rsp::parse_stop_reply(bytes);
  } catch (const snr::Error&) {
  }
  try {
    snr::rsp::parse_feature_document(bytes, "fuzz.xml");
  } catch (const snr::Error&) {
  }
  return 0;
}
