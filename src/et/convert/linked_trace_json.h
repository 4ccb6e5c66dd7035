// Serialises a (linked) host trace back to JSON: the execution-trace document
// in the 1.0.2+ node layout with the device fields of
// docs/formats/pytorch.md ("Linked trace"). Keys are sorted, so the output is
// byte-identical for identical inputs. Nodes are written
// straight from the kept records, one per line, in pieces.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "et/convert/trace_linker.h"
#include "formats/pytorch/host_trace.h"

namespace snr::et_convert {

// The document as write_linked_trace writes it, without the "snr_linked" summary.
std::string host_trace_to_json_text(const pytorch::HostTrace& trace);

// Adds the "snr_linked" summary and writes atomically (one node per line).
void write_linked_trace(const std::filesystem::path& path, const pytorch::HostTrace& trace,
                        const LinkStats& stats, const std::string& device_trace_name);

}  // namespace snr::et_convert
