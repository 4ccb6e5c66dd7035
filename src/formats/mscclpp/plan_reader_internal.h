// The MSCCL++ plan reader's internals, shared by its two files: the JSON
// walk over the plan, GPUs and threadblocks (plan_reader.cc) and the reader
// of one op and its operands (plan_op_reader.cc). Not part of the API.
#pragma once

#include <fmt/format.h>

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "common/error.h"
#include "formats/mscclpp/plan.h"

namespace snr::mscclpp::internal {

using json = nlohmann::json;

// A JSON value for an error message, cut to 40 characters.
std::string describe(const json& value);

class Reader {
 public:
  explicit Reader(std::string source) : source_(std::move(source)) {}

  Plan read(const json& root);

 private:
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw Error(fmt::format("{}: {}: {}", source_, where, what));
  }

  void check_keys(const json& obj, const std::string& where, std::initializer_list<std::string_view> allowed) const;
  const json& require(const json& obj, const std::string& where, std::string_view key) const;
  const json& object(const json& obj, const std::string& where, std::string_view key) const;
  const json& array(const json& obj, const std::string& where, std::string_view key) const;
  uint64_t uint(const json& value, const std::string& where, std::string_view key, uint64_t max) const;
  uint64_t uint_key(const json& obj, const std::string& where, std::string_view key, uint64_t max) const {
    return uint(require(obj, where, key), where, key, max);
  }
  std::string string_key(const json& obj, const std::string& where, std::string_view key) const;
  bool bool_key(const json& obj, const std::string& where, std::string_view key) const;
  BufferType buffer_type(const json& value, const std::string& where, std::string_view key) const;
  ChannelType channel_type(const json& value, const std::string& where, std::string_view key) const;

  void read_gpu_header(const json& gpu, size_t index, Gpu& out);
  void read_threadblocks(const json& gpu, Gpu& out);
  Op read_op(const json& op, const Gpu& gpu, const Threadblock& tb, const std::string& where, bool in_pipeline);
  BufferRef read_ref(const json& ref, const Gpu& gpu, const Threadblock& tb, const Op& op, const std::string& where);
  void check_operands(const Op& op, const Gpu& gpu, const std::string& where) const;

  std::string source_;
  Plan plan_;
  bool concrete_ = false;
};

}  // namespace snr::mscclpp::internal
