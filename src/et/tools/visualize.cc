#include "et/tools/visualize.h"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "common/file_io.h"
#include "formats/chakra/attributes.h"
#include "formats/chakra/et_reader.h"

extern char** environ;

namespace snr::et {
namespace {

std::string escape_label(std::string_view text, size_t max_chars) {
  std::string out;
  size_t shown = 0;
  for (char c : text) {
    if (shown == max_chars) {
      out += "...";
      break;
    }
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) >= 0x20) {
      out += c;
    }
    ++shown;
  }
  return out;
}

const char* fill_colour(int type) {
  switch (type) {
    case ChakraProtoMsg::COMP_NODE: return "#cfe2f3";
    case ChakraProtoMsg::COMM_COLL_NODE: return "#f4cccc";
    case ChakraProtoMsg::COMM_SEND_NODE:
    case ChakraProtoMsg::COMM_RECV_NODE: return "#fce5cd";
    case ChakraProtoMsg::MEM_LOAD_NODE:
    case ChakraProtoMsg::MEM_STORE_NODE: return "#d9ead3";
    default: return "#eeeeee";
  }
}

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return {};
  std::string_view rest(path);
  while (!rest.empty()) {
    size_t colon = rest.find(':');
    std::string dir(rest.substr(0, colon));
    std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    if (colon == std::string_view::npos) break;
    rest.remove_prefix(colon + 1);
  }
  return {};
}

// Runs `dot -T<format> -o <output> <input>` without a shell.
void run_dot(const std::string& format, const std::filesystem::path& input, const std::filesystem::path& output) {
  std::string dot = find_in_path("dot");
  if (dot.empty()) {
    throw Error("Graphviz `dot` not found on PATH (Debian package graphviz); write a .dot file instead");
  }
  std::vector<std::string> args = {dot, "-T" + format, "-o", output.string(), input.string()};
  std::vector<char*> argv;
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ);
  if (rc != 0) throw Error(fmt::format("cannot run {}: {}", dot, std::strerror(rc)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(fmt::format("waiting for {} failed: {}", dot, std::strerror(errno)));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw Error(fmt::format("{} -T{} failed (exit status {}) rendering {}", dot, format,
                            WIFEXITED(status) ? WEXITSTATUS(status) : -1, output.string()));
  }
}

}  // namespace

GraphFormat graph_format_for(const std::filesystem::path& output) {
  std::string ext = output.extension().string();
  if (ext == ".dot" || ext == ".gv") return GraphFormat::kDot;
  if (ext == ".svg") return GraphFormat::kSvg;
  if (ext == ".pdf") return GraphFormat::kPdf;
  throw Error(fmt::format("{}: unsupported output extension \"{}\" (use .dot, .svg or .pdf)", output.string(), ext));
}

std::string render_dot(const std::filesystem::path& et_path, const VisualizeOptions& options,
                       uint64_t* node_count) {
  auto reader = chakra::EtReader::open(et_path);
  std::string nodes;
  std::string edges;
  uint64_t count = 0;
  ChakraProtoMsg::Node node;
  while (reader.next(node)) {
    if (++count > options.max_nodes) {
      throw Error(fmt::format("{}: more than {} nodes; raise --max-nodes to draw it anyway (dot slows down "
                              "sharply on large graphs)", et_path.string(), options.max_nodes));
    }
    std::string label = fmt::format("{}: {}\\n{}", node.id(), escape_label(node.name(), options.max_label_chars),
                                    chakra::node_type_name(node.type()));
    if (node.duration_micros() > 0) label += fmt::format("\\n{} us", node.duration_micros());
    chakra::NodeView view(node);
    if (view.is_comm()) {
      try {
        if (auto size = view.comm_size_bytes()) label += fmt::format("\\n{} B", *size);
        if (auto type = view.comm_type(); type && node.type() == ChakraProtoMsg::COMM_COLL_NODE) {
          label += "\\n" + chakra::comm_type_name(*type);
        }
      } catch (const Error&) {
        label += "\\n(bad comm attributes)";
      }
    }
    nodes += fmt::format("  n{} [label=\"{}\", fillcolor=\"{}\"];\n", node.id(), label, fill_colour(node.type()));
    for (uint64_t dep : node.data_deps()) edges += fmt::format("  n{} -> n{};\n", dep, node.id());
    for (uint64_t dep : node.ctrl_deps()) {
      edges += fmt::format("  n{} -> n{} [style=dashed, color=\"#777777\"];\n", dep, node.id());
    }
  }
  if (node_count != nullptr) *node_count = count;
  return fmt::format(
      "digraph \"{}\" {{\n"
      "  // data dependencies: solid; control dependencies: dashed\n"
      "  rankdir=TB;\n"
      "  node [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\", fontsize=10];\n"
      "{}{}}}\n",
      escape_label(et_path.filename().string(), 200), nodes, edges);
}

uint64_t visualize_trace(const std::filesystem::path& et_path, const std::filesystem::path& output,
                         const VisualizeOptions& options) {
  GraphFormat format = graph_format_for(output);
  uint64_t drawn = 0;
  std::string dot = render_dot(et_path, options, &drawn);
  if (format == GraphFormat::kDot) {
    write_file_atomic(output, dot);
    return drawn;
  }
  // dot writes a temporary beside the output, renamed into place on success.
  std::filesystem::path dot_input = output;
  dot_input += fmt::format(".{}.dot.tmp", ::getpid());
  std::filesystem::path rendered = output;
  rendered += fmt::format(".{}.tmp", ::getpid());
  write_file_atomic(dot_input, dot);
  try {
    run_dot(format == GraphFormat::kSvg ? "svg" : "pdf", dot_input, rendered);
  } catch (...) {
    std::filesystem::remove(dot_input);
    std::filesystem::remove(rendered);
    throw;
  }
  std::filesystem::remove(dot_input);
  std::filesystem::rename(rendered, output);
  return drawn;
}

}  // namespace snr::et
