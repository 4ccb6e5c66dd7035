// `snr et jsonize` / `unjsonize`: a Chakra trace as protobuf canonical JSON
// (the encoding Chakra's jsonizer prints with MessageToJson: lowerCamelCase
// field names, 64-bit integers as strings, default values omitted, a set
// oneof member always printed), wrapped in one valid JSON document:
//
//   {
//     "globalMetadata": { ... },
//     "nodes": [
//       { ... },
//       ...
//     ]
//   }
//
// Unknown fields (from a newer schema) are kept as "@unknownFields": the
// base64 of their wire bytes, on the object of the message that held them,
// so .et -> JSON -> .et reproduces the same bytes. Both directions stream:
// jsonize holds one node at a time; unjsonize parses the document with a
// callback that converts and drops each node as soon as it is complete.
#pragma once

#include <filesystem>
#include <string>

#include "formats/chakra/et_def.pb.h"
#include "formats/chakra/et_writer.h"

namespace snr::et {

struct JsonizeSummary {
  uint64_t nodes = 0;
  uint64_t skipped_records = 0;
};

JsonizeSummary jsonize_trace(const std::filesystem::path& et_path, const std::filesystem::path& json_path,
                             bool lenient = false);
JsonizeSummary unjsonize_trace(const std::filesystem::path& json_path, const std::filesystem::path& et_path,
                               const chakra::EtWriteOptions& options = {});

// One message as an indented JSON object (with "@unknownFields"), and back.
std::string message_to_json(const google::protobuf::Message& message, int indent = 2);
// `what` names the message in errors ("node 3", "byte 120").
void message_from_json(const std::string& json, google::protobuf::Message& message, const std::string& what);

}  // namespace snr::et
