// Raw C exports of the validated kernels (wasm/src/api/) for web/lib/kernels.js. Raw exports, not Embind:
// a call on a 4-vector must cost well under a microsecond, and Embind's argument marshalling alone costs
// 85 to 205 ns per call. Arguments follow the C++ order (outputs first, then dy, x, parameters, options), each
// array as a pointer into the WASM heap followed by its length;
// an optional weight that was not given arrives with length -1. Every function returns 0 on success or
// non-zero after recording the error, which rl_error_message / rl_error_code / rl_error_position / rl_error_reason_*
// describe (web/lib/kernels.js turns it into a thrown ResidualLabError). Nothing here aborts on bad input.
#include <emscripten/emscripten.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "api/kernel_api.hpp"
#include "common.hpp"
#include "core/memory_budget.hpp"
#include "core/parse_vector.hpp"
#include "kernels/attention.hpp"

namespace {

using rl::bindings::fail;
using rl::bindings::last_error;

// A steps export's status when the API refused only the division: the error is recorded and the steps before it
// are written (web/lib/kernel-scratch.js reads them into error.partial).
constexpr int kPartialSteps = 2;

int report(const rl::Status& status) {
  return status.ok ? 0 : fail(status.message, "invalid_input", -1, status.reason);
}

// The kernels' scratch block (web/lib/kernels.js copies inputs in and reads outputs out), held against the budget.
void* scratch = nullptr;
rl::MemoryReservation scratch_memory;

rl::api::Floats floats(const float* p, int n) { return {p, static_cast<std::size_t>(n < 0 ? 0 : n)}; }
rl::api::OutFloats out(float* p, int n) { return {p, static_cast<std::size_t>(n < 0 ? 0 : n)}; }
rl::api::OptionalFloats optional(const float* p, int n) {
  if (n < 0) return std::nullopt;
  return floats(p, n);
}

}  // namespace

extern "C" {

// The last failure of any raw export, this file's or checkpoint_bindings.cpp's (common.hpp).
EMSCRIPTEN_KEEPALIVE const char* rl_error_message() { return last_error().message.c_str(); }
EMSCRIPTEN_KEEPALIVE const char* rl_error_code() { return last_error().code.c_str(); }
EMSCRIPTEN_KEEPALIVE int rl_error_position() { return last_error().position; }
EMSCRIPTEN_KEEPALIVE const char* rl_error_reason_kind() { return last_error().reason.kind.c_str(); }
EMSCRIPTEN_KEEPALIVE double rl_error_reason_value() { return last_error().reason.value; }
EMSCRIPTEN_KEEPALIVE double rl_error_reason_limit() { return last_error().reason.limit; }

// Limits web/lib/kernels.js checks before it converts or copies anything (the numbers are C++'s).
EMSCRIPTEN_KEEPALIVE int rl_max_vector_length() { return rl::kMaxVectorLength; }
EMSCRIPTEN_KEEPALIVE double rl_memory_budget_bytes() { return static_cast<double>(rl::memory_budget_bytes()); }
EMSCRIPTEN_KEEPALIVE double rl_memory_used_bytes() { return static_cast<double>(rl::memory_used_bytes()); }

// Replaces the scratch block by one of `bytes` bytes (0: none): the old one is freed first, the new one reserved
// from the budget and allocated. Returns its address, or 0 with the error recorded. A double, so that any size JS
// asks for arrives unwrapped.
EMSCRIPTEN_KEEPALIVE void* rl_scratch_resize(double bytes) {
  std::free(scratch);
  scratch = nullptr;
  scratch_memory.reset();
  if (!(bytes > 0)) return nullptr;
  const std::uint64_t size = bytes < 9007199254740992.0 ? static_cast<std::uint64_t>(bytes) : ~std::uint64_t(0);
  if (const std::string refused =
          rl::reserve_memory(size, "the kernels' copy of their inputs and outputs", &scratch_memory);
      !refused.empty()) {
    fail(refused);
    return nullptr;
  }
  scratch = std::malloc(static_cast<std::size_t>(size));  // -sABORTING_MALLOC=0: 0 when the heap cannot grow
  if (!scratch) {
    scratch_memory.reset();
    fail(std::string(rl::kOutOfMemoryPrefix) + "the WASM heap could not grow by " + rl::megabytes(size));
  }
  return scratch;
}

// 0 when a text of `bytes` UTF-8 bytes may be parsed, else 1 with the too_long error recorded.
EMSCRIPTEN_KEEPALIVE int rl_check_text_length(double bytes) {
  const std::string problem =
      rl::text_length_problem(bytes < 4294967295.0 ? static_cast<std::size_t>(bytes) : ~std::size_t(0));
  return problem.empty() ? 0 : fail(problem, "too_long", 0);
}

EMSCRIPTEN_KEEPALIVE int rl_rmsnorm(float* y, const float* x, int nx, const float* g, int ng, float eps,
                                    float weight_offset, int bf16) {
  const auto precision = bf16 ? rl::api::Precision::bf16 : rl::api::Precision::fp32;
  return report(rl::api::rmsnorm(out(y, nx), floats(x, nx), optional(g, ng), eps, weight_offset, precision));
}

EMSCRIPTEN_KEEPALIVE int rl_layernorm(float* y, const float* x, int nx, const float* gamma, int ngamma,
                                      const float* beta, int nbeta, float eps) {
  return report(rl::api::layernorm(out(y, nx), floats(x, nx), optional(gamma, ngamma), optional(beta, nbeta), eps));
}

EMSCRIPTEN_KEEPALIVE int rl_rmsnorm_backward(float* dx, float* dg, const float* dy, int ndy, const float* x, int nx,
                                             const float* g, int ng, float eps, float weight_offset) {
  return report(rl::api::rmsnorm_backward(out(dx, nx), out(dg, nx), floats(dy, ndy), floats(x, nx), optional(g, ng),
                                          eps, weight_offset));
}

EMSCRIPTEN_KEEPALIVE int rl_layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, int ndy,
                                               const float* x, int nx, const float* gamma, int ngamma, float eps) {
  return report(rl::api::layernorm_backward(out(dx, nx), out(dgamma, nx), out(dbeta, nx), floats(dy, ndy),
                                            floats(x, nx), optional(gamma, ngamma), eps));
}

// scalars: [mean_square, rms]
EMSCRIPTEN_KEEPALIVE int rl_rmsnorm_steps(float* squares, float* normalized, float* output, float* scalars,
                                          const float* x, int nx, const float* g, int ng, float eps,
                                          float weight_offset) {
  rl::RmsNormSteps steps;
  const int failed = report(rl::api::rmsnorm_steps(steps, floats(x, nx), optional(g, ng), eps, weight_offset));
  if (failed && steps.squares.empty()) return failed;
  std::copy(steps.squares.begin(), steps.squares.end(), squares);
  std::copy(steps.normalized.begin(), steps.normalized.end(), normalized);
  std::copy(steps.output.begin(), steps.output.end(), output);
  scalars[0] = steps.mean_square;
  scalars[1] = steps.rms;
  return failed ? kPartialSteps : 0;
}

// scalars: [mean, variance, std]
EMSCRIPTEN_KEEPALIVE int rl_layernorm_steps(float* centered, float* normalized, float* output, float* scalars,
                                            const float* x, int nx, const float* gamma, int ngamma, const float* beta,
                                            int nbeta, float eps) {
  rl::LayerNormSteps steps;
  const int failed =
      report(rl::api::layernorm_steps(steps, floats(x, nx), optional(gamma, ngamma), optional(beta, nbeta), eps));
  if (failed && steps.centered.empty()) return failed;
  std::copy(steps.centered.begin(), steps.centered.end(), centered);
  std::copy(steps.normalized.begin(), steps.normalized.end(), normalized);
  std::copy(steps.output.begin(), steps.output.end(), output);
  scalars[0] = steps.mean;
  scalars[1] = steps.variance;
  scalars[2] = steps.std;
  return failed ? kPartialSteps : 0;
}

// DyT's raw exports take their arguments in the order of the C++ kernels (dyt_forward, dyt_backward): outputs,
// then inputs, each array followed by its length.
EMSCRIPTEN_KEEPALIVE int rl_dyt(float* y, const float* x, int nx, float alpha, const float* gamma, int ngamma,
                                const float* beta, int nbeta) {
  return report(rl::api::dyt(out(y, nx), floats(x, nx), alpha, optional(gamma, ngamma), optional(beta, nbeta)));
}

// dalpha: one float
EMSCRIPTEN_KEEPALIVE int rl_dyt_backward(float* dx, float* dalpha, float* dgamma, float* dbeta, const float* dy,
                                         int ndy, const float* x, int nx, float alpha, const float* gamma, int ngamma) {
  return report(rl::api::dyt_backward(out(dx, nx), *dalpha, out(dgamma, nx), out(dbeta, nx), floats(dy, ndy),
                                      floats(x, nx), alpha, optional(gamma, ngamma)));
}

EMSCRIPTEN_KEEPALIVE int rl_dyt_steps(float* scaled, float* tanh_of_scaled, float* output, const float* x, int nx,
                                      float alpha, const float* gamma, int ngamma, const float* beta, int nbeta) {
  rl::api::DytSteps steps;
  if (int failed =
          report(rl::api::dyt_steps(steps, floats(x, nx), alpha, optional(gamma, ngamma), optional(beta, nbeta))))
    return failed;
  std::copy(steps.scaled.begin(), steps.scaled.end(), scaled);
  std::copy(steps.tanh.begin(), steps.tanh.end(), tanh_of_scaled);
  std::copy(steps.output.begin(), steps.output.end(), output);
  return 0;
}

// cap arrives as a double: a value float32 cannot hold is refused as given, not after rounding.
EMSCRIPTEN_KEEPALIVE int rl_softcap(float* y, const float* x, int nx, double cap) {
  return report(rl::api::softcap(out(y, nx), floats(x, nx), cap));
}

EMSCRIPTEN_KEEPALIVE int rl_softcap_backward(float* dx, const float* dy, int ndy, const float* x, int nx, double cap) {
  return report(rl::api::softcap_backward(out(dx, nx), floats(dy, ndy), floats(x, nx), cap));
}

EMSCRIPTEN_KEEPALIVE int rl_softmax(float* y, const float* x, int nx) {
  return report(rl::api::softmax(out(y, nx), floats(x, nx)));
}

// RoPE's inverse frequencies (kernels/attention.hpp rope_inverse_frequencies) into inv_freq[0 .. dh/2): the C++
// side of the frequencies web/lib/checkpoint/model.js invFreq computes, for the test that holds the two
// bit-identical. 0, or 1 with the error recorded when dh is not an even number in 2 .. kMaxVectorLength or theta
// not a finite number above 0.
EMSCRIPTEN_KEEPALIVE int rl_rope_inverse_frequencies(float* inv_freq, int dh, double theta) {
  if (dh < 2 || dh % 2 != 0 || dh > rl::kMaxVectorLength)
    return fail("dh must be an even number from 2 to " + std::to_string(rl::kMaxVectorLength) + " (got " +
                    std::to_string(dh) + ")",
                "invalid_input");
  if (!(theta > 0) || !std::isfinite(theta))
    return fail("theta must be a finite number above 0 (got " + rl::api::format_number(theta) + ")", "invalid_input");
  const std::vector<float> frequencies = rl::rope_inverse_frequencies(dh, theta);
  std::copy(frequencies.begin(), frequencies.end(), inv_freq);
  return 0;
}

// Parses the `bytes` bytes of UTF-8 `text` (a NUL among them is a character, reported as such) into
// out[0..capacity); returns the count, or -1 with the error recorded.
EMSCRIPTEN_KEEPALIVE int rl_parse_vector(float* values, int capacity, const char* text, int bytes) {
  const std::string_view view(text, bytes < 0 ? 0 : bytes);
  // one decoded character per byte, and the values (their vector's growth may hold twice its size)
  const std::uint64_t needed = std::uint64_t(view.size()) * sizeof(rl::parse_detail::Char) +
                               2 * std::min<std::uint64_t>(view.size(), rl::kMaxVectorLength) * sizeof(float);
  rl::MemoryReservation memory;
  if (const std::string refused = rl::reserve_memory(needed, "parsing the text", &memory); !refused.empty()) {
    fail(refused);
    return -1;
  }
  const rl::ParsedVector parsed = rl::parse_vector(view);
  if (!parsed.ok) {
    fail(parsed.error.message, parsed.error.code, parsed.error.position);
    return -1;
  }
  if (static_cast<int>(parsed.values.size()) > capacity) {
    fail("internal: parse buffer too small", "internal");
    return -1;
  }
  std::copy(parsed.values.begin(), parsed.values.end(), values);
  return static_cast<int>(parsed.values.size());
}

}  // extern "C"
