// The device's connection loop: accept a debugger, serve it until it
// detaches, kills or disconnects, then wait for the next one (or return
// after the first with `once`). Chips keep their state between sessions
// after a detach; a kill reloads the program. While a session runs, every
// other debugger that connects is told the device is busy and closed
// (rsp::BusyRejecter); a session whose debugger stays silent longer than
// the idle timeout ends, freeing the device.
#pragma once

#include <chrono>
#include <functional>
#include <string>

#include "device/npu_device.h"
#include "rsp/socket.h"

namespace snr::device {

struct ServeOptions {
  bool once = false;
  std::chrono::milliseconds idle_timeout{-1};  // negative: none
  std::function<void(const std::string&)> log;  // one line per session event; may be empty
};

void serve(NpuDevice& device, rsp::Listener& listener, const ServeOptions& options);

}  // namespace snr::device
