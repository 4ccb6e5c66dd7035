// The device's connection loop: accept a debugger, serve it until it
// detaches, kills or disconnects, then wait for the next one (or return
// after the first with `once`). Chips keep their state between sessions
// after a detach; a kill reloads the program.
#pragma once

#include <functional>
#include <string>

#include "device/npu_device.h"
#include "rsp/socket.h"

namespace snr::device {

struct ServeOptions {
  bool once = false;
  std::function<void(const std::string&)> log;  // one line per session event; may be empty
};

void serve(NpuDevice& device, rsp::Listener& listener, const ServeOptions& options);

}  // namespace snr::device
