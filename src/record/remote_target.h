// The recorder's view of a debug stub: the three functions Algorithm 1
// needs (step, read register, read memory) plus breakpoints, over an RSP
// client. Knows chips as threads, register numbers from the target
// description, and the snr device's memory windows when the stub is one.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rsp/client.h"

namespace snr::record {

struct StepReply {
  bool exited = false;       // the whole process exited
  bool blocked = false;      // the stub says the instruction did not retire
  uint8_t signal = 0;
  std::optional<uint64_t> pc;
  std::vector<std::pair<uint32_t, uint64_t>> x_values;  // expedited x registers
};

class RemoteTarget {
 public:
  RemoteTarget(rsp::Client& client, std::chrono::milliseconds run_timeout);

  [[nodiscard]] bool is_snr_device() const { return snr_device_; }
  [[nodiscard]] const std::string& description_summary() const { return summary_; }
  [[nodiscard]] const std::vector<uint32_t>& thread_ids() const { return threads_; }
  // The device's hardware config (YAML), empty when the stub does not say.
  [[nodiscard]] const std::string& hw_config_yaml() const { return hw_config_yaml_; }

  struct GeneralRegisters {
    std::array<uint64_t, 32> x{};
    uint64_t pc = 0;
  };
  GeneralRegisters read_general(uint32_t thread);
  // A register by target-description name, little-endian bytes.
  std::string read_named_register(uint32_t thread, std::string_view name);
  // Reads `length` bytes in packet-sized pieces; throws naming the address.
  std::string read_memory(uint32_t thread, uint64_t address, uint64_t length);
  // Like read_memory but returns nullopt instead of throwing on an E reply.
  std::optional<std::string> try_read_memory(uint32_t thread, uint64_t address, uint64_t length);
  // Memory reads use `x` (binary) when the stub offers binary-upload,
  // else hex `m`; false forces `m`.
  void use_binary_reads(bool on);
  [[nodiscard]] bool binary_reads() const { return binary_read_; }
  StepReply step(uint32_t thread);
  // Steps of several threads in flight at once (one round trip for all):
  // queue_step for each, then receive_step in the same order. Only when
  // can_pipeline_steps(); no other request may be made in between.
  [[nodiscard]] bool can_pipeline_steps() const;
  void queue_step(uint32_t thread);
  StepReply receive_step(uint32_t thread);
  void insert_breakpoint(uint64_t address);
  void remove_breakpoint(uint64_t address);
  // Continues every thread until a stop; returns the stopped thread (or
  // throws when the program exits first).
  uint32_t continue_all();
  void detach();

  [[nodiscard]] uint64_t memory_reads() const { return memory_reads_; }
  [[nodiscard]] uint64_t register_reads() const { return register_reads_; }
  [[nodiscard]] uint64_t round_trips() const { return client_.round_trips(); }

 private:
  void select(uint32_t thread);
  // `payload` on `thread`: a needed thread switch travels with the request
  // in one round trip where the stub allows pipelining.
  std::string request_on(uint32_t thread, std::string_view payload);
  StepReply parse_step_reply(uint32_t thread, const std::string& reply);

  rsp::Client& client_;
  std::chrono::milliseconds run_timeout_;
  rsp::TargetDescription description_;
  std::vector<uint32_t> threads_;
  bool snr_device_ = false;
  std::string summary_;
  std::string hw_config_yaml_;
  uint32_t pc_regnum_ = 32;
  uint64_t pc_offset_in_g_ = 32 * 8;
  std::optional<uint32_t> selected_;
  uint64_t memory_reads_ = 0;
  uint64_t register_reads_ = 0;
  uint64_t max_read_bytes_ = 2048;
  bool binary_read_ = false;
};

}  // namespace snr::record
