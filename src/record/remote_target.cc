#include "record/remote_target.h"

#include <fmt/format.h>

#include "common/error.h"
#include "rsp/packet.h"

namespace snr::record {
namespace {

bool is_error_reply(const std::string& reply) {
  return reply.size() == 3 && reply[0] == 'E' && rsp::parse_hex_u64(reply.substr(1)).has_value();
}

}  // namespace

RemoteTarget::RemoteTarget(rsp::Client& client, std::chrono::milliseconds run_timeout)
    : client_(client), run_timeout_(run_timeout) {
  client_.handshake();
  // Hex doubles the bytes; binary replies carry them as they are (after
  // 'b'). Leave room for framing either way.
  use_binary_reads(true);
  description_ = client_.read_target_description();
  const rsp::RegisterInfo* pc = description_.find("pc");
  if (pc == nullptr) throw Error("the target description has no register named pc");
  for (uint32_t i = 0; i < 32; ++i) {
    if (i >= description_.registers.size() || description_.registers[i].regnum != i ||
        description_.registers[i].bitsize != 64) {
      throw Error(fmt::format("the target description does not number x{} as register {} with 64 bits "
                              "(expected a riscv:rv64 target)", i, i));
    }
  }
  pc_regnum_ = pc->regnum;
  pc_offset_in_g_ = 0;
  for (const rsp::RegisterInfo& reg : description_.registers) {
    if (reg.regnum >= pc_regnum_) break;
    pc_offset_in_g_ += reg.bitsize / 8;
  }
  for (const rsp::RegisterInfo& reg : description_.registers) {
    if (reg.feature.rfind("org.snr.npu", 0) == 0) snr_device_ = true;
  }
  summary_ = fmt::format("{} ({} registers{})", description_.architecture.empty() ? "?" : description_.architecture,
                         description_.registers.size(), snr_device_ ? ", snr NPU" : "");
  for (std::string reply = client_.request("qfThreadInfo"); ; reply = client_.request("qsThreadInfo")) {
    if (reply.empty() || reply == "l") break;
    if (reply[0] != 'm') throw Error(fmt::format("unexpected thread list reply '{}'", reply));
    std::string_view rest = std::string_view(reply).substr(1);
    while (!rest.empty()) {
      const size_t comma = std::min(rest.find(','), rest.size());
      std::optional<uint32_t> id = rsp::parse_thread_id(rest.substr(0, comma));
      if (!id) throw Error(fmt::format("bad thread id in '{}'", reply));
      threads_.push_back(*id);
      rest.remove_prefix(std::min(comma + 1, rest.size()));
    }
    if (threads_.size() > 4096) throw Error("the stub lists more than 4096 threads");
  }
  if (threads_.empty()) threads_.push_back(1);
  if (snr_device_) {
    const std::string reply = client_.request("qSnr.HwConfig");
    if (!reply.empty() && !is_error_reply(reply)) {
      std::optional<std::vector<uint8_t>> yaml = rsp::hex_decode(reply);
      if (!yaml) throw Error("qSnr.HwConfig reply is not hex");
      hw_config_yaml_.assign(yaml->begin(), yaml->end());
    }
  }
}

void RemoteTarget::use_binary_reads(bool on) {
  binary_read_ = on && client_.supports_binary_read();
  const uint64_t packet_bytes = std::min<uint64_t>(client_.packet_size(), rsp::kMaxPayloadBytes);
  max_read_bytes_ = std::max<uint64_t>(64, binary_read_ ? packet_bytes - 32 : packet_bytes / 2 - 32);
}

void RemoteTarget::select(uint32_t thread) {
  if (selected_ == thread) return;
  const std::string reply = client_.request(fmt::format("Hg{:x}", thread));
  if (reply != "OK") throw Error(fmt::format("selecting thread {}: stub replied '{}'", thread, reply));
  selected_ = thread;
}

std::string RemoteTarget::request_on(uint32_t thread, std::string_view payload) {
  if (selected_ == thread || !client_.no_ack() || client_.outstanding() != 0) {
    select(thread);
    return client_.request(payload);
  }
  client_.queue_request(fmt::format("Hg{:x}", thread));
  client_.queue_request(payload);
  const std::string selected = client_.receive_reply(client_.reply_timeout());
  // The request's reply is read even when the switch failed, so the next
  // request is not answered with it.
  std::string reply = client_.receive_reply(client_.reply_timeout());
  if (selected != "OK") throw Error(fmt::format("selecting thread {}: stub replied '{}'", thread, selected));
  selected_ = thread;
  return reply;
}

RemoteTarget::GeneralRegisters RemoteTarget::read_general(uint32_t thread) {
  ++register_reads_;
  const std::string reply = request_on(thread, "g");
  std::optional<std::vector<uint8_t>> bytes = rsp::hex_decode(reply);
  if (!bytes || bytes->size() < pc_offset_in_g_ + 8) {
    throw Error(fmt::format("thread {}: 'g' reply of {} characters does not hold x0..x31 and pc", thread, reply.size()));
  }
  GeneralRegisters regs;
  for (size_t i = 0; i < 32; ++i) regs.x[i] = rsp::from_le_bytes(std::span<const uint8_t>(bytes->data() + 8 * i, 8));
  regs.pc = rsp::from_le_bytes(std::span<const uint8_t>(bytes->data() + pc_offset_in_g_, 8));
  return regs;
}

std::string RemoteTarget::read_named_register(uint32_t thread, std::string_view name) {
  const rsp::RegisterInfo* reg = description_.find(name);
  if (reg == nullptr) throw Error(fmt::format("the target has no register named '{}'", name));
  ++register_reads_;
  const std::string reply = request_on(thread, fmt::format("p{:x}", reg->regnum));
  std::optional<std::vector<uint8_t>> bytes = rsp::hex_decode(reply);
  if (!bytes || bytes->size() != reg->bitsize / 8) {
    throw Error(fmt::format("thread {}: reading register {}: reply '{}'", thread, name, reply.substr(0, 40)));
  }
  return std::string(bytes->begin(), bytes->end());
}

std::optional<std::string> RemoteTarget::try_read_memory(uint32_t thread, uint64_t address, uint64_t length) {
  std::string out;
  while (out.size() < length) {
    const uint64_t piece = std::min<uint64_t>(length - out.size(), max_read_bytes_);
    ++memory_reads_;
    std::string reply =
        request_on(thread, fmt::format("{}{:x},{:x}", binary_read_ ? 'x' : 'm', address + out.size(), piece));
    if (is_error_reply(reply)) return std::nullopt;
    if (binary_read_) {
      if (reply.empty() || reply[0] != 'b' || reply.size() == 1 || reply.size() - 1 > piece) {
        throw Error(fmt::format("thread {}: reading {} bytes at {:#x}: malformed binary reply of {} bytes", thread,
                                piece, address + out.size(), reply.size()));
      }
      // A whole read in one reply keeps the reply's buffer: replies run to
      // megabytes, and a fresh buffer per copy costs a page fault per 4 KiB.
      if (out.empty() && reply.size() - 1 == length) {
        reply.erase(0, 1);
        return reply;
      }
      if (out.empty()) out.reserve(length);
      out.append(reply, 1);
      continue;
    }
    if (out.empty()) out.reserve(length);
    std::optional<std::vector<uint8_t>> bytes = rsp::hex_decode(reply);
    if (!bytes || bytes->empty() || bytes->size() > piece) {
      throw Error(fmt::format("thread {}: reading {} bytes at {:#x}: malformed reply '{}'", thread, piece,
                              address + out.size(), reply.substr(0, 40)));
    }
    out.append(bytes->begin(), bytes->end());
  }
  return out;
}

std::string RemoteTarget::read_memory(uint32_t thread, uint64_t address, uint64_t length) {
  std::optional<std::string> bytes = try_read_memory(thread, address, length);
  if (!bytes) throw Error(fmt::format("thread {}: the stub cannot read {} bytes at {:#x}", thread, length, address));
  return *bytes;
}

bool RemoteTarget::can_pipeline_steps() const { return client_.no_ack() && client_.supports_vcont_step(); }

void RemoteTarget::queue_step(uint32_t thread) {
  if (!can_pipeline_steps()) throw Error("this stub's steps cannot be pipelined (needs no-ack mode and vCont)");
  client_.queue_request(fmt::format("vCont;s:{:x}", thread));
}

StepReply RemoteTarget::receive_step(uint32_t thread) {
  return parse_step_reply(thread, client_.receive_reply(run_timeout_));
}

StepReply RemoteTarget::step(uint32_t thread) {
  std::string reply;
  if (client_.supports_vcont_step()) {
    reply = client_.request(fmt::format("vCont;s:{:x}", thread), run_timeout_);
  } else {
    if (threads_.size() > 1) {
      const std::string selected = client_.request(fmt::format("Hc{:x}", thread));
      if (selected != "OK") throw Error(fmt::format("selecting thread {} to step: stub replied '{}'", thread, selected));
    }
    reply = client_.request("s", run_timeout_);
  }
  return parse_step_reply(thread, reply);
}

StepReply RemoteTarget::parse_step_reply(uint32_t thread, const std::string& reply) {
  if (is_error_reply(reply)) throw Error(fmt::format("thread {}: the stub could not step ({})", thread, reply));
  const rsp::StopReply stop = rsp::parse_stop_reply(reply);
  StepReply out;
  out.signal = stop.signal;
  if (stop.kind != rsp::StopReply::Kind::kSignal) {
    out.exited = true;
    return out;
  }
  if (stop.thread && *stop.thread != thread) {
    throw Error(fmt::format("stepping thread {} stopped thread {} instead", thread, *stop.thread));
  }
  // A stop reply switches the stub's general thread to the stopped one.
  selected_ = thread;
  auto it = stop.extra.find("snr-chip");
  out.blocked = it != stop.extra.end() && it->second == "blocked";
  for (const auto& [regnum, bytes] : stop.registers) {
    if (bytes.size() != 8) continue;
    const uint64_t value = rsp::from_le_bytes(bytes);
    if (regnum == pc_regnum_) {
      out.pc = value;
    } else if (regnum < 32) {
      out.x_values.emplace_back(regnum, value);
    }
  }
  return out;
}

void RemoteTarget::insert_breakpoint(uint64_t address) {
  const std::string reply = client_.request(fmt::format("Z0,{:x},4", address));
  if (reply != "OK") throw Error(fmt::format("setting a breakpoint at {:#x}: stub replied '{}'", address, reply));
}

void RemoteTarget::remove_breakpoint(uint64_t address) {
  const std::string reply = client_.request(fmt::format("z0,{:x},4", address));
  if (reply != "OK") throw Error(fmt::format("removing the breakpoint at {:#x}: stub replied '{}'", address, reply));
}

uint32_t RemoteTarget::continue_all() {
  const std::string reply = client_.request(client_.supports_vcont_step() ? "vCont;c" : "c", run_timeout_);
  const rsp::StopReply stop = rsp::parse_stop_reply(reply);
  if (stop.kind != rsp::StopReply::Kind::kSignal) {
    throw Error(fmt::format("the program ended (exit status {}) before reaching the breakpoint", stop.exit_code));
  }
  if (stop.signal != 5) throw Error(fmt::format("the program stopped with signal {} before the breakpoint", stop.signal));
  if (stop.extra.count("snr-stop")) {
    throw Error(fmt::format("the device stopped ({}) before reaching the breakpoint", stop.extra.at("snr-stop")));
  }
  selected_.reset();
  return stop.thread.value_or(threads_.front());
}

void RemoteTarget::detach() {
  const std::string reply = client_.request("D");
  if (reply != "OK") throw Error(fmt::format("detaching: stub replied '{}'", reply));
}

}  // namespace snr::record
