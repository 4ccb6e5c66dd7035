// The memory of a foreign RV64 process (a program recorded from
// qemu-riscv64): a sparse 64-bit address space of 4 KiB pages. Only mapped
// pages exist; re-execution maps exactly the pages the recorded window
// touched, so an access anywhere else is a divergence and faults instead of
// reading silent zeros. A hash map of pages with a one-entry cache keeps
// scalar loads and stores to a compare and a copy on the hot path.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

namespace snr::sim {

class FlatMemory {
 public:
  static constexpr uint64_t kPageBytes = 4096;

  // Maps the pages covering [address, address + length) (zero-filled when
  // new; pages already mapped keep their bytes). Throws snr::Error when the
  // range wraps the 64-bit space.
  void map(uint64_t address, uint64_t length);
  [[nodiscard]] bool contains(uint64_t address, uint64_t length) const;

  // Caller guarantees contains(address, size).
  void read(uint64_t address, std::span<uint8_t> out) const;
  void write(uint64_t address, std::span<const uint8_t> data);

  template <typename T>
  T load(uint64_t address) const {
    T value{};
    if ((address & (kPageBytes - 1)) + sizeof(T) <= kPageBytes) [[likely]] {
      std::memcpy(&value, page(address >> kPageShift) + (address & (kPageBytes - 1)), sizeof(T));
    } else {
      read(address, std::span<uint8_t>(reinterpret_cast<uint8_t*>(&value), sizeof(T)));
    }
    return value;
  }
  template <typename T>
  void store(uint64_t address, T value) {
    if ((address & (kPageBytes - 1)) + sizeof(T) <= kPageBytes) [[likely]] {
      std::memcpy(page(address >> kPageShift) + (address & (kPageBytes - 1)), &value, sizeof(T));
    } else {
      write(address, std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(&value), sizeof(T)));
    }
  }

  [[nodiscard]] uint64_t page_count() const { return pages_.size(); }
  // Mapped page numbers (address / kPageBytes), ascending (for tests and messages).
  [[nodiscard]] std::vector<uint64_t> mapped_pages() const;

 private:
  static constexpr uint32_t kPageShift = 12;
  using Page = std::array<uint8_t, kPageBytes>;
  // The bytes of mapped page `number`; callers have checked contains().
  uint8_t* page(uint64_t number) const {
    if (number != cached_number_) [[unlikely]] {
      cached_ = pages_.at(number)->data();
      cached_number_ = number;
    }
    return cached_;
  }

  std::unordered_map<uint64_t, std::unique_ptr<Page>> pages_;
  mutable uint64_t cached_number_ = UINT64_MAX;
  mutable uint8_t* cached_ = nullptr;
};

}  // namespace snr::sim
