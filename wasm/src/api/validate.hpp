// Input checks shared by the validated entry points (kernel_api.hpp). Each returns a failed Status whose
// message names the argument and what is wrong with it, or success. Header-only.
//
// Finiteness costs one SIMD pass: the float32 sum of squares of a vector is finite iff every value is (or
// some |v_i| > 1.8e19, whose square overflows); only then does a slow scan run, to name the culprit. The sums
// also bound every |v_i| (by sqrt of the sum), which lets the callers rule out overflow in their outputs
// without a pass over them.
#pragma once
#include <cmath>
#include <cstdio>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/kernel_options.hpp"
#include "core/parse_vector.hpp"  // kMaxVectorLength
#include "core/status.hpp"
#include "kernels/reductions.hpp"

namespace rl::api {

using Floats = std::span<const float>;
using OutFloats = std::span<float>;
using OptionalFloats = std::optional<Floats>;  // std::nullopt: not given (ones for g / gamma, zeros for beta)

// Outputs bounded below this need no overflow check (float32 overflows at 3.4e38; bf16 rounding and the
// float32 rounding of the bounds stay far inside the margin).
inline constexpr double kSafeOutputBound = 1e37;

// A number as a JavaScript reader would write it: -1, 1e-05, NaN, Infinity.
inline std::string format_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

// "1 value", "3 values"
inline std::string values(std::size_t n) { return std::to_string(n) + (n == 1 ? " value" : " values"); }

// "x[2] is NaN" for the first non-finite element; success if there is none.
[[gnu::noinline, gnu::cold]] inline Status first_non_finite(std::string_view name, Floats v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i])) continue;
    return Status::failure(std::string(name) + "[" + std::to_string(i) + "] is " + format_number(v[i]));
  }
  return Status::success();
}

// Non-empty, not absurdly long.
inline Status check_vector(std::string_view name, Floats v) {
  if (v.empty()) return failure_from([&] { return std::string(name) + " is empty"; });
  if (v.size() > static_cast<std::size_t>(kMaxVectorLength))
    return failure_from([&] {
      return std::string(name) + " has " + std::to_string(v.size()) + " values; at most 1,048,576 are supported";
    });
  return Status::success();
}

inline Status check_size(std::string_view name, Floats v, std::size_t d) {
  if (v.size() == d) return Status::success();
  return failure_from(
      [&] { return std::string(name) + " has " + values(v.size()) + " but x has " + std::to_string(d); });
}

inline Status check_output(std::string_view name, OutFloats out, std::size_t d) {
  if (out.size() == d) return Status::success();
  return failure_from([&] {
    return "the output " + std::string(name) + " has room for " + values(out.size()) + " but x has " +
           std::to_string(d);
  });
}

// v given its sum of squares: every value finite. `norm` receives sqrt(sum) >= max |v_i| (inf if huge).
inline Status check_finite_given(std::string_view name, Floats v, float sum_of_squares, double& norm) {
  norm = std::sqrt(static_cast<double>(sum_of_squares));
  return std::isfinite(sum_of_squares) ? Status::success() : first_non_finite(name, v);
}

inline Status check_finite(std::string_view name, Floats v) {
  double norm = 0.0;
  return check_finite_given(name, v, simd::sum_of_squares(v.data(), static_cast<int>(v.size())), norm);
}

// Same length as x, every value finite.
inline Status check_matching(std::string_view name, Floats v, std::size_t d, double& norm) {
  if (Status s = check_size(name, v, d); !s.ok) return s;
  return check_finite_given(name, v, simd::sum_of_squares(v.data(), static_cast<int>(v.size())), norm);
}
inline Status check_matching(std::string_view name, Floats v, std::size_t d) {
  double norm = 0.0;
  return check_matching(name, v, d, norm);
}
// An optional weight: when it is not given, `norm` keeps the caller's value for the default (ones or zeros).
inline Status check_matching(std::string_view name, const OptionalFloats& v, std::size_t d, double& norm) {
  return v ? check_matching(name, *v, d, norm) : Status::success();
}

// The input of a norm, given its float32 sum of squares: finite, and so is the sum (hence every statistic).
[[gnu::noinline, gnu::cold]] inline Status norm_input_problem(Floats x) {
  if (Status s = first_non_finite("x", x); !s.ok) return s;
  float largest = 0.0f;
  for (float v : x) largest = std::fmax(largest, std::fabs(v));
  return Status::failure(
      "the sum of squares of x overflows float32 (the largest |x_i| is " + format_number(largest) + "); scale x down",
      {"sum_overflow", largest});
}
inline Status check_norm_input_given(Floats x, float sum_of_squares) {
  return std::isfinite(sum_of_squares) ? Status::success() : norm_input_problem(x);
}

// x and an optional weight w of the same length, both finite, in one pass over the two.
// Returns the sum of squares of x and the bound norm(w) (w_norm unchanged when w is not given).
inline Status check_norm_input_and_weight(Floats x, std::string_view w_name, const OptionalFloats& w,
                                          float& x_sum_of_squares, double& w_norm) {
  if (Status s = check_vector("x", x); !s.ok) return s;
  const int d = static_cast<int>(x.size());
  if (!w) {
    x_sum_of_squares = simd::sum_of_squares(x.data(), d);
    return check_norm_input_given(x, x_sum_of_squares);
  }
  if (Status s = check_size(w_name, *w, x.size()); !s.ok) return s;
  const simd::Sums2 sums = simd::sums_of_squares(x.data(), w->data(), d);
  x_sum_of_squares = sums.first;
  if (Status s = check_norm_input_given(x, sums.first); !s.ok) return s;
  return check_finite_given(w_name, *w, sums.second, w_norm);
}

// eps, weightOffset and alpha: the rows of api/kernel_options.cpp.
inline Status check_option(const options::Option& row, float value) {
  if (options::fits_number(row, value)) return Status::success();
  return failure_from([&] { return options::check_number(row, value); });
}
// Each row found once (every kernel call checks its options).
inline Status check_eps(float eps) {
  static const options::Option& row = kernel_option("eps");
  return check_option(row, eps);
}
inline Status check_weight_offset(float weight_offset) {
  static const options::Option& row = kernel_option("weightOffset");
  return check_option(row, weight_offset);
}

inline Status check_alpha(float alpha) {
  static const options::Option& row = kernel_option("alpha");
  return check_option(row, alpha);
}

inline Status check_cap(double cap) {
  if (!(cap > 0.0)) return Status::failure("cap must be > 0 (got " + format_number(cap) + ")");
  if (std::isinf(cap)) return Status::failure("cap must be a finite number (got " + format_number(cap) + ")");
  std::string message = options::check_float32(cap, "cap");
  return message.empty() ? Status::success() : Status::failure(std::move(message));
}

// After a kernel whose output could not be bounded in advance: overflow is reported, not handed back as inf.
// `cause` says which inputs can make it overflow (the callers rule out the others beforehand).
inline Status check_result(std::string_view name, Floats v,
                           std::string_view cause = "the weights or dy are too large") {
  if (simd::all_finite(v.data(), static_cast<int>(v.size()))) return Status::success();
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (std::isfinite(v[i])) continue;
    return Status::failure("the result " + std::string(name) + "[" + std::to_string(i) + "] overflows float32 (" +
                           format_number(v[i]) + "): " + std::string(cause));
  }
  return Status::success();
}

}  // namespace rl::api
