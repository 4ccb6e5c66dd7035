// Loading of the JSON documents PyTorch's profilers write: plain or gzip
// (.json / .json.gz, sniffed from the magic bytes, not the name), parsed with
// nlohmann-json. Syntax errors name the file and the byte offset.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace snr::pytorch {

// Whole file contents, inflated when the file starts with the gzip magic;
// a tar archive (plain or gzip) is an error that says so.
std::string read_maybe_gzip(const std::filesystem::path& path);

// Throws snr::Error when `text` is a tar archive (POSIX "ustar" header),
// naming its first member: PyTorch's tools also ship traces as .tar.gz,
// which otherwise fails as a JSON syntax error at byte 1.
void reject_tar_archive(std::string_view text, const std::string& source_name);

// Inflates a gzip buffer; `source_name` names the input in errors.
std::string gunzip(std::string_view compressed, const std::string& source_name);

// Asks for transparent huge pages under a large buffer about to be filled
// (the inflated text, the record lists): the first touch of a fresh 4 KiB
// page is a fault, and a large trace touches hundreds of megabytes. Advice
// only: nothing changes where the kernel declines or lacks them.
void advise_huge_pages(const void* data, size_t bytes);

// Parses `text` (plain or gzip bytes) with snr::parse_json_input: broken
// documents throw snr::Error naming the source, line, byte and key.
nlohmann::json parse_json_document(std::string_view text, const std::string& source_name);

// Small typed accessors used by the readers: nullopt-like defaults are the
// caller's business, these only convert when the JSON kind fits.
bool json_to_int64(const nlohmann::json& value, int64_t& out);
bool json_to_uint64(const nlohmann::json& value, uint64_t& out);

// The rank a trace names for itself (a host trace's root "rank" or
// "distributedInfo": {"rank"}, a Kineto trace's distributedInfo.rank) names
// the output files and sizes the job's process groups, so it has the range
// of `snr et convert --rank`. "" for an integer in that range (`rank` holds
// it), else why not.
std::string trace_rank_problem(const std::optional<int64_t>& rank);

// `key` of `object` read as a trace's own rank: nullopt when absent, an
// error naming `source` and `name` when it is not a valid rank.
std::optional<int64_t> read_trace_rank(const nlohmann::json& object, const char* key, std::string_view name,
                                       const std::string& source);

}  // namespace snr::pytorch
