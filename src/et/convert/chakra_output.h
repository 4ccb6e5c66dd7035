// Encodes converted graphs as Chakra .et files through snr_chakra's writer.
#pragma once

#include <filesystem>
#include <string>

#include "et/convert/converted_graph.h"
#include "formats/chakra/et_def.pb.h"

namespace snr::et_convert {

ChakraProtoMsg::Node to_chakra_node(const ConvertedNode& node);
// The same into `out`, cleared first (its storage is reused).
void fill_chakra_node(const ConvertedNode& node, ChakraProtoMsg::Node& out);

// Writes `<prefix>.<rank>.et` atomically; returns the path written.
std::filesystem::path write_chakra_rank(const std::filesystem::path& prefix,
                                        const ConvertedGraph& graph, const std::string& converter);

}  // namespace snr::et_convert
