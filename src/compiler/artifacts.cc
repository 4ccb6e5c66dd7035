#include "compiler/artifacts.h"

#include <fmt/format.h>
#include <zstd.h>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/file_io.h"
#include "common/json_input.h"

namespace snr::compiler {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

std::string_view layout_name(TensorLayout layout) {
  switch (layout) {
    case TensorLayout::kRowMajor: return "row_major";
    case TensorLayout::kWeightTiles: return "weight_tiles";
    case TensorLayout::kTransposedTiles: return "transposed_tiles";
  }
  return "?";
}

TensorLayout parse_layout(const std::string& text, const std::string& where) {
  for (TensorLayout l : {TensorLayout::kRowMajor, TensorLayout::kWeightTiles, TensorLayout::kTransposedTiles}) {
    if (layout_name(l) == text) return l;
  }
  throw Error(fmt::format("{}: unknown layout '{}'", where, text));
}

std::string compress(const std::vector<uint8_t>& bytes) {
  std::string out(ZSTD_compressBound(bytes.size()), '\0');
  const size_t n = ZSTD_compress(out.data(), out.size(), bytes.data(), bytes.size(), 3);
  if (ZSTD_isError(n)) throw Error(fmt::format("zstd: {}", ZSTD_getErrorName(n)));
  out.resize(n);
  return out;
}

std::vector<uint8_t> decompress(const std::vector<uint8_t>& data, uint64_t expected, const std::string& where) {
  std::vector<uint8_t> out(expected);
  const size_t n = ZSTD_decompress(out.data(), out.size(), data.data(), data.size());
  if (ZSTD_isError(n)) throw Error(fmt::format("{}: {}", where, ZSTD_getErrorName(n)));
  if (n != expected) throw Error(fmt::format("{}: holds {} bytes, manifest says {}", where, n, expected));
  return out;
}

// Typed field access with "file: field" errors.
struct Reader {
  std::string file;
  const json& at(const json& j, const std::string& key, const std::string& where) const {
    if (!j.is_object() || !j.contains(key)) throw Error(fmt::format("{}: {} has no '{}'", file, where, key));
    return j.at(key);
  }
  uint64_t u64(const json& j, const std::string& key, const std::string& where) const {
    const json& v = at(j, key, where);
    if (!v.is_number_unsigned()) throw Error(fmt::format("{}: {}.{} is not an unsigned integer", file, where, key));
    return v.get<uint64_t>();
  }
  double real(const json& j, const std::string& key, const std::string& where) const {
    const json& v = at(j, key, where);
    if (!v.is_number()) throw Error(fmt::format("{}: {}.{} is not a number", file, where, key));
    return v.get<double>();
  }
  std::string str(const json& j, const std::string& key, const std::string& where) const {
    const json& v = at(j, key, where);
    if (!v.is_string()) throw Error(fmt::format("{}: {}.{} is not a string", file, where, key));
    return v.get<std::string>();
  }
  const json& array(const json& j, const std::string& key, const std::string& where) const {
    const json& v = at(j, key, where);
    if (!v.is_array()) throw Error(fmt::format("{}: {}.{} is not an array", file, where, key));
    return v;
  }
};

}  // namespace

bool is_compiled_model_directory(const fs::path& directory) {
  return fs::is_directory(directory) && fs::is_regular_file(directory / "manifest.json");
}

void write_compiled_model(const CompiledModel& model, const fs::path& directory) {
  const ModelImage& image = model.image;
  fs::create_directories(directory);
  json manifest;
  manifest["format"] = "snr-compiled-model";
  manifest["version"] = kManifestVersion;
  manifest["name"] = image.name;
  manifest["chips"] = image.chips();
  manifest["seed"] = image.seed;
  manifest["hardware"] = image.hw.to_yaml();
  manifest["spec"] = model.spec.to_text();
  manifest["layer_instructions"] = image.layer_instructions;
  manifest["rows"] = model.rows;
  manifest["real_rows"] = model.real_rows;
  manifest["vmem"] = {{"capacity_bytes", model.vmem.capacity_bytes},
                      {"peak_used_bytes", model.vmem.peak_used_bytes},
                      {"allocations", model.vmem.allocations},
                      {"free_at_peak_bytes", model.vmem.free_at_peak_bytes},
                      {"largest_free_at_peak_bytes", model.vmem.largest_free_at_peak_bytes},
                      {"median_free_fraction", model.vmem.median_free_fraction()},
                      {"median_largest_free_over_free", model.vmem.median_contiguous_fraction()}};
  json ops = json::array();
  std::string pc_map = "# pc_begin\tpc_end\top\tkind\n";
  for (const OpInfo& op : image.ops) {
    ops.push_back({{"name", op.name},
                   {"kind", op.kind},
                   {"pc_begin", op.pc_begin},
                   {"pc_end", op.pc_end},
                   {"flops", op.flops},
                   {"hbm_bytes", op.hbm_bytes},
                   {"network_bytes", op.network_bytes},
                   {"detail", op.detail}});
    pc_map += fmt::format("{:#x}\t{:#x}\t{}\t{}\n", op.pc_begin, op.pc_end, op.name, op.kind);
  }
  manifest["ops"] = std::move(ops);
  manifest["pc_map"] = "pc_map.tsv";
  json chips = json::array();
  for (uint32_t c = 0; c < image.chips(); ++c) {
    const ChipHbmImage& hbm = image.hbm[c];
    json tensors = json::array(), regions = json::array(), outputs = json::array();
    for (const GeneratedTensor& t : hbm.tensors) {
      tensors.push_back({{"name", t.name},
                         {"address", t.address},
                         {"rows", t.rows},
                         {"cols", t.cols},
                         {"type", t.type == ElementType::kBf16 ? "bf16" : "f32"},
                         {"layout", layout_name(t.layout)},
                         {"stream", t.stream},
                         {"scale", t.scale},
                         {"offset", t.offset},
                         {"replicate_rows", t.replicate_rows}});
    }
    std::vector<uint8_t> blob;
    for (const ExplicitRegion& r : hbm.regions) {
      regions.push_back({{"name", r.name}, {"address", r.address}, {"bytes", r.bytes.size()}, {"file_offset", blob.size()}});
      blob.insert(blob.end(), r.bytes.begin(), r.bytes.end());
    }
    for (const auto& o : hbm.outputs) outputs.push_back({{"name", o.name}, {"address", o.address}, {"bytes", o.bytes}});
    const std::string elf_name = fmt::format("chip{}.elf", c);
    const std::string hbm_name = fmt::format("hbm.chip{}.bin.zst", c);
    chips.push_back({{"program", elf_name},
                     {"hbm_file", hbm_name},
                     {"hbm_file_bytes", blob.size()},
                     {"tensors", std::move(tensors)},
                     {"regions", std::move(regions)},
                     {"outputs", std::move(outputs)}});
    const std::vector<uint8_t> elf = elf::write_elf(image.programs[c]);
    write_file_atomic(directory / elf_name, std::string_view(reinterpret_cast<const char*>(elf.data()), elf.size()));
    write_file_atomic(directory / hbm_name, compress(blob));
  }
  manifest["chip_images"] = std::move(chips);
  write_file_atomic(directory / "pc_map.tsv", pc_map);
  // The manifest goes last: a directory with a manifest is complete.
  write_file_atomic(directory / "manifest.json", manifest.dump(1) + "\n");
}

ModelImage read_compiled_model(const fs::path& directory) {
  const fs::path manifest_path = directory / "manifest.json";
  Reader r{manifest_path.string()};
  const json manifest = parse_json_input(read_file(manifest_path), r.file);
  if (r.str(manifest, "format", "manifest") != "snr-compiled-model") {
    throw Error(fmt::format("{}: not a compiled model (format is not 'snr-compiled-model')", r.file));
  }
  const uint64_t version = r.u64(manifest, "version", "manifest");
  if (version != kManifestVersion) {
    throw Error(fmt::format("{}: version {} is not supported (this snr reads {})", r.file, version, kManifestVersion));
  }
  ModelImage image;
  image.name = r.str(manifest, "name", "manifest");
  image.seed = r.u64(manifest, "seed", "manifest");
  image.layer_instructions = r.u64(manifest, "layer_instructions", "manifest");
  image.hw = with_error_context(r.file + ": hardware",
                                [&] { return hw::parse_config_yaml(r.str(manifest, "hardware", "manifest"), "hardware"); });
  uint64_t previous_end = 0;
  for (const json& op : r.array(manifest, "ops", "manifest")) {
    OpInfo info;
    const std::string where = fmt::format("ops[{}]", image.ops.size());
    info.name = r.str(op, "name", where);
    info.kind = r.str(op, "kind", where);
    info.pc_begin = r.u64(op, "pc_begin", where);
    info.pc_end = r.u64(op, "pc_end", where);
    info.flops = r.u64(op, "flops", where);
    info.hbm_bytes = r.u64(op, "hbm_bytes", where);
    info.network_bytes = r.u64(op, "network_bytes", where);
    info.detail = r.str(op, "detail", where);
    if (info.pc_end < info.pc_begin || info.pc_begin < previous_end) {
      throw Error(fmt::format("{}: {} ({}) has a PC range that is empty-inverted or overlaps the previous op", r.file,
                              where, info.name));
    }
    previous_end = info.pc_end;
    image.ops.push_back(std::move(info));
  }
  const uint64_t chips = r.u64(manifest, "chips", "manifest");
  const json& chip_images = r.array(manifest, "chip_images", "manifest");
  if (chips == 0 || chips > 256 || chip_images.size() != chips) {
    throw Error(fmt::format("{}: chips = {} but chip_images has {} entries", r.file, chips, chip_images.size()));
  }
  for (uint64_t c = 0; c < chips; ++c) {
    const json& ci = chip_images[c];
    const std::string where = fmt::format("chip_images[{}]", c);
    const fs::path program = directory / r.str(ci, "program", where);
    image.programs.push_back(elf::read_elf_file(program.string()).value());
    ChipHbmImage hbm;
    for (const json& t : r.array(ci, "tensors", where)) {
      GeneratedTensor g;
      const std::string tw = where + ".tensors";
      g.name = r.str(t, "name", tw);
      g.address = r.u64(t, "address", tw);
      g.rows = r.u64(t, "rows", tw);
      g.cols = r.u64(t, "cols", tw);
      const std::string type = r.str(t, "type", tw);
      if (type != "bf16" && type != "f32") throw Error(fmt::format("{}: {} {}: unknown type '{}'", r.file, tw, g.name, type));
      g.type = type == "bf16" ? ElementType::kBf16 : ElementType::kF32;
      g.layout = parse_layout(r.str(t, "layout", tw), r.file + ": " + tw);
      g.stream = r.u64(t, "stream", tw);
      g.scale = r.real(t, "scale", tw);
      g.offset = r.real(t, "offset", tw);
      g.replicate_rows = r.u64(t, "replicate_rows", tw);
      if (g.rows > (1u << 30) || g.cols > (1u << 20) ||
          (g.layout != TensorLayout::kRowMajor && (g.rows % 128 != 0 || g.cols % 128 != 0))) {
        throw Error(fmt::format("{}: {} {}: shape {}x{} does not fit its layout", r.file, tw, g.name, g.rows, g.cols));
      }
      hbm.tensors.push_back(std::move(g));
    }
    const fs::path blob_path = directory / r.str(ci, "hbm_file", where);
    const std::vector<uint8_t> blob =
        decompress(read_file_bytes(blob_path), r.u64(ci, "hbm_file_bytes", where), blob_path.string());
    for (const json& reg : r.array(ci, "regions", where)) {
      ExplicitRegion region;
      const std::string rw = where + ".regions";
      region.name = r.str(reg, "name", rw);
      region.address = r.u64(reg, "address", rw);
      const uint64_t bytes = r.u64(reg, "bytes", rw), at = r.u64(reg, "file_offset", rw);
      if (at > blob.size() || bytes > blob.size() - at) {
        throw Error(fmt::format("{}: {} {}: bytes [{}, +{}) are outside {} ({} bytes)", r.file, rw, region.name, at,
                                bytes, blob_path.string(), blob.size()));
      }
      region.bytes.assign(blob.begin() + static_cast<std::ptrdiff_t>(at),
                          blob.begin() + static_cast<std::ptrdiff_t>(at + bytes));
      hbm.regions.push_back(std::move(region));
    }
    for (const json& o : r.array(ci, "outputs", where)) {
      hbm.outputs.push_back({r.str(o, "name", where), r.u64(o, "address", where), r.u64(o, "bytes", where)});
    }
    image.hbm.push_back(std::move(hbm));
  }
  return image;
}

}  // namespace snr::compiler
