// Register and CSR names as GNU binutils spells them (ABI names for x
// registers), plus the accelerator's v/sem/mxu spellings.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace snr::isa {

// "zero", "ra", "sp", ..., "t6".
std::string_view x_register_abi_name(unsigned index);
// Accepts ABI names, "x0".."x31" and "fp" (= s0).
std::optional<unsigned> parse_x_register(std::string_view text);
// "v0".."v31".
std::optional<unsigned> parse_v_register(std::string_view text);
// "sem0".."sem31"; "s0".."s31" is accepted too where only a semaphore can
// stand (the contract's notation), never printed.
std::optional<unsigned> parse_semaphore(std::string_view text);
// "mxu0".."mxu31".
std::optional<unsigned> parse_mxu(std::string_view text);

// Name of a CSR that objdump prints by name (cycle, instret, mhartid) or
// that the NPU defines (nchips); empty when it has none.
std::string_view csr_name(uint16_t csr);
std::optional<uint16_t> parse_csr_name(std::string_view text);

}  // namespace snr::isa
