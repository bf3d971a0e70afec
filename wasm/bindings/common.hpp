// What every binding file shares: the one error record of the raw C exports (rl_error_* in kernel_exports.cpp
// read it, whichever export failed), the result object of the Embind calls, and C++ arrays copied out as JS
// typed arrays (copies, so they survive WASM memory growth).
#pragma once
#include <emscripten/val.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "core/memory_budget.hpp"
#include "core/status.hpp"

namespace rl::bindings {

struct LastError {
  std::string message;
  std::string code;
  int position = -1;  // a character of the parsed text, or -1
  Reason reason;
};

// The raw exports' last failure: one record for the whole module (inline: one instance across the files).
inline LastError& last_error() {
  static LastError record;
  return record;
}

// The error code a message gets when its caller names none: "out_of_memory" for a refusal of the memory budget.
inline std::string code_of(const std::string& message) {
  return is_out_of_memory(message) ? kOutOfMemoryCode : "invalid_input";
}

// Records a raw export's failure and returns 1, its failed status.
inline int fail(const std::string& message, const std::string& code = {}, int position = -1, Reason reason = {}) {
  last_error() = {message, code.empty() ? code_of(message) : code, position, std::move(reason)};
  return 1;
}

// An Embind call's result: { error } ("" when it succeeded), and code "out_of_memory" when the memory budget
// refused (otherwise the JS side picks the code). The caller adds its fields.
inline emscripten::val result(const std::string& error = {}) {
  emscripten::val out = emscripten::val::object();
  out.set("error", error);
  if (is_out_of_memory(error)) out.set("code", std::string(kOutOfMemoryCode));
  return out;
}

// A new JS typed array holding a copy of data[0..n): Float32Array, Float64Array or Int32Array after T.
template <class T>
emscripten::val typed_array(const T* data, std::size_t n) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int32_t>);
  const char* type = std::is_same_v<T, float>    ? "Float32Array"
                     : std::is_same_v<T, double> ? "Float64Array"
                                                 : "Int32Array";
  return emscripten::val::global(type).new_(emscripten::typed_memory_view(n, data));
}
template <class T>
emscripten::val typed_array(const std::vector<T>& v) {
  return typed_array(v.data(), v.size());
}

}  // namespace rl::bindings
