// Validated entry points on single vectors: what the WASM bindings call, testable natively.
// Each checks every input first and returns a Status whose message says what is wrong ("x is empty",
// "g has 3 values but x has 4", "x[2] is NaN", "eps must be a finite number of at least 0 (got -1)"); only
// valid input reaches a kernel, so nothing aborts and the next call works. Outputs are spans the caller sized
// to x; on a failed Status their contents are unspecified.
//
// Unlike the kernels, these backwards WRITE their gradients (they zero them first): a single call has no
// residual stream to add into. Argument order follows the kernels: outputs, inputs (dy, x), parameters, options.
// Header-only: the bindings and the tests compile it, in the api tier, the one that sees every tier below.
#pragma once
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "api/validate.hpp"
#include "kernels/activations.hpp"
#include "kernels/norm_steps.hpp"
#include "kernels/norms.hpp"

// Returns from the enclosing function when the Status expression failed.
#define RL_RETURN_IF_ERROR(expr)                                             \
  do {                                                                       \
    if (::rl::Status rl_status_ = (expr); !rl_status_.ok) return rl_status_; \
  } while (0)

namespace rl::api {

enum class Precision { fp32, bf16 };

inline Status parse_precision(std::string_view name, Precision& precision) {
  if (name == "fp32") precision = Precision::fp32;
  else if (name == "bf16") precision = Precision::bf16;
  else return Status::failure("precision must be 'fp32' or 'bf16' (got '" + std::string(name) + "')");
  return Status::success();
}

namespace detail {
inline const float* data_or_null(const OptionalFloats& v) { return v ? v->data() : nullptr; }

inline float largest_magnitude(Floats x) {
  float largest = 0.0f;
  for (float v : x) largest = std::fmax(largest, std::fabs(v));
  return largest;
}

// RMS = sqrt(mean(x^2) + eps) must not be 0: with eps 0, the mean square rmsnorm_rstd computes (the float32 sum
// of squares divided by d) must not be 0. It is 0 when x is all zeros, and also when every square underflows
// (|x_i| below about 2.6e-23, whose square is below half the smallest subnormal 1.4e-45) or the sum is a
// subnormal that the division by d takes to 0.
// The kernels add eps to the mean square (RMSNorm) or to the variance, which is at most the mean square (LayerNorm):
// near float32's maximum that sum overflows and 1 / sqrt of it is 0, so every output would be 0 (or beta).
inline Status check_eps_fits(Floats x, float sum_of_squares, float eps) {
  if (std::isfinite(sum_of_squares / static_cast<float>(x.size()) + eps)) return Status::success();
  return failure_from([&] {
    return Status::failure("eps (" + format_number(eps) +
                               ") plus the mean square of x overflows float32, so 1 / sqrt of it is 0 and "
                               "every output would be 0; use a smaller eps",
                           {"eps_overflow", eps});
  });
}

inline Status check_rms_defined(Floats x, float sum_of_squares, float eps) {
  RL_RETURN_IF_ERROR(check_eps_fits(x, sum_of_squares, eps));
  if (eps != 0.0f || sum_of_squares / static_cast<float>(x.size()) != 0.0f) return Status::success();
  return failure_from([&] {
    const float largest = largest_magnitude(x);
    if (largest == 0.0f)
      return Status::failure("x is all zeros and eps is 0, so its RMS is 0 and x / RMS is undefined; use eps > 0",
                             {"zero_rms"});
    return Status::failure("the mean square of x underflows float32 to 0 (the largest |x_i| is " +
                               format_number(largest) +
                               ") and eps is 0, so x / RMS is undefined; scale x up or use eps > 0",
                           {"mean_square_underflow", largest});
  });
}

// The rounding noise of LayerNorm's two-pass variance. The float32 mean of d values differs from the exact mean by
// at most about (d + 1) * u * max|x_i| (d - 1 additions and one multiplication by 1/d, each rounding by at most
// u = 2^-24 relative, on sums bounded by d * max|x_i|), and u * m < ulp(m). A constant vector's deviations
// x_i - mean are then each at most (d + 1) * ulp(max|x_i|), so its computed variance is at most
//   noise = ((d + 1) * ulp(max|x_i|))^2
// and a variance at or below it cannot be told apart from that of a constant vector.
inline double variance_rounding_noise(Floats x) {
  const float largest = largest_magnitude(x);
  if (largest == 0.0f) return 0.0;
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(largest), -126) - 23);  // 2^-149 for subnormals
  const double bound = (static_cast<double>(x.size()) + 1.0) * ulp;
  return bound * bound;
}

// sum over i of (x_i - mean)^2 / d in double, where no square of a float32 deviation underflows.
inline double variance_in_double(Floats x) {
  double mean = 0.0, sum = 0.0;
  for (float v : x) mean += v;
  mean /= static_cast<double>(x.size());
  for (float v : x) sum += (v - mean) * (v - mean);
  return sum / static_cast<double>(x.size());
}

// An upper bound on that noise from an upper bound m on max|x_i|: ulp(m) <= max(2u * m, 2^-149).
inline double variance_rounding_noise_bound(double m, std::size_t d) {
  const double bound = (static_cast<double>(d) + 1.0) * std::max(std::ldexp(m, -23), std::ldexp(1.0, -149));
  return bound * bound;
}

// The standard deviation sqrt(var + eps) must stand above the rounding noise, var being the one layernorm_forward
// computes (the same decision serves the forward, the steps and the backward). When var <= noise, the deviations
// x_i - mean are rounding error of the mean, and (x_i - mean) / sqrt(var + eps) is that error over something of
// its own size unless eps dominates: refused when eps < noise too (eps 0 included). With eps >= noise, a constant
// x gives at most sqrt(noise / eps) <= 1 per value, near 0 once eps >> noise (eps 1e-5 and x = 0.1: 2e-6).
// The usual call decides on bounds of the noise without passes over x: max|x_i| <= sqrt(sum of squares), and
// max|x_i| <= |mean| + sqrt(d * var) (no deviation exceeds the root of their sum of squares), doubled to cover
// the rounding of mean and var.
inline Status check_std_defined(Floats x, float sum_of_squares, float eps) {
  RL_RETURN_IF_ERROR(check_eps_fits(x, sum_of_squares, eps));
  const std::size_t d = x.size();
  const bool eps_dominates_noise_bound =
      eps != 0.0f && eps >= variance_rounding_noise_bound(std::sqrt(static_cast<double>(sum_of_squares)), d);
  if (eps_dominates_noise_bound) return Status::success();
  const LayerNormStats stats = rl::layernorm_stats(x.data(), static_cast<int>(d), eps);
  const double variance = stats.variance;
  const double largest_bound =
      2.0 * (std::fabs(static_cast<double>(stats.mean)) + std::sqrt(static_cast<double>(d) * variance));
  if (variance > variance_rounding_noise_bound(largest_bound, d)) return Status::success();
  const double noise = variance_rounding_noise(x);
  if (variance > noise || (static_cast<double>(eps) >= noise && eps != 0.0f)) return Status::success();
  // Not constant, but its deviations' squares underflow float32: the variance in double stands above the noise
  // and below float32's smallest normal number.
  const double exact = variance_in_double(x);
  if (eps == 0.0f && exact > noise && exact < static_cast<double>(std::numeric_limits<float>::min()))
    return Status::failure("x is not constant, but its variance (" + format_number(exact) +
                               ") is too small for float32: the squares of its deviations underflow, so the "
                               "variance computed is " +
                               format_number(variance) +
                               ", and eps is 0, so (x - mean) / std is undefined; scale x up or use eps > 0",
                           {"variance_underflow", exact, noise});
  const std::string head = "x is constant: its variance (" + format_number(variance) + ") is rounding noise (at most " +
                           format_number(noise) + " for these values), and ";
  if (eps == 0.0f)
    return Status::failure(head + "eps is 0, so (x - mean) / std is undefined; use eps > 0",
                           {"constant_x_eps_zero", variance, noise});
  return Status::failure(
      head + "eps (" + format_number(eps) +
          ") is smaller, so (x - mean) / std would be rounding error over its own size; use eps >= " +
          format_number(noise),
      {"constant_x_eps_small", variance, noise});
}

// Checks everything; `output_bound` receives an upper bound on |y_i|: |x_i * rstd| <= sqrt(d) (x_i^2 is at most
// the sum of squares), and |offset + g_i| <= |offset| + norm(g).
inline Status check_rmsnorm_inputs(Floats x, const OptionalFloats& g, float eps, float weight_offset,
                                   double& output_bound, float* x_sum_of_squares = nullptr) {
  float sum_of_squares = 0.0f;
  double g_norm = 1.0;  // g = ones
  RL_RETURN_IF_ERROR(check_norm_input_and_weight(x, "g", g, sum_of_squares, g_norm));
  RL_RETURN_IF_ERROR(check_eps(eps));
  RL_RETURN_IF_ERROR(check_weight_offset(weight_offset));
  output_bound = std::sqrt(static_cast<double>(x.size())) * (std::fabs(weight_offset) + g_norm);
  // Without g the kernel forms rstd * (weightOffset + 1) before it multiplies by x: that product must be bounded
  // too (x = [1e-20] with weightOffset 1e19 has a finite output but an infinite multiplier).
  if (!g) {
    const double rstd = 1.0 / std::sqrt(static_cast<double>(sum_of_squares) / static_cast<double>(x.size()) + eps);
    output_bound = std::max(output_bound, rstd * std::fabs(static_cast<double>(weight_offset) + 1.0));
  }
  if (x_sum_of_squares) *x_sum_of_squares = sum_of_squares;  // simd::sum_of_squares(x)'s value, bit for bit
  return check_rms_defined(x, sum_of_squares, eps);
}

// As above, for LayerNorm: |(x_i - mean) * rstd| <= sqrt(d), so |y_i| <= sqrt(d) * norm(gamma) + norm(beta).
// DyT: x and the optional gamma and beta, finite and of x's length, and a finite alpha. `output_bound` receives a
// bound on |y_i| = |gamma_i tanh(alpha x_i) + beta_i| <= norm(gamma) + norm(beta), since |tanh| <= 1.
inline Status check_dyt_inputs(Floats x, float alpha, const OptionalFloats& gamma, const OptionalFloats& beta,
                               double& output_bound) {
  double gamma_norm = 1.0, beta_norm = 0.0;  // gamma = ones, beta = zeros
  RL_RETURN_IF_ERROR(check_vector("x", x));
  RL_RETURN_IF_ERROR(check_finite("x", x));
  RL_RETURN_IF_ERROR(check_alpha(alpha));
  RL_RETURN_IF_ERROR(check_matching("gamma", gamma, x.size(), gamma_norm));
  RL_RETURN_IF_ERROR(check_matching("beta", beta, x.size(), beta_norm));
  output_bound = gamma_norm + beta_norm;
  return Status::success();
}

inline Status check_layernorm_inputs(Floats x, const OptionalFloats& gamma, const OptionalFloats& beta, float eps,
                                     double& output_bound) {
  float sum_of_squares = 0.0f;
  double gamma_norm = 1.0, beta_norm = 0.0;  // gamma = ones, beta = zeros
  RL_RETURN_IF_ERROR(check_norm_input_and_weight(x, "gamma", gamma, sum_of_squares, gamma_norm));
  RL_RETURN_IF_ERROR(check_matching("beta", beta, x.size(), beta_norm));
  RL_RETURN_IF_ERROR(check_eps(eps));
  output_bound = std::sqrt(static_cast<double>(x.size())) * gamma_norm + beta_norm;
  return check_std_defined(x, sum_of_squares, eps);
}
}  // namespace detail

// y = RMSNorm(x) with weights g (ones when not given); precision bf16 runs rmsnorm_forward_bf16.
inline Status rmsnorm(OutFloats y, Floats x, const OptionalFloats& g, float eps, float weight_offset = 0.0f,
                      Precision precision = Precision::fp32) {
  double output_bound = 0.0;
  float sum_of_squares = 0.0f;
  RL_RETURN_IF_ERROR(detail::check_rmsnorm_inputs(x, g, eps, weight_offset, output_bound, &sum_of_squares));
  RL_RETURN_IF_ERROR(check_output("y", y, x.size()));
  const int d = static_cast<int>(x.size());
  const float* gp = detail::data_or_null(g);
  if (precision == Precision::bf16) {
    // the bf16 mean square is 0 where float32's is not: bf16's smallest subnormal is 2^-133 = 9.2e-41, so squares
    // up to half of it round to 0
    if (eps == 0.0f && rl::rmsnorm_mean_square_bf16(x.data(), d) == 0.0f)
      return Status::failure("in bf16 the mean square of x rounds to 0 (the largest |x_i| is " +
                             format_number(detail::largest_magnitude(x)) +
                             "; bf16 rounds squares up to 4.6e-41 to 0) and eps is 0, so x / RMS is undefined; "
                             "scale x up or use eps > 0");
    rl::rmsnorm_forward_bf16(y.data(), x.data(), gp, d, eps, weight_offset);
    return check_result("y", y, "x, g or weightOffset overflow bfloat16 (its largest finite value is 3.39e38)");
  }
  // the checks' sum of squares is the kernel's: one pass over x fewer
  rl::rmsnorm_forward_row(y.data(), x.data(), gp, d, rl::rmsnorm_rstd_given(sum_of_squares, d, eps), weight_offset);
  return output_bound < kSafeOutputBound ? Status::success()
         : gp                            ? check_result("y", y)
                                         : check_result("y", y, "1 / RMS times (weightOffset + 1) overflows");
}

inline Status layernorm(OutFloats y, Floats x, const OptionalFloats& gamma, const OptionalFloats& beta, float eps) {
  double output_bound = 0.0;
  RL_RETURN_IF_ERROR(detail::check_layernorm_inputs(x, gamma, beta, eps, output_bound));
  RL_RETURN_IF_ERROR(check_output("y", y, x.size()));
  rl::layernorm_forward(y.data(), nullptr, nullptr, x.data(), detail::data_or_null(gamma), detail::data_or_null(beta),
                        1, static_cast<int>(x.size()), eps);
  return output_bound < kSafeOutputBound ? Status::success() : check_result("y", y);
}

// dx and dg of sum(dy * RMSNorm(x)); dg is the gradient of g even when g is not given (then g = ones).
inline Status rmsnorm_backward(OutFloats dx, OutFloats dg, Floats dy, Floats x, const OptionalFloats& g, float eps,
                               float weight_offset = 0.0f) {
  double output_bound = 0.0;  // the backward's outputs are checked after it runs
  RL_RETURN_IF_ERROR(detail::check_rmsnorm_inputs(x, g, eps, weight_offset, output_bound));
  RL_RETURN_IF_ERROR(check_matching("dy", dy, x.size()));
  RL_RETURN_IF_ERROR(check_output("dx", dx, x.size()));
  RL_RETURN_IF_ERROR(check_output("dg", dg, x.size()));
  const int d = static_cast<int>(x.size());
  const float* gp = detail::data_or_null(g);
  const float rstd = rl::rmsnorm_rstd(x.data(), d, eps);
  std::fill(dx.begin(), dx.end(), 0.0f);
  std::fill(dg.begin(), dg.end(), 0.0f);
  rl::rmsnorm_backward(dx.data(), dg.data(), dy.data(), x.data(), &rstd, gp, 1, d, weight_offset);
  // dx has a term in rstd^3 = 1 / RMS^3, which overflows float32 for an RMS below about 1.4e-13
  const double rstd3 = static_cast<double>(rstd) * rstd * rstd;
  RL_RETURN_IF_ERROR(check_result("dx", dx,
                                  rstd3 > std::numeric_limits<float>::max()
                                      ? "x is so small that 1 / RMS^3 overflows float32 (1 / RMS is " +
                                            format_number(rstd) + "); scale x up or use a larger eps"
                                      : "the weights or dy are too large"));
  return check_result("dg", dg);
}

// dx, dgamma and dbeta of sum(dy * LayerNorm(x)); beta does not enter the gradients.
inline Status layernorm_backward(OutFloats dx, OutFloats dgamma, OutFloats dbeta, Floats dy, Floats x,
                                 const OptionalFloats& gamma, float eps) {
  double output_bound = 0.0;  // the backward's outputs are checked after it runs
  RL_RETURN_IF_ERROR(detail::check_layernorm_inputs(x, gamma, std::nullopt, eps, output_bound));
  RL_RETURN_IF_ERROR(check_matching("dy", dy, x.size()));
  RL_RETURN_IF_ERROR(check_output("dx", dx, x.size()));
  RL_RETURN_IF_ERROR(check_output("dgamma", dgamma, x.size()));
  RL_RETURN_IF_ERROR(check_output("dbeta", dbeta, x.size()));
  const int d = static_cast<int>(x.size());
  const float* gp = detail::data_or_null(gamma);
  const LayerNormStats stats = rl::layernorm_stats(x.data(), d, eps);
  std::fill(dx.begin(), dx.end(), 0.0f);
  std::fill(dgamma.begin(), dgamma.end(), 0.0f);
  std::fill(dbeta.begin(), dbeta.end(), 0.0f);
  rl::layernorm_backward(dx.data(), dgamma.data(), dbeta.data(), dy.data(), x.data(), &stats.mean, &stats.rstd, gp, 1,
                         d);
  RL_RETURN_IF_ERROR(check_result("dx", dx));
  RL_RETURN_IF_ERROR(check_result("dgamma", dgamma));
  return check_result("dbeta", dbeta);
}

// A refusal of the division alone, the last check the norms make: x's statistics exist (x all zeros or constant, a
// mean square that underflows), so the steps up to them are still computed (steps.squares or steps.centered filled);
// x / rms and (x - mean) / std, and what follows, are not defined.
inline bool only_division_refused(const Status& s) {
  const std::string& kind = s.reason.kind;
  return kind == "zero_rms" || kind == "mean_square_underflow" || kind == "constant_x_eps_zero" ||
         kind == "constant_x_eps_small" || kind == "variance_underflow";
}

inline Status rmsnorm_steps(RmsNormSteps& steps, Floats x, const OptionalFloats& g, float eps,
                            float weight_offset = 0.0f) {
  double output_bound = 0.0;  // steps are for small vectors: their output is simply checked
  const Status checked = detail::check_rmsnorm_inputs(x, g, eps, weight_offset, output_bound);
  if (!checked.ok && !only_division_refused(checked)) return checked;
  steps = rl::rmsnorm_steps(x.data(), detail::data_or_null(g), static_cast<int>(x.size()), eps, weight_offset);
  return checked.ok ? check_result("output", steps.output) : checked;
}

inline Status layernorm_steps(LayerNormSteps& steps, Floats x, const OptionalFloats& gamma, const OptionalFloats& beta,
                              float eps) {
  double output_bound = 0.0;
  const Status checked = detail::check_layernorm_inputs(x, gamma, beta, eps, output_bound);
  if (!checked.ok && !only_division_refused(checked)) return checked;
  steps = rl::layernorm_steps(x.data(), detail::data_or_null(gamma), detail::data_or_null(beta),
                              static_cast<int>(x.size()), eps);
  return checked.ok ? check_result("output", steps.output) : checked;
}

// y = gamma * tanh(alpha * x) + beta (Dynamic Tanh, Zhu et al. 2025); gamma, beta default to ones, zeros.
inline Status dyt(OutFloats y, Floats x, float alpha, const OptionalFloats& gamma, const OptionalFloats& beta) {
  double output_bound = 0.0;
  RL_RETURN_IF_ERROR(detail::check_dyt_inputs(x, alpha, gamma, beta, output_bound));
  RL_RETURN_IF_ERROR(check_output("y", y, x.size()));
  rl::dyt_forward(y.data(), x.data(), alpha, detail::data_or_null(gamma), detail::data_or_null(beta), 1,
                  static_cast<int>(x.size()));
  return output_bound < kSafeOutputBound ? Status::success() : check_result("y", y);
}

// dx, dalpha, dgamma and dbeta of sum(dy * DyT(x)); beta does not enter the gradients. dalpha is one scalar.
inline Status dyt_backward(OutFloats dx, float& dalpha, OutFloats dgamma, OutFloats dbeta, Floats dy, Floats x,
                           float alpha, const OptionalFloats& gamma) {
  double output_bound = 0.0;  // the backward's outputs are checked after it runs
  RL_RETURN_IF_ERROR(detail::check_dyt_inputs(x, alpha, gamma, std::nullopt, output_bound));
  RL_RETURN_IF_ERROR(check_matching("dy", dy, x.size()));
  RL_RETURN_IF_ERROR(check_output("dx", dx, x.size()));
  RL_RETURN_IF_ERROR(check_output("dgamma", dgamma, x.size()));
  RL_RETURN_IF_ERROR(check_output("dbeta", dbeta, x.size()));
  std::fill(dx.begin(), dx.end(), 0.0f);
  std::fill(dgamma.begin(), dgamma.end(), 0.0f);
  std::fill(dbeta.begin(), dbeta.end(), 0.0f);
  dalpha = 0.0f;
  rl::dyt_backward(dx.data(), &dalpha, dgamma.data(), dbeta.data(), dy.data(), x.data(), alpha,
                   detail::data_or_null(gamma), 1, static_cast<int>(x.size()));
  if (!std::isfinite(dalpha))
    return Status::failure("the result dalpha overflows float32 (" + format_number(dalpha) +
                           "): the weights or dy are too large");
  RL_RETURN_IF_ERROR(check_result("dx", dx));
  RL_RETURN_IF_ERROR(check_result("dgamma", dgamma));
  return check_result("dbeta", dbeta);
}

// The step-by-step view of DyT: scaled = alpha * x, tanh(scaled), and the output from dyt_forward.
struct DytSteps {
  std::vector<float> scaled;
  std::vector<float> tanh;
  std::vector<float> output;
};

inline Status dyt_steps(DytSteps& steps, Floats x, float alpha, const OptionalFloats& gamma,
                        const OptionalFloats& beta) {
  double output_bound = 0.0;
  RL_RETURN_IF_ERROR(detail::check_dyt_inputs(x, alpha, gamma, beta, output_bound));
  const std::size_t d = x.size();
  steps.scaled.resize(d);
  steps.tanh.resize(d);
  steps.output.resize(d);
  for (std::size_t i = 0; i < d; ++i) {
    steps.scaled[i] = alpha * x[i];
    steps.tanh[i] = std::tanh(steps.scaled[i]);
  }
  rl::dyt_forward(steps.output.data(), x.data(), alpha, detail::data_or_null(gamma), detail::data_or_null(beta), 1,
                  static_cast<int>(d));
  return output_bound < kSafeOutputBound ? Status::success() : check_result("output", steps.output);
}

// cap is a double so that a value float32 cannot hold (1e-50 would become 0, 1e39 Infinity) is refused as given.
inline Status softcap(OutFloats y, Floats x, double cap) {
  RL_RETURN_IF_ERROR(check_vector("x", x));
  RL_RETURN_IF_ERROR(check_finite("x", x));
  RL_RETURN_IF_ERROR(check_cap(cap));
  RL_RETURN_IF_ERROR(check_output("y", y, x.size()));
  rl::softcap_forward(y.data(), x.data(), static_cast<int>(x.size()), static_cast<float>(cap));
  return Status::success();
}

inline Status softcap_backward(OutFloats dx, Floats dy, Floats x, double cap) {
  RL_RETURN_IF_ERROR(check_vector("x", x));
  RL_RETURN_IF_ERROR(check_finite("x", x));
  RL_RETURN_IF_ERROR(check_matching("dy", dy, x.size()));
  RL_RETURN_IF_ERROR(check_cap(cap));
  RL_RETURN_IF_ERROR(check_output("dx", dx, x.size()));
  std::fill(dx.begin(), dx.end(), 0.0f);
  rl::softcap_backward(dx.data(), dy.data(), x.data(), static_cast<int>(x.size()), static_cast<float>(cap));
  return Status::success();
}

inline Status softmax(OutFloats y, Floats x) {
  RL_RETURN_IF_ERROR(check_vector("x", x));
  RL_RETURN_IF_ERROR(check_finite("x", x));
  RL_RETURN_IF_ERROR(check_output("y", y, x.size()));
  rl::softmax_forward(y.data(), x.data(), 1, static_cast<int>(x.size()));
  return Status::success();
}

}  // namespace rl::api
