// One node of a host execution trace walked with simdjson's on-demand API
// into the reader's per-node record (RawNode, then HostNode): the way every
// node was read before the scanner existed, and what still reads the nodes
// the scanner declines and every node when the scanner's reading gives up.
// The document around the nodes (windows, the root object, the scanner,
// two halves at once) is the reader's (host_trace.cc). Internal to
// formats/pytorch.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/pytorch/host_trace.h"
#include "formats/pytorch/host_trace_values.h"
#include "formats/pytorch/ondemand_walker.h"
#include "formats/pytorch/text_pool.h"

namespace snr::pytorch::detail {

class HostNodeWalk : protected OndemandWalker {
 protected:
  // `pool` keeps the texts the nodes' views point into; it outlives this.
  HostNodeWalk(std::string_view text, const std::string& source, TextPool& pool)
      : OndemandWalker(text, source), pool_(pool) {}

  // Reads the field `key` of a node object into `raw` (structure) or `node`
  // (device fields of linked traces, which need no layout).
  void read_node_field(std::string_view key, od::value v, RawNode& raw, HostNode& node, const std::string& path);
  // Returns "" on success or why the node was skipped.
  std::string finish_node(RawNode& raw, HostNode& node);

  TextPool& pool_;
  HostReadOptions options_;  // what finish_node leaves out

 private:
  // `depth`: the list's own nesting depth (the root object is 0).
  void read_list(od::value value, ListField& field, size_t depth, const std::string& path);
  void read_argument_object(od::value value, ArgumentLists& lists, const std::string& path);
  template <typename Visit>
  bool for_each_listed_object(od::value value, const std::string& path, Visit&& visit);
  void read_attrs(od::value value, RawNode& raw, const std::string& path);
  void read_syncs(od::value value, HostNode& node, const std::string& path);
  void read_stream_waits(od::value value, HostNode& node, const std::string& path);

  std::string scratch_;  // one list element's text before it is interned
  // One attribute's fields (key, compact value text) while it is read.
  std::vector<std::pair<std::string_view, std::string>> attr_fields_;
};

}  // namespace snr::pytorch::detail
