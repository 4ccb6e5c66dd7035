// `snr device serve TARGET`: every chip of a program running functionally
// behind a GDB Remote Serial Protocol server (docs/debugger.md).
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <memory>

#include "cli/command.h"
#include "common/cli_numbers.h"
#include "common/error.h"
#include "compiler/artifacts.h"
#include "metrics/model_run.h"
#include "device/npu_device.h"
#include "device/serve.h"
#include "hw/config.h"
#include "rsp/socket.h"
#include "sim/elf_loader.h"

namespace {

struct ServeOptions {
  std::string target;
  std::string hardware = "tpu-v4-like";
  std::vector<std::string> overrides;
  uint64_t chips = 0;
  uint16_t port = 0;
  std::string bind = "127.0.0.1";
  bool allow_remote = false;
  uint64_t idle_timeout_s = 600;
  bool once = false;
};

// The protocol has no authentication and lets a debugger write any memory
// and register: a non-loopback address needs --allow-remote, and gets a
// warning even then.
void check_bind_address(const ServeOptions& options) {
  if (snr::rsp::is_loopback_address(options.bind)) return;
  if (!options.allow_remote) {
    throw snr::Error(fmt::format(
        "--bind {}: not a loopback address; anyone who can reach it could read and write every chip's memory and "
        "registers (the debugger protocol has no authentication). Add --allow-remote to serve on it anyway",
        options.bind));
  }
  fmt::print(stderr,
             "snr device: warning: listening on {}, reachable from other machines: any client can read and write "
             "every chip's memory and registers (no authentication)\n",
             options.bind);
}

// The device for TARGET: a compiled model directory (per-chip programs and
// initial HBM, its own hardware config) or one ELF that every chip runs.
std::unique_ptr<snr::device::NpuDevice> make_device(const ServeOptions& options) {
  std::vector<std::string> overrides = options.overrides;
  if (snr::compiler::is_compiled_model_directory(options.target)) {
    auto image = std::make_shared<snr::compiler::ModelImage>(snr::compiler::read_compiled_model(options.target));
    if (options.chips != 0 && options.chips != image->chips()) {
      throw snr::Error(fmt::format("{}: compiled for {} chips; --chips {} does not match", options.target,
                                   image->chips(), options.chips));
    }
    snr::hw::HwConfig config = snr::metrics::system_config(*image);
    snr::hw::apply_overrides(config, overrides);
    return std::make_unique<snr::device::NpuDevice>(
        config, [image](snr::sim::System& system) { snr::metrics::install(*image, system); });
  }
  if (std::filesystem::is_directory(options.target)) {
    throw snr::Error(fmt::format("{}: a directory without manifest.json; expected an `snr compile` output or an ELF",
                                 options.target));
  }
  snr::hw::HwConfig config = snr::hw::load_preset_or_file(options.hardware);
  snr::hw::apply_overrides(
      config, snr::hw::with_chips_option(overrides, options.chips != 0 ? std::to_string(options.chips) : ""));
  return std::make_unique<snr::device::NpuDevice>(config, snr::sim::load_elf_program(options.target));
}

int serve(const ServeOptions& options) {
  check_bind_address(options);
  std::unique_ptr<snr::device::NpuDevice> device_holder = make_device(options);
  snr::device::NpuDevice& device = *device_holder;
  snr::rsp::Listener listener(options.bind, options.port);
  // Tests and scripts read the port from this line.
  fmt::print("listening on {}:{} ({} chips, threads 1..{})\n", listener.bind_address(), listener.port(),
             device.chip_count(), device.chip_count());
  std::fflush(stdout);
  snr::device::serve(device, listener,
                     {.once = options.once,
                      .idle_timeout = options.idle_timeout_s == 0
                                          ? std::chrono::milliseconds(-1)
                                          : std::chrono::milliseconds(options.idle_timeout_s * 1000),
                      .log = [](const std::string& line) {
                        fmt::print(stderr, "snr device: {}\n", line);
                      }});
  return 0;
}

void setup_device_serve(CLI::App& parent, snr::cli::CommandContext& ctx) {
  auto options = std::make_shared<ServeOptions>();
  auto* sub = parent.add_subcommand("serve", "Run a program on every chip behind a GDB remote-protocol server");
  sub->add_option("target", options->target, "`snr compile` output directory, or an ELF program every chip runs")->required();
  sub->add_option("--chips", options->chips, "number of chips for an ELF (same as --set chips=N)")
      ->check(snr::cli::in_range(1, snr::limits::kMaxChips));
  sub->add_option("--port", options->port, "TCP port; 0 picks a free one (printed)")->capture_default_str();
  sub->add_option("--bind", options->bind, "address to listen on (loopback unless told otherwise)")
      ->capture_default_str();
  sub->add_flag("--allow-remote", options->allow_remote,
                "allow a --bind address other than loopback (the protocol has no authentication)");
  sub->add_option("--idle-timeout", options->idle_timeout_s,
                  "seconds a connected debugger may stay silent while the target is stopped before the session "
                  "ends (0: never)")
      ->capture_default_str()
      ->check(snr::cli::in_range(0, 7 * 24 * 3600));
  sub->add_flag("--once", options->once, "exit after the first debugger session ends");
  sub->add_option("--hw", options->hardware, "hardware preset or YAML file (an ELF; a model has its own)")->capture_default_str();
  sub->add_option("--set", options->overrides, "override one hardware key, e.g. --set vmem.blocks=64")->take_all();
  snr::cli::set_examples(sub, {"snr device serve model/ --port 1234", "snr device serve prog.elf --chips 2 --once"});
  sub->callback([options, &ctx] { ctx.exit_code = serve(*options); });
}

}  // namespace

SNR_REGISTER_SUBCOMMAND(device, "The NPU behind a step debugger", serve, setup_device_serve);
