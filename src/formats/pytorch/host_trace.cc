#include "formats/pytorch/host_trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <cmath>
#include <iterator>
#include <limits>
#include <stop_token>
#include <thread>

#include "common/error.h"
#include "common/json_input.h"
#include "common/parallel.h"
#include "formats/pytorch/json_input.h"
#include "formats/pytorch/host_node_scanner.h"
#include "formats/pytorch/host_node_walk.h"
#include "formats/pytorch/host_trace_values.h"
#include "formats/pytorch/json_windows.h"
#include "formats/pytorch/mapped_text.h"
#include "formats/pytorch/node_ids.h"
#include "formats/pytorch/node_list_split.h"
#include "formats/pytorch/ondemand_walker.h"

namespace snr::pytorch {

namespace {

using nlohmann::json;
using detail::ArgumentLists;
using detail::RawNode;
using detail::JsonNumber;
using detail::ListField;
using detail::read_process_groups;
namespace od = detail::od;

class HostReader : private detail::HostNodeWalk {
 public:
  // Windows of about this many bytes keep simdjson's index (4 bytes per
  // structural character) and string buffer a few megabytes.
  static constexpr size_t kWindowBytes = 4 << 20;

  HostReader(std::string_view text, const std::string& source, size_t window_bytes = kWindowBytes,
             const HostReadOptions& options = {})
      : HostReader(text, source, window_bytes, std::make_shared<TextPool>()) {
    options_ = options;
    scanner_.set_options(options);
  }

  HostTrace read(std::string& text) {
    // Room for simdjson's padding first: growing `text` later would move it
    // from under the views of it the walk holds.
    if (text.capacity() < text.size() + simdjson::SIMDJSON_PADDING) {
      text.reserve(text.size() + simdjson::SIMDJSON_PADDING);
    }
    text_ = text;
    return read_checked(text, &text);
  }

  // The file's text, given back to `mapped` a window at a time.
  HostTrace read_mapped(MappedText& mapped) {
    mapped_ = &mapped;
    return read_checked(mapped.text(), nullptr);
  }

  // walk_scanned's reading of `text` (a mapped file's when `mapped` is
  // given); nullopt or an Error: read it again with read or read_mapped.
  std::optional<HostTrace> read_scanned(std::string_view text, MappedText* mapped, bool split_always) {
    mapped_ = mapped;
    text_ = text;
    return walk_scanned(text, split_always);
  }

 private:
  HostReader(std::string_view text, const std::string& source, size_t window_bytes, std::shared_ptr<TextPool> pool)
      : HostNodeWalk(text, source, *pool), window_bytes_(window_bytes) {
    trace_.text_pool = std::move(pool);
  }

  HostTrace read_checked(std::string_view text, std::string* padded) {
    try {
      return walk(text, padded);
    } catch (const Error&) {
      if (!failed_on_syntax_) throw;
      // simdjson cannot place every syntax error (stage 1 finds an unclosed
      // string or bad UTF-8 without a position); the DOM parser can, and
      // says it as every other snr reader does. Only broken input pays this.
      (void)parse_json_input(text, source_);
      throw;
    }
  }

  // `padded`: `text` itself when it is a string with room for the padding;
  // otherwise (a mapped file) what simdjson reads is copied.
  HostTrace walk(std::string_view text, std::string* padded) {
    // nlohmann, which read these traces before, ends the input at a NUL byte
    // outside a string (and refuses one inside, which the fallback above
    // reports); so does this reader.
    const size_t length = std::min(find_nul_releasing(text, mapped_), text.size());
    // The root object with "nodes" emptied is walked here, and the nodes one
    // window at a time (read_windows): simdjson's index then covers a window,
    // not the whole trace.
    std::string root_text;
    std::string* root_source = padded;
    size_t root_length = length;
    std::function<void(size_t)> passed;
    if (mapped_ != nullptr) {
      mapped_->begin_pass();
      passed = [this](size_t end) { mapped_->release_before(end); };
    }
    auto split = find_root_array_windows(text.substr(0, length), "nodes", window_bytes_, passed);
    if (split && !split->windows.empty()) {
      root_text.reserve(length - (split->array_end - split->array_begin) + 2 + simdjson::SIMDJSON_PADDING);
      root_text.append(text.substr(0, split->array_begin));
      root_text.append("[]");
      root_text.append(text.substr(split->array_end, length - split->array_end));
      root_source = &root_text;
      root_length = root_text.size();
      windows_ = &*split;
      full_text_ = text;
      trace_.nodes.reserve(split->elements);
      seen_ids_.reserve(split->elements);
      piece_ = {Piece::Kind::kRoot, std::string_view(text.data(), length), split->array_begin, split->array_end, 0};
    }
    if (root_source == nullptr) {
      root_text.assign(text.substr(0, length));
      root_source = &root_text;
    }
    return walk_root(*root_source, root_length);
  }

  // The scanner's reading: "nodes" in one pass, each node through the
  // scanner (or the walk, alone, where it declines), then the root object
  // walked with "[]" standing in for the nodes. No search for a NUL byte and
  // no window scan before: a NUL, or anything else the scanner does not
  // expect, ends this reading (nullopt or an Error) and the caller reads the
  // text again the way it always has, whose trace or error is then the
  // reader's. So this reading only has to be right on the traces it finishes.
  std::optional<HostTrace> walk_scanned(std::string_view text, bool split_always) {
    full_text_ = text;
    const std::optional<size_t> array_begin = find_nodes_array(text);
    if (!array_begin) return std::nullopt;
    const size_t at = skip_space(text, *array_begin + 1);
    if (at >= text.size() || text[at] == ']') return std::nullopt;  // no nodes: nothing to gain
    if (mapped_ != nullptr) mapped_->begin_pass();
    const bool split = split_always || (text.size() - at >= kSplitMinBytes && hardware_threads() > 1);
    const size_t second_half = split ? detail::guess_node_list_split(text, at) : std::string_view::npos;
    NodeScan scan;
    if (second_half == std::string_view::npos) {
      scan = scan_nodes(text, at, *array_begin, std::string_view::npos, nullptr);
    } else {
      // The second half is read on a thread of its own from a guessed node
      // boundary, while this one reads the first half. The guess is only
      // used if this reading, node by node, lands on it exactly; then what
      // the other reader found is merged in order (duplicate ids and skips
      // decided here, with the whole list's indices) and the trace is what
      // one reading front to back gives. Otherwise the other reader is
      // stopped and this one goes on alone.
      HostReader second(text, source_, window_bytes_, options_);
      second.segment_ = std::make_unique<Segment>();
      second.mapped_ = mapped_;
      NodeScan second_scan;
      std::jthread reader([&](std::stop_token stop) {
        try {
          second_scan = second.scan_nodes(text, second_half, second_half, std::string_view::npos, nullptr, &stop);
        } catch (...) {
          second_scan.stop = NodeScan::Stop::kGaveUp;
        }
      });
      scan = scan_nodes(text, at, *array_begin, second_half, &reader);
      reader.join();
      if (scan.stop == NodeScan::Stop::kSplit) {
        if (second_scan.stop == NodeScan::Stop::kArrayEnd) {
          merge(second);
          scan = second_scan;
        } else {
          scan = scan_nodes(text, second_half, *array_begin, std::string_view::npos, nullptr);
        }
      }
    }
    if (scan.stop != NodeScan::Stop::kArrayEnd) return std::nullopt;
    const size_t array_end = scan.at;
    nodes_scanned_ = true;
    std::string root_text;
    root_text.reserve(text.size() - (array_end - *array_begin) + 2 + simdjson::SIMDJSON_PADDING);
    root_text.append(text.substr(0, *array_begin));
    root_text.append("[]");
    root_text.append(text.substr(array_end));
    piece_ = {Piece::Kind::kRoot, text, *array_begin, array_end, 0};
    return walk_root(root_text, root_text.size());
  }

  // Below this many bytes of nodes one thread reads them: a second one
  // would save less than it costs to start.
  static constexpr size_t kSplitMinBytes = size_t{16} << 20;

  // Where scan_nodes stopped: after the list's ']' (`at` is past it), at
  // the split (`at` is the split), or where it gave up on the text.
  struct NodeScan {
    enum class Stop { kArrayEnd, kSplit, kGaveUp };
    Stop stop = Stop::kGaveUp;
    size_t at = 0;
  };

  // Reads nodes from `at` (the first byte of one) to the end of the list,
  // stopping early where the next node starts exactly at `split`. Where a
  // node ends past `split`, the split was not a node boundary: `second`'s
  // reader is asked to stop and this reading goes on to the end. `stop`: a
  // request to give up (the second reader's, from the first).
  NodeScan scan_nodes(std::string_view text, size_t at, size_t list_begin, size_t split, std::jthread* second,
                      const std::stop_token* stop = nullptr) {
    const size_t first = at;
    size_t released = at;
    bool reserved = false;
    if (mapped_ != nullptr) mapped_->populate(at, window_bytes_);
    while (true) {
      if (stop != nullptr && stop->stop_requested()) return {};
      raw_.reset();
      HostNode node(trace_.list_arena.get());
      size_t end = scanner_.scan_node(text, at, text.size(), raw_, node);
      if (end != std::string_view::npos) {
        add_node(raw_, node, next_index_++);
      } else {
        end = detail::skip_json_value(text, at, text.size());
        if (end == std::string_view::npos) return {};
        walk_nodes(text, at, end);
      }
      at = skip_space(text, end);
      if (at >= text.size()) return {};
      if (text[at] == ']') return {NodeScan::Stop::kArrayEnd, at + 1};
      if (text[at] != ',') return {};
      at = skip_space(text, at + 1);
      if (at == split) return {NodeScan::Stop::kSplit, at};
      if (at > split) {
        split = std::string_view::npos;
        second->request_stop();
      }
      if (at - released >= window_bytes_) {
        if (mapped_ != nullptr) {
          // The second reader's pages by range: the mapping's own cursor is
          // the first reader's.
          segment_ ? mapped_->release_range(released, at) : mapped_->release_before(at);
        }
        released = at;
        if (mapped_ != nullptr) mapped_->populate(at, window_bytes_);
        if (!reserved) {
          // The node list sized once from the first window's nodes per byte,
          // generously: growing it would briefly hold its old and new
          // storage, while capacity never written costs address space only.
          reserved = true;
          const double per_byte = static_cast<double>(trace_.nodes.size()) / static_cast<double>(at - first);
          const auto expected = static_cast<size_t>(per_byte * static_cast<double>(text.size() - list_begin) * 1.5);
          trace_.nodes.reserve(expected + 16);
          advise_huge_pages(trace_.nodes.data(), trace_.nodes.capacity() * sizeof(HostNode));
          seen_ids_.reserve(expected + 16);
        }
      }
    }
  }

  static size_t skip_space(std::string_view text, size_t at) {
    while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
    return at;
  }

  // The '[' of the root object's first "nodes" key (spelled without
  // escapes), as find_root_array_windows finds it; nullopt when not so shaped.
  static std::optional<size_t> find_nodes_array(std::string_view text) {
    size_t at = skip_space(text, 0);
    if (at >= text.size() || text[at] != '{') return std::nullopt;
    at = skip_space(text, at + 1);
    while (at < text.size() && text[at] == '"') {
      const size_t key_end = detail::skip_json_value(text, at, text.size());
      if (key_end == std::string_view::npos) return std::nullopt;
      const std::string_view key = text.substr(at + 1, key_end - at - 2);
      at = skip_space(text, key_end);
      if (at >= text.size() || text[at] != ':') return std::nullopt;
      at = skip_space(text, at + 1);
      if (key == "nodes") {
        if (at >= text.size() || text[at] != '[') return std::nullopt;
        return at;
      }
      at = detail::skip_json_value(text, at, text.size());
      if (at == std::string_view::npos) return std::nullopt;
      at = skip_space(text, at);
      if (at >= text.size() || text[at] != ',') return std::nullopt;
      at = skip_space(text, at + 1);
    }
    return std::nullopt;
  }

  // Walks the root object (`root_source`, its first `root_length` bytes):
  // every field but "nodes" kept, "nodes" read here unless already read.
  HostTrace walk_root(std::string& root_source, size_t root_length) {
    od::parser parser;
    od::document doc;
    start(parser, doc, root_source, kEmptyMessage, root_length);
    if (type_of_document(doc) != od::json_type::object) {
      // A scalar root is not a value the on-demand API walks; parse_json_input
      // would have accepted it, so only its validity matters here.
      validate_document(doc);
      throw Error(fmt::format("{}: not a PyTorch execution trace: the document is not an object", source_));
    }
    od::object root;
    check(doc.get_object().get(root), "");
    bool have_nodes = false;
    bool nodes_not_list = false;
    for_each_field(root, std::string(), [&](std::string_view key, od::value value) {
      if (key == "nodes") {
        if (type_of(value, "nodes") != od::json_type::array) {
          validate(value, 1, "nodes");
          nodes_not_list = true;
          return;
        }
        if (nodes_scanned_) {
          validate(value, 1, "nodes");  // the "[]" standing in for the nodes read already
        } else if (windows_ != nullptr) {
          validate(value, 1, "nodes");  // the "[]" standing in for the windows
          read_windows();
        } else {
          od::array nodes;
          check(value.get_array().get(nodes), "nodes");
          read_node_array(nodes);
        }
        have_nodes = true;
        return;
      }
      std::string canonical;
      append_canonical(value, canonical, 1, std::string(key));
      trace_.root_fields[std::string(key)] = json::parse(canonical);
    });
    check_no_trailing_content();
    if (!have_nodes || nodes_not_list) {
      throw Error(fmt::format("{}: not a PyTorch execution trace: no \"nodes\" list", source_));
    }
    const json& fields = trace_.root_fields;
    const auto member = [](const json& object, const char* key) -> const json& {
      static const json kNull;
      if (!object.is_object()) return kNull;
      const auto it = object.find(key);
      return it == object.end() ? kNull : *it;
    };
    if (member(fields, "schema").is_string()) trace_.schema = member(fields, "schema").get<std::string>();
    json_to_int64(member(fields, "pid"), trace_.pid);
    const auto root_rank = read_trace_rank(fields, "rank", "rank", source_);
    const auto distributed_rank =
        read_trace_rank(member(fields, "distributedInfo"), "rank", "distributedInfo.rank", source_);
    trace_.rank = root_rank ? root_rank : distributed_rank;
    trace_.linked = member(fields, "snr_linked").is_object();
    return std::move(trace_);
  }

  od::json_type type_of_document(od::document& doc) {
    od::json_type type = od::json_type::null;
    check(doc.type().get(type), "");
    return type;
  }

  void validate_document(od::document& doc) {
    od::json_type type = type_of_document(doc);
    if (type == od::json_type::array) {
      od::array array;
      check(doc.get_array().get(array), "");
      for_each_element(array, "", [&](od::value item) { validate(item, 1, ""); });
    } else if (type == od::json_type::string) {
      std::string_view s;
      check(doc.get_string().get(s), "");
    } else if (type == od::json_type::number) {
      double d = 0;
      check(doc.get_double().get(d), "");
    } else if (type == od::json_type::boolean) {
      bool b = false;
      check(doc.get_bool().get(b), "");
    } else {
      bool null = false;
      check(doc.is_null().get(null), "");
      if (!null) fail_at_location("invalid literal", "");
    }
    check_no_trailing_content();
  }

  void read_windows() {
    const ArrayWindows& split = *windows_;
    windows_ = nullptr;
    walk_windows(split, full_text_, kEmptyMessage, "nodes", [this](od::array nodes) { read_node_array(nodes); });
  }

  // The nodes in [begin, end) of `document`, through the walk.
  void walk_nodes(std::string_view document, size_t begin, size_t end) {
    const WalkState state = save_state();
    walk_window(window_parser_, window_doc_, window_text_, document, document.substr(begin, end - begin), begin,
                kEmptyMessage, "nodes", [this](od::array nodes) { read_node_array(nodes); });
    restore_state(state);
  }

  void read_node_array(od::array nodes) {
    std::string path;
    for_each_element(nodes, "nodes", [&](od::value item) {
      const size_t index = next_index_++;
      path.assign("nodes[");
      fmt::format_to(std::back_inserter(path), "{}]", index);
      RawNode& raw = raw_;
      raw.reset();
      HostNode node(trace_.list_arena.get());
      if (type_of(item, path) == od::json_type::object) {
        raw.is_object = true;
        od::object object;
        check(item.get_object().get(object), path);
        for_each_field(object, path,
                       [&](std::string_view key, od::value v) { read_node_field(key, v, raw, node, path); });
      } else {
        validate(item, 2, path);
      }
      add_node(raw, node, index);
    });
  }

  void add_node(RawNode& raw, HostNode& node, size_t index) {
    std::string problem = finish_node(raw, node);
    if (segment_) {
      // A second reader's node: whether it stays is decided in the merge.
      // Its id is kept as written only where that is not its digits (5.0),
      // for the record of a duplicate.
      if (problem.empty()) {
        trace_.nodes.push_back(std::move(node));
        if (raw.id_text.find_first_not_of("0123456789") != std::string::npos) {
          segment_->id_texts.emplace_back(index, raw.id_text);
        }
      } else {
        segment_->problems.push_back({index, raw.id_text, std::move(problem)});
      }
      return;
    }
    keep_or_skip(node, index, [&] { return raw.id_text; }, std::move(problem));
  }

  // `id_text()`: the node's id as written, asked for only when it is skipped.
  template <typename IdText>
  void keep_or_skip(HostNode& node, size_t index, IdText&& id_text, std::string problem) {
    if (problem.empty() && !seen_ids_.insert(node.id)) problem = "duplicate id";
    if (!problem.empty()) {
      trace_.skipped.push_back({index, std::string(id_text()), std::move(problem)});
    } else {
      if (node.name == "## process_group:init ##") read_process_groups(node, index, trace_);
      trace_.nodes.push_back(std::move(node));
    }
  }

  // The second reader's elements after this reader's, as if read here.
  void merge(HostReader& second) {
    const size_t first_index = next_index_;
    trace_.nodes.reserve(trace_.nodes.size() + second.trace_.nodes.size());
    // The second reader's positions in order: each one is its next problem
    // or else its next node.
    auto node = second.trace_.nodes.begin();
    auto problem = second.segment_->problems.begin();
    auto id_text = second.segment_->id_texts.begin();
    HostNode skipped;
    for (size_t k = 0; k < second.next_index_; ++k) {
      if (problem != second.segment_->problems.end() && problem->index == k) {
        keep_or_skip(skipped, first_index + k, [&] { return problem->id_text; }, std::move(problem->problem));
        ++problem;
        continue;
      }
      HostNode& read = *node++;
      const bool written_otherwise = id_text != second.segment_->id_texts.end() && id_text->first == k;
      keep_or_skip(read, first_index + k,
                   [&] { return written_otherwise ? id_text->second : std::to_string(read.id); }, "");
      if (written_otherwise) ++id_text;
    }
    next_index_ = first_index + second.next_index_;
    pool_.adopt(std::move(*second.trace_.text_pool));
    trace_.list_arena->adopt(std::move(*second.trace_.list_arena));
  }

  static constexpr std::string_view kEmptyMessage = "not JSON: the document is empty";

  // What a second reader keeps beside its nodes (trace_.nodes), by position
  // in its part of the list (every position not a problem is its next node).
  struct Segment {
    struct Problem {
      size_t index;
      std::string id_text;
      std::string problem;
    };
    std::vector<Problem> problems;  // records that are not nodes, in order
    std::vector<std::pair<size_t, std::string>> id_texts;  // nodes whose id is written otherwise than its digits
  };
  std::unique_ptr<Segment> segment_;  // set in a second reader only

  bool nodes_scanned_ = false;  // walk_scanned read "nodes" before the root walk
  size_t window_bytes_;
  HostTrace trace_;
  const ArrayWindows* windows_ = nullptr;  // the "nodes" windows while not yet read
  std::string_view full_text_;
  size_t next_index_ = 0;
  detail::NodeIds seen_ids_;
  RawNode raw_;  // the node being read
  detail::HostNodeScanner scanner_{pool_};
  // The walk of what the scanner declines: parser, document and text.
  od::parser window_parser_;
  od::document window_doc_;
  std::string window_text_;
};

}  // namespace

bool is_trace_annotation(std::string_view name) {
  // Asked of every node by the converter and the linker: most names are
  // operators, ruled out by their first byte.
  if (name.empty() || (name[0] != '#' && name[0] != '[')) return false;
  if (name.starts_with("## ") && name.ends_with(" ##")) return true;
  return name.starts_with("[pytorch|profiler|execution_trace|") ||
         name.starts_with("[pytorch|profiler|execution_graph|");
}

namespace {

// The scanner's reading first; where it gives up (nullopt) or fails, the
// walk alone reads the text again: its trace, or its error message, is the
// reader's, as before the scanner existed.
HostTrace read_text(std::string& text, const std::string& source, size_t window_bytes, detail::NodeReading reading,
                    MappedText* mapped = nullptr, const HostReadOptions& options = {}) {
  if (reading != detail::NodeReading::kWalkOnly) {
    try {
      if (auto trace = HostReader(text, source, window_bytes, options)
                           .read_scanned(mapped ? mapped->text() : text, mapped,
                                         reading == detail::NodeReading::kScanFirstSplit)) {
        return std::move(*trace);
      }
    } catch (const Error&) {
    }
  }
  if (mapped != nullptr) return HostReader(mapped->text(), source, window_bytes, options).read_mapped(*mapped);
  return HostReader(text, source, window_bytes, options).read(text);
}

}  // namespace

HostTrace parse_host_trace(const json& document, const std::string& source_name) {
  std::string text = document.dump();
  return read_text(text, source_name, HostReader::kWindowBytes, detail::NodeReading::kScanFirst);
}

HostTrace parse_host_trace_text(std::string_view text, const std::string& source_name) {
  return detail::parse_host_trace_text(text, source_name, HostReader::kWindowBytes);
}

namespace detail {
HostTrace parse_host_trace_text(std::string_view text, const std::string& source_name, size_t window_bytes,
                                NodeReading reading) {
  std::string owned = text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f &&
                              static_cast<unsigned char>(text[1]) == 0x8b
                          ? gunzip(text, source_name)
                          : std::string(text);
  reject_tar_archive(owned, source_name);
  return read_text(owned, source_name, window_bytes, reading);
}

HostTrace read_host_trace(const std::filesystem::path& path, size_t window_bytes, NodeReading reading,
                          const HostReadOptions& options) {
  if (auto mapped = MappedText::map_plain(path)) {
    reject_tar_archive(mapped->text(), path.string());
    std::string unused;
    return read_text(unused, path.string(), window_bytes, reading, mapped.get(), options);
  }
  std::string text = read_maybe_gzip(path);
  return read_text(text, path.string(), window_bytes, reading, nullptr, options);
}
}  // namespace detail

HostTrace read_host_trace(const std::filesystem::path& path, const HostReadOptions& options) {
  return detail::read_host_trace(path, HostReader::kWindowBytes, detail::NodeReading::kScanFirst, options);
}

}  // namespace snr::pytorch
