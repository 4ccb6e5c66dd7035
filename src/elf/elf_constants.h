// ELF64 field values and record sizes used by the reader and writer
// (System V gABI; RISC-V psABI for EM_RISCV).
#pragma once

#include <cstdint>

namespace snr::elf {

constexpr uint8_t kElfClass64 = 2;
constexpr uint8_t kElfDataLittle = 1;
constexpr uint16_t kElfTypeExec = 2;
constexpr uint16_t kElfTypeDyn = 3;

constexpr uint64_t kElfHeaderBytes = 64;
constexpr uint64_t kProgramHeaderBytes = 56;
constexpr uint64_t kSectionHeaderBytes = 64;
constexpr uint64_t kSymbolBytes = 24;

constexpr uint32_t kProgramTypeLoad = 1;

constexpr uint32_t kSectionTypeNull = 0;
constexpr uint32_t kSectionTypeProgBits = 1;
constexpr uint32_t kSectionTypeSymTab = 2;
constexpr uint32_t kSectionTypeStrTab = 3;
constexpr uint32_t kSectionTypeNoBits = 8;

constexpr uint64_t kSectionFlagWrite = 1;
constexpr uint64_t kSectionFlagAlloc = 2;
constexpr uint64_t kSectionFlagExec = 4;

constexpr uint16_t kSectionIndexAbs = 0xFFF1;

// Segment file offsets are congruent to their addresses modulo this, so
// loaders that map pages (qemu-user, the kernel) accept the files.
constexpr uint64_t kPageBytes = 0x1000;

}  // namespace snr::elf
