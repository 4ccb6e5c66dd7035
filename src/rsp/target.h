// What a debug stub serves, independent of the wire protocol: threads,
// registers by number, memory, stepping, running and breakpoints. The NPU
// device (src/device) implements it; the RSP server (server.h) speaks the
// protocol on its behalf.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace snr::rsp {

using ThreadId = uint32_t;  // > 0; the protocol reserves 0 (any) and -1 (all)

struct StopEvent {
  enum class Kind : uint8_t {
    kSignal,  // stopped with `signal` on `thread` (step done, breakpoint, interrupt)
    kExited,  // the whole process exited with `exit_code`
  };
  Kind kind = Kind::kSignal;
  ThreadId thread = 1;
  uint8_t signal = 5;  // SIGTRAP
  int exit_code = 0;
  // Registers whose values the stop reply carries (so a client needs no
  // extra round trip for them), and extra "key:value" stop-reply pairs the
  // target wants to publish (keys must not be hex numbers).
  std::vector<uint32_t> expedited_registers;
  std::vector<std::pair<std::string, std::string>> extra;
};

class Target {
 public:
  virtual ~Target() = default;

  // The target description document for qXfer:features:read:<annex>;
  // nullopt for an unknown annex.
  [[nodiscard]] virtual std::optional<std::string> feature_document(const std::string& annex) const = 0;
  [[nodiscard]] virtual std::vector<ThreadId> threads() const = 0;
  [[nodiscard]] virtual bool thread_alive(ThreadId thread) const = 0;

  // The 'g' packet contents (registers 0..n in number order, target byte order).
  virtual std::string read_general_registers(ThreadId thread) = 0;
  virtual Status write_general_registers(ThreadId thread, const std::string& bytes) = 0;
  virtual Result<std::string> read_register(ThreadId thread, uint32_t regnum) = 0;
  virtual Status write_register(ThreadId thread, uint32_t regnum, const std::string& bytes) = 0;
  virtual Result<std::string> read_memory(ThreadId thread, uint64_t address, uint64_t length) = 0;
  virtual Status write_memory(ThreadId thread, uint64_t address, const std::string& bytes) = 0;

  virtual Status insert_breakpoint(uint64_t address) = 0;
  virtual Status remove_breakpoint(uint64_t address) = 0;

  // Executes one instruction of `thread`; the others stay stopped.
  virtual StopEvent step(ThreadId thread) = 0;
  // Runs every thread until a breakpoint, an exit, a deadlock or until
  // `interrupted()` (polled now and then) returns true.
  virtual StopEvent resume(const std::function<bool()>& interrupted) = 0;
  // Why the target is stopped now (the '?' packet).
  virtual StopEvent current_stop() = 0;
  // 'k': the debugger killed the process.
  virtual void kill() = 0;
  // Target-specific "qSnr.*" queries; nullopt = unsupported (empty reply).
  virtual std::optional<std::string> custom_query(const std::string& /*payload*/) { return std::nullopt; }
};

}  // namespace snr::rsp
