// One budget for every allocation a caller of the module can cause: decoders and their trainers, the logit lens,
// the experiments' models, parsing, the kernels' scratch block. Each is reserved here BEFORE it is allocated, so
// a request that does not fit is refused with a message instead of growing the WASM heap past its maximum (where
// malloc fails and a std::vector, built without exceptions, aborts).
//
//   rl::MemoryReservation memory;
//   if (std::string e = rl::reserve_memory(bytes, "a decoder", &memory); !e.empty()) return e;   // out_of_memory
//   ... allocate; `memory` gives the bytes back when it is destroyed (or reset).
//
// kMemoryBudgetBytes = 768 MiB, three quarters of the module's 1 GiB maximum (-sMAXIMUM_MEMORY in
// CMakeLists.txt): the other 256 MiB hold what is not budgeted (static data, the stack, Embind's result objects
// and messages, the per-call statistics, the allocator's headers). Free memory may still lie in pieces too small
// for a request, so a large one is also tried as one block (reserve_memory). Single-threaded: the module runs
// on one thread.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace rl {

inline constexpr std::uint64_t kMemoryBudgetBytes = std::uint64_t(768) << 20;

// Every refusal's message starts with this, so bindings can give it the code "out_of_memory".
inline constexpr std::string_view kOutOfMemoryPrefix = "out of memory: ";
inline constexpr const char* kOutOfMemoryCode = "out_of_memory";
inline bool is_out_of_memory(std::string_view message) { return message.starts_with(kOutOfMemoryPrefix); }

// Bytes held against the budget; returned when destroyed, reset or assigned over. Move-only.
class MemoryReservation {
 public:
  MemoryReservation() = default;
  MemoryReservation(MemoryReservation&& other) noexcept : bytes_(other.bytes_) { other.bytes_ = 0; }
  MemoryReservation& operator=(MemoryReservation&& other) noexcept;
  MemoryReservation(const MemoryReservation&) = delete;
  MemoryReservation& operator=(const MemoryReservation&) = delete;
  ~MemoryReservation() { reset(); }
  void reset();
  std::uint64_t bytes() const { return bytes_; }

 private:
  friend std::string reserve_memory(std::uint64_t, std::string_view, MemoryReservation*);
  std::uint64_t bytes_ = 0;
};

// Reserves `bytes` for `what` ("a decoder", "the logit lens"). On success *out holds them (what it held before
// is returned first) and the result is ""; otherwise *out is left as it was and the result is the message
// "out of memory: <what> needs N MB, M MB of the 768 MB budget is left ...".
std::string reserve_memory(std::uint64_t bytes, std::string_view what, MemoryReservation* out);

std::uint64_t memory_used_bytes();    // reserved now
std::uint64_t memory_budget_bytes();  // kMemoryBudgetBytes

// "12.5 MB": bytes in MiB with one decimal, as the messages say them.
std::string megabytes(std::uint64_t bytes);

}  // namespace rl
