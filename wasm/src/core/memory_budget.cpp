#include "core/memory_budget.hpp"

#include <cstdio>
#include <cstdlib>

namespace rl {
namespace {

std::uint64_t used = 0;

constexpr std::uint64_t kProbeBytes = std::uint64_t(1) << 20;  // smaller requests fit in the heap's slack
constexpr std::uint64_t kProbeSlack = std::uint64_t(1) << 16;
// volatile: the compiler may otherwise drop a malloc whose block is only freed, taking the result as non-null
void* volatile probe = nullptr;

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
    return std::string(kOutOfMemoryPrefix) + std::string(what) + " needs " + megabytes(bytes) + ", " + megabytes(left) +
           " of the " + megabytes(kMemoryBudgetBytes) +
           " memory budget is left; dispose of decoders you no longer use or ask for less";
  }
  // The budget bounds what is live, not where it lies: after frees of different sizes the heap may hold no free
  // block this large and be unable to grow (at its maximum), and a std::vector that then fails to allocate
  // aborts. So a large request is first allocated as one block and freed: the caller's allocations, made right
  // after on this single thread and together no larger (plus the slack for its small bookkeeping), fit where
  // it was. Everything this costs is the heap growth those allocations would cause anyway.
  if (bytes >= kProbeBytes) {
    probe = std::malloc(static_cast<std::size_t>(bytes + kProbeSlack));
    if (!probe) {
      return std::string(kOutOfMemoryPrefix) + std::string(what) + " needs " + megabytes(bytes) +
             ", and the WASM heap has no free block that large (" + megabytes(left) + " of the " +
             megabytes(kMemoryBudgetBytes) +
             " memory budget is left, in pieces); dispose of decoders you no "
             "longer use or ask for less";
    }
    std::free(probe);
    probe = nullptr;
  }
  used = used - out->bytes_ + bytes;
  out->bytes_ = bytes;
  return "";
}

std::uint64_t memory_used_bytes() { return used; }
std::uint64_t memory_budget_bytes() { return kMemoryBudgetBytes; }

}  // namespace rl
