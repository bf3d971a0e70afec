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

}  // namespace rl
