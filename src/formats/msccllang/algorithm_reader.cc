// MSCCLang XML reader (pugixml). Besides the syntax it checks what the MSCCL
// runtime relies on: step indices in order, dependencies that exist, chunk
// ranges inside the buffers, and that every send is matched by a receive of
// the same size on the peer's threadblock for that (peer, channel), in order.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <map>
#include <pugixml.hpp>
#include <sstream>
#include <vector>

#include "common/error.h"
#include "formats/msccllang/algorithm.h"

namespace snr::msccllang {
namespace {

struct StepInfo {
  StepType type;
  std::string_view name;
  bool sends, receives, reads_src, writes_dst;
};

constexpr std::array<StepInfo, 9> kSteps{{
    {StepType::kSend, "s", true, false, true, false},
    {StepType::kRecv, "r", false, true, false, true},
    {StepType::kRecvCopySend, "rcs", true, true, false, true},
    {StepType::kRecvReduceSend, "rrs", true, true, true, false},
    {StepType::kRecvReduceCopy, "rrc", false, true, true, true},
    {StepType::kRecvReduceCopySend, "rrcs", true, true, true, true},
    {StepType::kCopy, "cpy", false, false, true, true},
    {StepType::kReduce, "re", false, false, true, true},
    {StepType::kNop, "nop", false, false, false, false},
}};

const StepInfo& info(StepType type) { return kSteps[static_cast<size_t>(type)]; }

class Reader {
 public:
  Reader(std::string_view text, std::string source) : text_(text), source_(std::move(source)) {
    // Every threadblock and step records its line: counting newlines from the
    // start for each would make a file of N lines cost N^2 (minutes for the
    // 10 MB all-pairs algorithms MSCCLang writes for 32 GPUs).
    for (size_t i = 0; i < text_.size(); ++i) {
      if (text_[i] == '\n') newline_offsets_.push_back(i);
    }
  }
  Algorithm read();

 private:
  uint32_t line_at(ptrdiff_t offset) const {
    const auto at = static_cast<size_t>(std::max<ptrdiff_t>(0, offset));
    return 1 + static_cast<uint32_t>(std::lower_bound(newline_offsets_.begin(), newline_offsets_.end(), at) -
                                     newline_offsets_.begin());
  }
  uint32_t line_of(const pugi::xml_node& node) const { return line_at(node.offset_debug()); }
  [[noreturn]] void fail(const pugi::xml_node& node, const std::string& what) const {
    throw Error(fmt::format("{}:{}: <{}>: {}", source_, line_of(node), node.name(), what));
  }
  [[noreturn]] void fail_line(uint32_t line, const std::string& what) const {
    throw Error(fmt::format("{}:{}: {}", source_, line, what));
  }
  void check_attributes(const pugi::xml_node& node, std::initializer_list<std::string_view> allowed) const;
  void check_children(const pugi::xml_node& node, std::string_view allowed) const;
  const char* require(const pugi::xml_node& node, const char* name) const;
  int64_t integer(const pugi::xml_node& node, const char* name, int64_t min, int64_t max) const;
  Buffer buffer(const pugi::xml_node& node, const char* name) const;
  void check_semantics(const Algorithm& algorithm) const;

  std::string_view text_;
  std::string source_;
  std::vector<size_t> newline_offsets_;  // ascending: line n+2 starts after newline_offsets_[n]
};

void Reader::check_attributes(const pugi::xml_node& node, std::initializer_list<std::string_view> allowed) const {
  for (const pugi::xml_attribute& attribute : node.attributes()) {
    if (std::find(allowed.begin(), allowed.end(), std::string_view(attribute.name())) == allowed.end()) {
      fail(node, fmt::format("unknown attribute '{}'", attribute.name()));
    }
  }
}

void Reader::check_children(const pugi::xml_node& node, std::string_view allowed) const {
  for (const pugi::xml_node& child : node.children()) {
    if (child.type() == pugi::node_element && allowed != child.name()) {
      fail(child, fmt::format("unexpected element inside <{}> (expected <{}>)", node.name(), allowed));
    }
    if (child.type() == pugi::node_pcdata) {
      const std::string_view value = child.value();
      if (value.find_first_not_of(" \t\r\n") != std::string_view::npos) fail(node, "unexpected text content");
    }
  }
}

const char* Reader::require(const pugi::xml_node& node, const char* name) const {
  const pugi::xml_attribute attribute = node.attribute(name);
  if (!attribute) fail(node, fmt::format("missing attribute '{}'", name));
  return attribute.value();
}

int64_t Reader::integer(const pugi::xml_node& node, const char* name, int64_t min, int64_t max) const {
  const std::string_view text = require(node, name);
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    fail(node, fmt::format("'{}' must be an integer, got \"{}\"", name, text));
  }
  if (value < min || value > max) fail(node, fmt::format("'{}' = {} is out of range [{}, {}]", name, value, min, max));
  return value;
}

Buffer Reader::buffer(const pugi::xml_node& node, const char* name) const {
  const std::string_view text = require(node, name);
  if (text == "i") return Buffer::kInput;
  if (text == "o") return Buffer::kOutput;
  if (text == "s") return Buffer::kScratch;
  fail(node, fmt::format("'{}' must be a buffer \"i\", \"o\" or \"s\", got \"{}\"", name, text));
}

Algorithm Reader::read() {
  pugi::xml_document doc;
  // A fragment keeps text outside the root element, which a document drops.
  const pugi::xml_parse_result parsed =
      doc.load_buffer(text_.data(), text_.size(), pugi::parse_default | pugi::parse_fragment, pugi::encoding_utf8);
  if (!parsed) {
    fail_line(line_at(parsed.offset), fmt::format("not valid XML: {}", parsed.description()));
  }
  const pugi::xml_node algo = doc.document_element();
  if (!algo) throw Error(fmt::format("{}: no <algo> element (an MSCCLang XML file holds one)", source_));
  if (std::string_view(algo.name()) != "algo") {
    throw Error(fmt::format("{}: the root element is <{}>, expected <algo>", source_, algo.name()));
  }
  // XML has one root; the parser keeps reading after it, so a second
  // algorithm or a program's own output would otherwise be dropped.
  for (const pugi::xml_node& top : doc.children()) {
    if (top == algo) continue;
    if (top.type() == pugi::node_element) {
      fail(top, fmt::format("a second root element <{}> after <algo>: one algorithm per file", top.name()));
    }
    if (top.type() == pugi::node_pcdata || top.type() == pugi::node_cdata) {
      std::string_view text = top.value();
      const size_t start = std::min(text.find_first_not_of(" \t\r\n"), text.size());
      text = text.substr(start);
      fail_line(line_at(static_cast<size_t>(top.offset_debug()) + start),
                fmt::format("text outside <algo> (\"{}\"): a generator's printed output, such as MSCCLang's own "
                            "failed Check(), must not be part of the file",
                            text.substr(0, std::min<size_t>(text.find('\n'), 60))));
    }
  }
  check_attributes(algo, {"name", "proto", "nchannels", "nchunksperloop", "ngpus", "coll", "inplace", "outofplace",
                          "minBytes", "maxBytes", "redop"});
  check_children(algo, "gpu");
  Algorithm out;
  out.name = require(algo, "name");
  out.protocol = require(algo, "proto");
  if (out.protocol != "Simple" && out.protocol != "LL" && out.protocol != "LL128") {
    fail(algo, fmt::format("'proto' must be Simple, LL or LL128, got \"{}\"", out.protocol));
  }
  out.collective = require(algo, "coll");
  out.channels = static_cast<uint32_t>(integer(algo, "nchannels", 1, 1024));
  out.chunks_per_loop = static_cast<uint32_t>(integer(algo, "nchunksperloop", 1, 1 << 24));
  out.inplace = integer(algo, "inplace", 0, 1) == 1;
  const auto ngpus = static_cast<uint32_t>(integer(algo, "ngpus", 1, 1 << 20));
  for (const pugi::xml_node& gpu : algo.children("gpu")) {
    check_attributes(gpu, {"id", "i_chunks", "o_chunks", "s_chunks"});
    check_children(gpu, "tb");
    Gpu g;
    g.id = static_cast<uint32_t>(integer(gpu, "id", 0, ngpus - 1));
    if (g.id != out.gpus.size()) fail(gpu, fmt::format("gpu id {} out of order (expected {})", g.id, out.gpus.size()));
    g.input_chunks = static_cast<uint32_t>(integer(gpu, "i_chunks", 0, 1 << 24));
    g.output_chunks = static_cast<uint32_t>(integer(gpu, "o_chunks", 0, 1 << 24));
    g.scratch_chunks = static_cast<uint32_t>(integer(gpu, "s_chunks", 0, 1 << 24));
    for (const pugi::xml_node& tb : gpu.children("tb")) {
      check_attributes(tb, {"id", "send", "recv", "chan"});
      check_children(tb, "step");
      Threadblock t;
      t.line = line_of(tb);
      t.id = static_cast<uint32_t>(integer(tb, "id", 0, 1 << 20));
      for (const Threadblock& other : g.threadblocks) {
        if (other.id == t.id) fail(tb, fmt::format("threadblock id {} is used twice on gpu {}", t.id, g.id));
      }
      t.send_peer = static_cast<int32_t>(integer(tb, "send", -1, ngpus - 1));
      t.recv_peer = static_cast<int32_t>(integer(tb, "recv", -1, ngpus - 1));
      // The MSCCL runtime refuses a negative channel and connects peers only on
      // the channels below nchannels; MSCCLang writes -1 for none.
      const int64_t channel = integer(tb, "chan", INT32_MIN, INT32_MAX);
      if (channel < 0 || channel >= out.channels) {
        fail(tb, fmt::format("gpu {} threadblock {}: 'chan' = {} is not a channel of the algorithm ([0, {}) from "
                             "'nchannels'); the MSCCL runtime runs each threadblock on one of them",
                             g.id, t.id, channel, out.channels));
      }
      t.channel = static_cast<uint32_t>(channel);
      if (t.send_peer == static_cast<int32_t>(g.id) || t.recv_peer == static_cast<int32_t>(g.id)) {
        fail(tb, "a threadblock cannot send to or receive from its own GPU");
      }
      for (const pugi::xml_node& step : tb.children("step")) {
        check_attributes(step, {"s", "type", "srcbuf", "srcoff", "dstbuf", "dstoff", "cnt", "depid", "deps", "hasdep"});
        Step s;
        s.line = line_of(step);
        s.index = static_cast<uint32_t>(integer(step, "s", 0, 1 << 24));
        if (s.index != t.steps.size()) fail(step, fmt::format("step {} out of order (expected {})", s.index, t.steps.size()));
        const std::string_view type = require(step, "type");
        const auto it = std::find_if(kSteps.begin(), kSteps.end(), [&](const StepInfo& i) { return i.name == type; });
        if (it == kSteps.end()) {
          fail(step, fmt::format("unknown step type '{}' (gpu {}, threadblock {}, step {})", type, g.id, t.id, s.index));
        }
        s.type = it->type;
        s.count = static_cast<uint32_t>(integer(step, "cnt", 0, 1 << 24));
        s.src = buffer(step, "srcbuf");
        s.dst = buffer(step, "dstbuf");
        // Steps that do not use an operand may write -1 for its offset.
        s.src_offset = static_cast<uint32_t>(std::max<int64_t>(0, integer(step, "srcoff", -1, 1 << 24)));
        s.dst_offset = static_cast<uint32_t>(std::max<int64_t>(0, integer(step, "dstoff", -1, 1 << 24)));
        s.dep_threadblock = static_cast<int32_t>(integer(step, "depid", -1, 1 << 20));
        s.dep_step = static_cast<int32_t>(integer(step, "deps", -1, 1 << 24));
        s.has_dependents = integer(step, "hasdep", 0, 1) == 1;
        if ((s.dep_threadblock < 0) != (s.dep_step < 0)) fail(step, "'depid' and 'deps' must both be -1 or both be set");
        const StepInfo& si = info(s.type);
        if ((si.sends && t.send_peer < 0) || (si.receives && t.recv_peer < 0)) {
          fail(step, fmt::format("step '{}' needs the threadblock's {} peer, which is -1", si.name,
                                 si.sends && t.send_peer < 0 ? "send" : "recv"));
        }
        if (s.type != StepType::kNop && s.count == 0) fail(step, "'cnt' must be positive");
        auto in_range = [&](Buffer b, uint32_t offset, const char* role) {
          // In place, an algorithm without output chunks writes its result over the input.
          uint32_t chunks = g.chunks(b);
          if (b == Buffer::kOutput && chunks == 0 && out.inplace) chunks = g.input_chunks;
          if (uint64_t{offset} + s.count > chunks) {
            fail(step, fmt::format("{} chunks [{}, {}) of buffer '{}' are out of range: gpu {} has {}", role, offset,
                                   uint64_t{offset} + s.count, to_string(b), g.id, chunks));
          }
        };
        if (si.reads_src || si.sends) in_range(s.src, s.src_offset, "source");
        if (si.writes_dst || si.receives) in_range(s.dst, s.dst_offset, "destination");
        t.steps.push_back(s);
      }
      g.threadblocks.push_back(std::move(t));
    }
    out.gpus.push_back(std::move(g));
  }
  if (out.gpus.size() != ngpus) fail(algo, fmt::format("'ngpus' is {} but {} <gpu> elements follow", ngpus, out.gpus.size()));
  check_semantics(out);
  return out;
}

void Reader::check_semantics(const Algorithm& algorithm) const {
  // Dependencies point at existing steps of another threadblock on the same GPU.
  for (const Gpu& g : algorithm.gpus) {
    for (const Threadblock& t : g.threadblocks) {
      for (const Step& s : t.steps) {
        if (s.dep_threadblock < 0) continue;
        const auto dep = std::find_if(g.threadblocks.begin(), g.threadblocks.end(), [&](const Threadblock& o) {
          return o.id == static_cast<uint32_t>(s.dep_threadblock);
        });
        if (dep == g.threadblocks.end() || static_cast<size_t>(s.dep_step) >= dep->steps.size()) {
          fail_line(s.line, fmt::format("gpu {} threadblock {} step {} depends on threadblock {} step {}, which does "
                                        "not exist",
                                        g.id, t.id, s.index, s.dep_threadblock, s.dep_step));
        }
      }
    }
  }
  // One sending and one receiving threadblock per (peer, channel); sends and receives pair up in order.
  constexpr const char* kOneConnection =
      " (the MSCCL runtime gives a (peer, channel) one connection, whose FIFO one threadblock drives; use another "
      "channel)";
  using Key = std::tuple<uint32_t, uint32_t, uint32_t>;  // sender, receiver, channel
  std::map<Key, std::pair<const Threadblock*, const Threadblock*>> links;
  for (const Gpu& g : algorithm.gpus) {
    for (const Threadblock& t : g.threadblocks) {
      if (t.send_peer >= 0) {
        auto& link = links[{g.id, static_cast<uint32_t>(t.send_peer), t.channel}];
        if (link.first) {
          fail_line(t.line, fmt::format("gpu {}: threadblocks {} and {} both send to gpu {} on channel {}{}", g.id,
                                        link.first->id, t.id, t.send_peer, t.channel, kOneConnection));
        }
        link.first = &t;
      }
      if (t.recv_peer >= 0) {
        auto& link = links[{static_cast<uint32_t>(t.recv_peer), g.id, t.channel}];
        if (link.second) {
          fail_line(t.line, fmt::format("gpu {}: threadblocks {} and {} both receive from gpu {} on channel {}{}", g.id,
                                        link.second->id, t.id, t.recv_peer, t.channel, kOneConnection));
        }
        link.second = &t;
      }
    }
  }
  for (const auto& [key, link] : links) {
    const auto [from, to, channel] = key;
    std::vector<const Step*> sends, recvs;
    if (link.first) {
      for (const Step& s : link.first->steps) if (info(s.type).sends) sends.push_back(&s);
    }
    if (link.second) {
      for (const Step& s : link.second->steps) if (info(s.type).receives) recvs.push_back(&s);
    }
    for (size_t i = 0; i < std::max(sends.size(), recvs.size()); ++i) {
      if (i >= recvs.size()) {
        fail_line(sends[i]->line, fmt::format("gpu {} sends to gpu {} on channel {} (its send #{}), but gpu {} has no "
                                              "matching receive", from, to, channel, i, to));
      }
      if (i >= sends.size()) {
        fail_line(recvs[i]->line, fmt::format("gpu {} receives from gpu {} on channel {} (its receive #{}), but gpu {} "
                                              "sends nothing to match it", to, from, channel, i, from));
      }
      if (sends[i]->count != recvs[i]->count) {
        fail_line(recvs[i]->line, fmt::format("gpu {} receives {} chunks from gpu {} but the matching send (line {}) "
                                              "sends {}", to, recvs[i]->count, from, sends[i]->line, sends[i]->count));
      }
    }
  }
}

}  // namespace

std::string_view to_string(StepType type) { return info(type).name; }

std::string_view to_string(Buffer buffer) {
  return buffer == Buffer::kInput ? "i" : buffer == Buffer::kOutput ? "o" : "s";
}

Algorithm parse_algorithm(std::string_view xml_text, const std::string& source) {
  return Reader(xml_text, source).read();
}

Algorithm read_algorithm_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{}: cannot open MSCCLang algorithm", path));
  std::ostringstream text;
  text << in.rdbuf();
  return parse_algorithm(text.str(), path);
}

std::string summarize(const Algorithm& algorithm) {
  std::string out = fmt::format("algorithm {}: collective {}, protocol {}, {}in-place, {} GPUs, {} channels, {} chunks "
                                "per loop\n",
                                algorithm.name, algorithm.collective, algorithm.protocol, algorithm.inplace ? "" : "not ",
                                algorithm.gpus.size(), algorithm.channels, algorithm.chunks_per_loop);
  for (const Gpu& g : algorithm.gpus) {
    std::map<StepType, uint64_t> counts;
    for (const Threadblock& t : g.threadblocks) {
      for (const Step& s : t.steps) ++counts[s.type];
    }
    std::string steps;
    for (const auto& [type, n] : counts) steps += fmt::format(" {}={}", to_string(type), n);
    out += fmt::format("gpu {}: chunks i/o/s {}/{}/{}, {} threadblocks; steps:{}\n", g.id, g.input_chunks,
                       g.output_chunks, g.scratch_chunks, g.threadblocks.size(), steps);
  }
  return out;
}

}  // namespace snr::msccllang
