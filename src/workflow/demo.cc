#include "workflow/demo.h"

#include <fmt/format.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <atomic>
#include <chrono>
#include <exception>
#include <future>
#include <memory>
#include <thread>

#include "analyze/analyze.h"
#include "common/error.h"
#include "common/file_io.h"
#include "compiler/artifacts.h"
#include "compiler/compiler.h"
#include "metrics/model_run.h"
#include "compiler/spec.h"
#include "device/npu_device.h"
#include "device/serve.h"
#include "formats/rundb/writer.h"
#include "formats/snapshot/shared_snapshot.h"
#include "formats/snapshot/snapshot.h"
#include "formats/snapshot/snapshot_writer.h"
#include "record/recorder.h"
#include "record/remote_target.h"
#include "replay/replayer.h"
#include "rsp/client.h"
#include "rsp/socket.h"

namespace snr::workflow {

namespace {

constexpr auto kReplyTimeout = std::chrono::milliseconds(600'000);

// The "production accelerator" of the demo: the compiled model on a device
// served to one debugger session on a loopback port, in a thread of this
// process. If the session never starts (the recorder failed before it
// connected), the destructor connects once itself so the server returns.
class InProcessDevice {
 public:
  explicit InProcessDevice(std::shared_ptr<const compiler::ModelImage> image)
      : device_(metrics::system_config(*image),
                [image](sim::System& system) { metrics::install(*image, system); }),
        listener_("127.0.0.1", 0) {
    thread_ = std::thread([this] {
      try {
        device::serve(device_, listener_, {.once = true, .log = {}});
      } catch (...) {
        error_ = std::current_exception();
      }
      done_ = true;
    });
  }
  ~InProcessDevice() {
    if (!done_) {
      try {
        rsp::connect_tcp({"127.0.0.1", listener_.port()}, std::chrono::milliseconds(2000)).close();
      } catch (const Error&) {
        // The server is already past accept(); join below still returns.
      }
    }
    thread_.join();
  }
  InProcessDevice(const InProcessDevice&) = delete;
  InProcessDevice& operator=(const InProcessDevice&) = delete;

  [[nodiscard]] uint16_t port() const { return listener_.port(); }
  // Waits for the session to end and rethrows a server failure.
  void finish() {
    thread_.join();
    thread_ = std::thread([] {});
    done_ = true;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  device::NpuDevice device_;
  rsp::Listener listener_;
  std::thread thread_;
  std::atomic<bool> done_ = false;
  std::exception_ptr error_;
};

// The first op of layer 1 (a steady-state layer: layer 0 still warms the
// prefetch pipeline), else of layer 0, else the first op.
std::string default_break(const compiler::ModelImage& image) {
  for (const char* prefix : {"layer1.", "layer0."}) {
    for (const compiler::OpInfo& op : image.ops) {
      if (op.name.starts_with(prefix)) return op.name;
    }
  }
  if (image.ops.empty()) throw Error("the compiled model has no ops to break at");
  return image.ops.front().name;
}

}  // namespace

DemoResult run_demo(const DemoOptions& options, const Progress& progress) {
  const auto started = std::chrono::steady_clock::now();
  DemoResult result;
  std::vector<StageTime>& stages = result.stages;
  const std::filesystem::path& out = options.output_dir;
  std::error_code ec;
  std::filesystem::create_directories(out, ec);
  if (ec) throw Error(fmt::format("{}: cannot create the output directory: {}", out.string(), ec.message()));

  // 1. Compile.
  auto image = std::make_shared<compiler::ModelImage>();
  {
    StageTimer timer(stages, "compile", progress);
    const std::string_view yaml = options.spec_yaml.empty() ? default_spec_yaml() : std::string_view(options.spec_yaml);
    const compiler::CompiledModel model = compiler::compile(compiler::parse_spec_yaml(yaml, options.spec_name));
    result.model_dir = out / "model";
    compiler::write_compiled_model(model, result.model_dir);
    *image = model.image;
    timer.finish(fmt::format("{}: {} ops on {} chips, {} instructions per layer per chip -> {}", options.spec_name,
                             image->ops.size(), image->chips(), image->layer_instructions, result.model_dir.string()));
  }

  // 2. Serve it and record a window through the debugger protocol.
  result.break_at = options.break_at.empty() ? default_break(*image) : options.break_at;
  result.count_per_chip = options.count != 0 ? options.count
                          : image->layer_instructions != 0 ? image->layer_instructions
                                                           : 100'000;
  const elf::Symbol* symbol = image->programs.at(0).find_symbol(result.break_at);
  if (symbol == nullptr) throw Error(fmt::format("--break {}: no such op in {}", result.break_at, options.spec_name));
  snapshot::Snapshot snapshot;
  {
    StageTimer timer(stages, "record", progress);
    InProcessDevice device(image);
    if (progress) {
      progress(fmt::format("record: serving the model on 127.0.0.1:{}; breaking at {} and recording {} instructions per chip",
                           device.port(), result.break_at, result.count_per_chip));
    }
    rsp::Client client(rsp::connect_tcp({"127.0.0.1", device.port()}, std::chrono::milliseconds(10'000)), kReplyTimeout);
    record::RemoteTarget target(client, kReplyTimeout);
    record::RecordOptions record_options;
    record_options.breakpoint_address = symbol->value;
    record_options.breakpoint_text = result.break_at;
    record_options.count_per_chip = result.count_per_chip;
    record_options.chips = options.chips;
    for (const compiler::OpInfo& op : image->ops) {
      snapshot::pb::Symbol* s = &record_options.symbols.emplace_back();
      s->set_name(op.name);
      s->set_address(op.pc_begin);
      s->set_size_bytes(op.pc_end - op.pc_begin);
    }
    record_options.progress = [&progress](const std::string& line) {
#if defined(__GLIBC__)
      // The recorder and the device free reply buffers all the time; glibc
      // would keep them (see StageTimer).
      malloc_trim(0);
#endif
      if (progress) progress("record: " + line);
    };
    record_options.progress_interval = std::chrono::milliseconds(5000);
    snapshot = record::record_window(target, record_options);
    device.finish();
    result.recorded_instructions = snapshot.header.stats().instructions();
    result.chips = static_cast<uint32_t>(snapshot.header.recorded_chips_size());
    timer.finish(fmt::format("{} instructions on {} chip(s), {} bytes captured", result.recorded_instructions,
                             result.chips, snapshot.header.stats().captured_bytes()));
  }

  // 3. Save the snapshot while replaying it with the performance tracker;
  // write the run data while the analysis runs. The file is written from
  // the serialized sections the replay reads in place (both only read
  // them); its identity, the hash of the whole file, is known once it is
  // written, so the replay's `source` is filled in then.
  result.snapshot_path = out / "window.snr";
  result.run_db_path = out / "run.db";
  snapshot::SerializedSnapshot serialized;
  {
    StageTimer timer(stages, "serialize snapshot", progress);
    serialized = with_error_context("serializing the recorded window",
                                    [&] { return snapshot::serialize_snapshot_shared(std::move(snapshot)); });
    snapshot = {};
    uint64_t bytes = 0;
    for (std::string_view section : serialized.chip_sections) bytes += section.size();
    timer.finish(fmt::format("{} chip sections, {} bytes", serialized.chip_sections.size(), bytes));
  }
  BackgroundStage save_snapshot("save snapshot");
  std::future<uint64_t> file_hash = std::async(std::launch::async, [&] {
    // The window's memory is mostly weights that barely compress; the
    // fastest zstd level keeps this stage short at almost the same size.
    const uint64_t file_bytes = snapshot::write_serialized_snapshot(result.snapshot_path, serialized, 1);
    const uint64_t hash = snapshot::file_identity_hash(result.snapshot_path);
    save_snapshot.finish(fmt::format("{} bytes -> {}", file_bytes, result.snapshot_path.string()));
    return hash;
  });
  replay::ReplayInput input = replay::replay_input_from_snapshot(serialized.shared, "");
  rundb::RunData data;
  {
    StageTimer timer(stages, "replay", progress);
    replay::ReplayResult replayed =
        with_error_context("replaying the recorded window", [&] { return replay::run_replay(input, {}); });
    if (!replayed.final_state_problems.empty()) {
      throw Error(fmt::format("the replay did not reach the device's end state: {}", replayed.final_state_problems.front()));
    }
    data = std::move(replayed.data);
    timer.finish(fmt::format("{} instructions in {} cycles; pc sequence and end state match", replayed.instructions,
                             data.total_cycles));
  }
  // The analysis needs no file; it runs while the snapshot is still being
  // written, and learns the snapshot's identity with the run data.
  analyze::Analysis analysis = analyze_stage(data, options.analyze, stages, progress);
  serialized.shared.identity_hash = with_error_context("saving the snapshot", [&] { return file_hash.get(); });
  save_snapshot.report(stages, progress);
  input.identity = snapshot::snapshot_identity(result.snapshot_path.string(), serialized.shared);
  for (auto& [key, value] : data.meta) {
    if (key == "source") value = input.identity;
  }
  analysis.summary.source = input.identity;
  BackgroundStage save_run_data("save run data");
  std::shared_future<void> run_db_written = std::async(std::launch::async, [&] {
    rundb::write_run_db(result.run_db_path.string(), data);
    save_run_data.finish(fmt::format("{} DMAs, {} dependency edges -> {}", data.dmas.size(), data.dependencies.size(),
                                     result.run_db_path.string()));
  });

  // 4. Analyze, verify, report.
  AnalyzeRunOptions analyze_options;
  analyze_options.output_dir = out / "report";
  analyze_options.verify_top = options.verify_top;
  analyze_options.analyze = options.analyze;
  analyze_options.title = fmt::format("snr demo: {} at {}, {} instructions per chip", options.spec_name,
                                      result.break_at, result.count_per_chip);
  analyze_options.run_db_written = run_db_written;
  // The snapshot and run.db are written beside the verifications, which
  // then keep the second core busy: one replay at a time takes the same
  // wall time, and the peak memory is 40-90 MB lower and the same in every
  // run instead of varying with how two replays overlap.
  analyze_options.background_jobs = 1;
  result.analysis = analyze_run_data(data, result.run_db_path.string(), &input, analyze_options, progress, &analysis);
  run_db_written.get();
  result.analysis.snapshot_used = result.snapshot_path.string();
  save_run_data.report(stages, progress);
  stages.insert(stages.end(), result.analysis.stages.begin(), result.analysis.stages.end());
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace snr::workflow
