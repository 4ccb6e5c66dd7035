// One debugger at a time, and everyone else told so at once: while a
// session runs, a BusyRejecter accepts every other connection on the same
// listener, sends it one error packet `E.<reason>` (GDB shows the text of an
// "E." reply) and closes it, instead of leaving it in the kernel's queue
// until it times out.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "rsp/socket.h"

namespace snr::rsp {

class BusyRejecter {
 public:
  // Starts refusing connections on `listener` until destroyed. `log` (may
  // be empty) gets one line per refused client, from the rejecting thread.
  BusyRejecter(Listener& listener, std::string reason, std::function<void(const std::string&)> log = {});
  ~BusyRejecter();  // stops accepting and joins the thread
  BusyRejecter(const BusyRejecter&) = delete;
  BusyRejecter& operator=(const BusyRejecter&) = delete;

  [[nodiscard]] uint64_t refused() const { return refused_.load(); }

 private:
  void run();

  Listener& listener_;
  std::string reply_;  // the framed E packet
  std::function<void(const std::string&)> log_;
  std::atomic<bool> stop_{false};
  std::atomic<uint64_t> refused_{0};
  std::thread thread_;
};

}  // namespace snr::rsp
