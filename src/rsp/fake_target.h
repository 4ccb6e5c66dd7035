// A tiny in-memory Target for protocol tests and the fuzzer: two threads,
// 33 64-bit registers each, 4 KiB of memory at 0x1000, steps add 4 to pc.
#pragma once

#include <array>
#include <set>
#include <string>

#include "rsp/packet.h"
#include "rsp/target.h"

namespace snr::rsp::testing {

class FakeTarget : public Target {
 public:
  static constexpr uint64_t kMemoryBase = 0x1000;

  std::optional<std::string> feature_document(const std::string& annex) const override {
    if (annex != "target.xml") return std::nullopt;
    return std::string("<?xml version=\"1.0\"?><target><architecture>riscv:rv64</architecture>"
                       "<feature name=\"org.gnu.gdb.riscv.cpu\"><reg name=\"zero\" bitsize=\"64\"/>"
                       "<reg name=\"pc\" bitsize=\"64\" regnum=\"32\"/></feature></target>");
  }
  std::vector<ThreadId> threads() const override { return {1, 2}; }
  bool thread_alive(ThreadId t) const override { return t == 1 || t == 2; }
  std::string read_general_registers(ThreadId t) override {
    std::string out;
    for (uint64_t r : regs_[t - 1]) out += le_bytes(r, 8);
    return out;
  }
  Status write_general_registers(ThreadId t, const std::string& bytes) override {
    if (bytes.size() != 33 * 8) return Error("size");
    for (size_t i = 0; i < 33; ++i) {
      regs_[t - 1][i] = from_le_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()) + 8 * i, 8));
    }
    return {};
  }
  Result<std::string> read_register(ThreadId t, uint32_t regnum) override {
    if (regnum >= 33) return Error("no such register");
    return le_bytes(regs_[t - 1][regnum], 8);
  }
  Status write_register(ThreadId t, uint32_t regnum, const std::string& bytes) override {
    if (regnum >= 33 || bytes.size() != 8) return Error("bad register");
    regs_[t - 1][regnum] = from_le_bytes(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), 8));
    return {};
  }
  Result<std::string> read_memory(ThreadId, uint64_t address, uint64_t length) override {
    if (address < kMemoryBase || address - kMemoryBase > memory_.size() || length > memory_.size() - (address - kMemoryBase)) {
      return Error("unmapped");
    }
    return memory_.substr(address - kMemoryBase, length);
  }
  Status write_memory(ThreadId, uint64_t address, const std::string& bytes) override {
    if (address < kMemoryBase || address - kMemoryBase > memory_.size() ||
        bytes.size() > memory_.size() - (address - kMemoryBase)) {
      return Error("unmapped");
    }
    memory_.replace(address - kMemoryBase, bytes.size(), bytes);
    return {};
  }
  Status insert_breakpoint(uint64_t address) override { breakpoints_.insert(address); return {}; }
  Status remove_breakpoint(uint64_t address) override { breakpoints_.erase(address); return {}; }
  StopEvent step(ThreadId t) override {
    regs_[t - 1][32] += 4;
    StopEvent stop;
    stop.thread = t;
    stop.expedited_registers = {32};
    return stop;
  }
  StopEvent resume(const std::function<bool()>&) override {
    for (int i = 0; i < 1000; ++i) {
      regs_[0][32] += 4;
      if (breakpoints_.count(regs_[0][32])) break;
    }
    StopEvent stop;
    stop.expedited_registers = {32};
    return stop;
  }
  StopEvent current_stop() override { return StopEvent{}; }
  void kill() override { killed = true; }

  bool killed = false;

 private:
  std::array<std::array<uint64_t, 33>, 2> regs_{};
  std::string memory_ = std::string(4096, '\0');
  std::set<uint64_t> breakpoints_;
};

}  // namespace snr::rsp::testing
