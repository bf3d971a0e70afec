// The result of a validated call: ok, or a plain-English message saying what is wrong with the input.
// The WASM bindings turn a failed Status into a thrown JS Error; nothing in the C++ core aborts on bad input.
#pragma once
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

namespace rl {

// Why a failure happened, for a page to say in its own language: a stable `kind` (docs/api.md#errors) and the
// numbers the message quotes. Most failures carry none (kind empty).
struct Reason {
  std::string kind;
  double value = std::numeric_limits<double>::quiet_NaN();
  double limit = std::numeric_limits<double>::quiet_NaN();
};

struct Status {
  bool ok = true;
  std::string message;
  Reason reason;

  static Status success() { return {true, {}, {}}; }
  static Status failure(std::string message, Reason reason = {}) {
    return {false, std::move(message), std::move(reason)};
  }
};

// A failed Status whose message make() builds out of line: a check's passing path then holds no string code and
// inlines into its caller (a kernel call on a short vector costs about as much as its checks).
// make() returns the message, or the whole failed Status when it has a Reason.
template <class MakeMessage>
[[gnu::noinline, gnu::cold]] Status failure_from(MakeMessage make) {
  if constexpr (std::is_same_v<decltype(make()), Status>) return make();
  else return Status::failure(make());
}

}  // namespace rl
