#include "api/memory_budget.hpp"

#include <cstdio>

namespace rl {
namespace {

std::uint64_t used = 0;

}  // namespace

MemoryReservation& MemoryReservation::operator=(MemoryReservation&& other) noexcept {
  if (this != &other) {
    reset();
    bytes_ = other.bytes_;
    other.bytes_ = 0;
  }
  return *this;
}

void MemoryReservation::reset() {
  used -= bytes_;
  bytes_ = 0;
}

std::string megabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", static_cast<double>(bytes) / (1 << 20));
  return text;
}

std::string reserve_memory(std::uint64_t bytes, std::string_view what, MemoryReservation* out) {
  // What *out holds now is given back if the new reservation succeeds, so it counts as free for this one.
  const std::uint64_t left = kMemoryBudgetBytes - used + out->bytes_;
  if (bytes > left) {
    return std::string(kOutOfMemoryPrefix) + std::string(what) + " needs " + megabytes(bytes) + ", " +
           megabytes(left) + " of the " + megabytes(kMemoryBudgetBytes) +
           " memory budget is left; dispose of decoders you no longer use or ask for less";
  }
  used = used - out->bytes_ + bytes;
  out->bytes_ = bytes;
  return "";
}

std::uint64_t memory_used_bytes() { return used; }
std::uint64_t memory_budget_bytes() { return kMemoryBudgetBytes; }

}  // namespace rl
