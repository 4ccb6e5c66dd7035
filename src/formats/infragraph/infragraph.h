// Reader and writer for InfraGraph documents (YAML or JSON; JSON is read as
// the YAML subset it is). Strict: unknown keys, wrong types, values out of
// range, missing required fields, duplicate names and references to names
// that do not exist are errors naming the file, line, object and field.
// Documents in the older InfraGraph schema (`type:` components, string
// `connections`) are rejected with a message saying so.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "formats/infragraph/model.h"

namespace snr::infragraph {

// Parses an Infrastructure document, or a bare Device document (then
// `bare_device` is set and the result holds just that device).
Infrastructure parse_infrastructure(std::string_view text, std::string_view source);
Infrastructure load_infrastructure(const std::filesystem::path& path);

// Cross-reference checks (run by the parsers; exposed for models built in
// code): names unique per array, links/devices/instances/components that
// edges and instances name exist, composed devices exist and do not nest
// themselves.
void validate_references(const Infrastructure& infra);

enum class OutputFormat { kYaml, kJson };
// Picks JSON for a `.json` extension, YAML otherwise.
OutputFormat format_for_path(const std::filesystem::path& path);

// Deterministic output in schema field order; defaults are written out.
std::string to_yaml(const Infrastructure& infra);
std::string to_json(const Infrastructure& infra);
std::string write_document(const Infrastructure& infra, OutputFormat format);

}  // namespace snr::infragraph
