// The result of a validated call: ok, or a plain-English message saying what is wrong with the input.
// The WASM bindings turn a failed Status into a thrown JS Error; nothing in the C++ core aborts on bad input.
#pragma once
#include <string>
#include <utility>

namespace rl {

struct Status {
  bool ok = true;
  std::string message;

  static Status success() { return {true, {}}; }
  static Status failure(std::string message) { return {false, std::move(message)}; }
};

// A failed Status whose message make() builds out of line: a check's passing path then holds no string code and
// inlines into its caller (a kernel call on a short vector costs about as much as its checks).
template <class MakeMessage>
[[gnu::noinline, gnu::cold]] Status failure_from(MakeMessage make) {
  return Status::failure(make());
}

}  // namespace rl
