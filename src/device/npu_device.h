// The "production accelerator": every chip of a program running
// functionally in the simulator, served to debuggers as an rsp::Target.
// Chips are threads (thread id = chip id + 1); registers follow
// target_description.cc; accelerator state too large for registers is
// reachable through the memory windows of memory_windows.h.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "hw/config.h"
#include "rsp/target.h"
#include "sim/executor.h"
#include "sim/program.h"
#include "sim/system.h"

namespace snr::device {

class NpuDevice : public rsp::Target {
 public:
  // Puts the program(s) and initial memory into a fresh system; called at
  // start and again after a kill.
  using Loader = std::function<void(sim::System&)>;

  NpuDevice(hw::HwConfig config, Loader loader);
  // Every chip runs `program`.
  NpuDevice(hw::HwConfig config, sim::ProgramImage program);

  [[nodiscard]] sim::System& system() { return *system_; }
  [[nodiscard]] uint32_t chip_count() const { return system_->chip_count(); }

  std::optional<std::string> feature_document(const std::string& annex) const override;
  std::vector<rsp::ThreadId> threads() const override;
  bool thread_alive(rsp::ThreadId thread) const override;
  std::string read_general_registers(rsp::ThreadId thread) override;
  Status write_general_registers(rsp::ThreadId thread, const std::string& bytes) override;
  Result<std::string> read_register(rsp::ThreadId thread, uint32_t regnum) override;
  Status write_register(rsp::ThreadId thread, uint32_t regnum, const std::string& bytes) override;
  Result<std::string> read_memory(rsp::ThreadId thread, uint64_t address, uint64_t length) override;
  Status write_memory(rsp::ThreadId thread, uint64_t address, const std::string& bytes) override;
  Status insert_breakpoint(uint64_t address) override;
  Status remove_breakpoint(uint64_t address) override;
  rsp::StopEvent step(rsp::ThreadId thread) override;
  rsp::StopEvent resume(const std::function<bool()>& interrupted) override;
  rsp::StopEvent current_stop() override { return last_stop_; }
  void kill() override;
  // qSnr.HwConfig: the hardware config as hex-encoded YAML, so a recorder
  // stores exactly the config the device runs.
  std::optional<std::string> custom_query(const std::string& payload) override;

  // Debug sessions leave breakpoints behind when they disconnect; the next
  // session starts without them.
  void clear_breakpoints() { breakpoints_.clear(); }

 private:
  sim::ChipState& chip_of(rsp::ThreadId thread);
  void reset();
  rsp::StopEvent stop_on(uint32_t chip, uint8_t signal);
  // Copies between `bytes` and one window object; false when `address` is
  // not inside a window.
  bool access_window(sim::ChipState& chip, uint64_t address, uint64_t length, std::string* read_into,
                     const std::string* write_from);

  hw::HwConfig config_;
  Loader loader_;
  std::unique_ptr<sim::System> system_;
  std::unique_ptr<sim::Executor> executor_;
  std::set<uint64_t> breakpoints_;
  rsp::StopEvent last_stop_;
};

// The target description (target.xml): riscv:rv64 with org.gnu.gdb.riscv.cpu
// plus the NPU's CSR, semaphore and status features.
std::string npu_target_xml();

}  // namespace snr::device
