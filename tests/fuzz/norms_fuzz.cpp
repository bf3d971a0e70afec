// libFuzzer target: the validated norm API (rl::api::rmsnorm and rl::api::layernorm) on fuzzed vectors, weights,
// eps and weight offsets. Every call either fails with a message, or succeeds with a finite output of x's length;
// with unit weights the output must also be normalized:
//   RMSNorm:   rms(y) = sqrt(ms / (ms + eps)), ms = mean(x^2)        (1 when x is not tiny against eps)
//   LayerNorm: mean(y) = 0 and var(y) = var / (var + eps)            (1 when the variance is well above eps)
// with the float32 error bounds stated at each check. Inputs mix raw bit patterns (NaN, infinities, subnormals)
// with a base value plus small offsets, which reaches the near-constant vectors where float32 loses the spread.
// No case is exempted: a known defect would be skipped here under an exact condition, never by a wider tolerance.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "api/kernel_api.hpp"
#include "fuzz_check.hpp"

namespace {

using rl::api::OptionalFloats;

constexpr double kUnit32 = 0x1p-24;   // float32 unit roundoff
constexpr double kUnitBf16 = 0x1p-8;  // bfloat16 unit roundoff (8 significant bits)

float raw_float(FuzzedDataProvider& in) {
  const std::uint32_t bits = in.ConsumeIntegral<std::uint32_t>();
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// A value of an interesting kind: raw bits, a small integer, or a power of two times a small integer.
float some_float(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange(0, 3)) {
    case 0: return raw_float(in);
    case 1: return static_cast<float>(in.ConsumeIntegralInRange(-8, 8));
    case 2:
      return std::ldexp(static_cast<float>(in.ConsumeIntegralInRange(-64, 64)), in.ConsumeIntegralInRange(-160, 130));
    default: return in.ConsumeFloatingPoint<float>();
  }
}

// x: d values, either all of one kind or base + k ulps (near-constant vectors).
std::vector<float> some_vector(FuzzedDataProvider& in, int d) {
  std::vector<float> x(static_cast<std::size_t>(d));
  if (in.ConsumeBool()) {
    for (float& v : x) v = some_float(in);
  } else {
    const float base = some_float(in);
    for (float& v : x) {
      v = base;
      for (int k = in.ConsumeIntegralInRange(-3, 3); k != 0; k += k > 0 ? -1 : 1)
        v = std::nextafter(v, k > 0 ? INFINITY : -INFINITY);
    }
  }
  return x;
}

// A weight: absent, ones, zeros, a fuzzed vector, or of the wrong length.
enum class Weight { absent, ones, zeros, fuzzed, wrong_length };
std::vector<float> some_weight(FuzzedDataProvider& in, int d, Weight& kind) {
  kind = static_cast<Weight>(in.ConsumeIntegralInRange(0, 4));
  switch (kind) {
    case Weight::absent: return {};
    case Weight::ones: return std::vector<float>(static_cast<std::size_t>(d), 1.0f);
    case Weight::zeros: return std::vector<float>(static_cast<std::size_t>(d), 0.0f);
    case Weight::fuzzed: return some_vector(in, d);
    case Weight::wrong_length: return std::vector<float>(static_cast<std::size_t>(d + 1), 1.0f);
  }
  return {};
}

OptionalFloats view(const std::vector<float>& w, Weight kind) {
  if (kind == Weight::absent) return std::nullopt;
  return rl::api::Floats(w);
}

float some_eps(FuzzedDataProvider& in) {
  static const float kEps[] = {1e-5f, 1e-6f, 0.0f, 1e-12f, 1.0f, 1e-30f, -1e-5f, NAN, INFINITY};
  return in.ConsumeBool() ? kEps[in.ConsumeIntegralInRange<std::size_t>(0, std::size(kEps) - 1)] : some_float(in);
}

// The inputs of a failing call, exactly (%a: hexadecimal float), for the report.
std::string describe(const std::vector<float>& x, const std::vector<float>& w, Weight w_kind, float eps, float offset) {
  auto list = [](const std::vector<float>& v) {
    std::string s = "[";
    for (float f : v) {
      char buf[48];
      std::snprintf(buf, sizeof buf, "%s%.9g (%a)", s.size() > 1 ? ", " : "", double(f), double(f));
      s += buf;
    }
    return s + "]";
  };
  static const char* const kKinds[] = {"absent", "ones", "zeros", "fuzzed", "wrong length"};
  char tail[96];
  std::snprintf(tail, sizeof tail, " eps = %.9g (%a), offset = %.9g", double(eps), double(eps), double(offset));
  return "x = " + list(x) + ", weight " + kKinds[int(w_kind)] + (w_kind == Weight::fuzzed ? " " + list(w) : "") + tail;
}

struct Moments {
  double mean = 0, variance = 0, mean_square = 0, largest = 0;
};
Moments moments(const std::vector<float>& v) {
  Moments m;
  for (float f : v) m.mean += f, m.mean_square += double(f) * f, m.largest = std::fmax(m.largest, std::fabs(double(f)));
  m.mean /= double(v.size());
  m.mean_square /= double(v.size());
  for (float f : v) m.variance += (f - m.mean) * (f - m.mean);
  m.variance /= double(v.size());
  return m;
}

// `inputs` describes the call; FUZZ_CHECK evaluates it only when the check fails.
template <class Describe>
void check_finite_output(const std::vector<float>& y, const char* what, const Describe& inputs) {
  for (std::size_t i = 0; i < y.size(); ++i)
    FUZZ_CHECK(std::isfinite(y[i]), "%s returned ok with y[%zu] = %g; %s", what, i, double(y[i]), inputs().c_str());
}

void fuzz_rmsnorm(FuzzedDataProvider& in, int d, const std::vector<float>& x) {
  Weight g_kind;
  const std::vector<float> g = some_weight(in, d, g_kind);
  const float eps = some_eps(in);
  const float offset = in.ConsumeBool() ? static_cast<float>(in.ConsumeIntegralInRange(-1, 2)) : some_float(in);
  const bool bf16 = in.ConsumeIntegralInRange(0, 3) == 0;
  std::vector<float> y(x.size());
  const rl::Status s =
      rl::api::rmsnorm(y, x, view(g, g_kind), eps, offset, bf16 ? rl::api::Precision::bf16 : rl::api::Precision::fp32);
  if (!s.ok) {
    FUZZ_CHECK(!s.message.empty(), "rmsnorm failed without a message");
    return;
  }
  FUZZ_CHECK(d > 0 && g_kind != Weight::wrong_length && eps >= 0 && std::isfinite(eps) && std::isfinite(offset),
             "rmsnorm accepted d = %d, a weight of the wrong length, eps = %g or offset = %g", d, double(eps),
             double(offset));
  const auto inputs = [&] { return describe(x, g, g_kind, eps, offset); };
  check_finite_output(y, bf16 ? "rmsnorm (bf16)" : "rmsnorm", inputs);
  // Unit weights: the multiplier offset + g_i is 1.
  const bool unit = (offset == 0.0f && (g_kind == Weight::absent || g_kind == Weight::ones)) ||
                    (offset == 1.0f && g_kind == Weight::zeros);
  const Moments mx = moments(x);
  // Below 1e-30 the squares are subnormal (or 0) in float32 and the sum of squares loses its relative precision.
  if (!unit || mx.mean_square < 1e-30) return;
  // bf16's largest value is 0x1.fep127: a sum of squares, or mean square plus eps, that may round (with the growth
  // allowed below) to halfway above it or more is infinity in the emulation, as in real bf16, and the output 0.
  const double bf16_growth = std::pow(1 + kUnitBf16, d + 8);
  if (bf16 && (d * mx.mean_square * bf16_growth >= 0x1.ffp127 || mx.mean_square * bf16_growth + eps >= 0x1.ffp127))
    return;
  const double expected = std::sqrt(mx.mean_square / (mx.mean_square + eps));
  const double rms = std::sqrt(moments(y).mean_square);
  // float32: the sum of squares has relative error <= (d + 4) u (a 4-lane tree of d terms), the mean, sqrt,
  // reciprocal and product a few u more; 4x that margin. bf16: every square, partial sum and product is rounded to
  // 8 bits, so the mean square may be off by (1 + u)^(d + 8) - 1 and the rms by half that; 2x margin.
  const double tol = bf16 ? std::pow(1 + kUnitBf16, d + 8) - 1 : 4 * (d + 12) * kUnit32;
  FUZZ_CHECK(std::fabs(rms - expected) <= tol * expected,
             "rmsnorm (%s): rms(y) = %.9g, expected %.9g (tolerance %.3g relative); %s", bf16 ? "bf16" : "fp32", rms,
             expected, tol, inputs().c_str());
}

void fuzz_layernorm(FuzzedDataProvider& in, int d, const std::vector<float>& x) {
  Weight gamma_kind, beta_kind;
  const std::vector<float> gamma = some_weight(in, d, gamma_kind);
  const std::vector<float> beta = some_weight(in, d, beta_kind);
  const float eps = some_eps(in);
  std::vector<float> y(x.size());
  const rl::Status s = rl::api::layernorm(y, x, view(gamma, gamma_kind), view(beta, beta_kind), eps);
  if (!s.ok) {
    FUZZ_CHECK(!s.message.empty(), "layernorm failed without a message");
    return;
  }
  FUZZ_CHECK(d > 0 && gamma_kind != Weight::wrong_length && beta_kind != Weight::wrong_length && eps >= 0 &&
                 std::isfinite(eps),
             "layernorm accepted d = %d, a weight of the wrong length or eps = %g", d, double(eps));
  const auto inputs = [&] {
    return describe(x, gamma, gamma_kind, eps, 0) + "; beta: " + describe(beta, {}, Weight::absent, eps, 0);
  };
  check_finite_output(y, "layernorm", inputs);
  const bool unit = (gamma_kind == Weight::absent || gamma_kind == Weight::ones) &&
                    (beta_kind == Weight::absent || beta_kind == Weight::zeros);
  const Moments mx = moments(x);
  if (!unit || mx.variance < 1e-30) return;
  const Moments my = moments(y);
  // float32 rounds every x_i - mean by up to u |x_i| and the computed mean is off by up to (d + 4) u max|x_i|, so
  // each deviation is off by up to (d + 5) u max|x_i|, k = (d + 5) u max|x_i| / std(x) relative to the standard
  // deviation. mean(y) is then within k of 0 and var(y) within 2k + k^2 of its exact value (plus the few u of the
  // variance's own sum); 4x margin on both.
  // Near-constant vectors, k > 1/16 (the spread is below about 16 (d + 5) float32 ulps of the largest |x_i|): float32
  // cannot represent the deviations to better than a few percent, so no tolerance tied to the exact result holds;
  // only the checks above (ok means finite) apply.
  const double stddev = std::sqrt(mx.variance);
  const double k = (d + 5) * kUnit32 * mx.largest / stddev;
  if (k > 1.0 / 16) return;
  const double expected_var = mx.variance / (mx.variance + eps);
  FUZZ_CHECK(std::fabs(my.mean) <= 4 * k * std::sqrt(expected_var),
             "layernorm: mean(y) = %.9g (tolerance %.3g, max|x| / std(x) = %.3g); %s", my.mean,
             4 * k * std::sqrt(expected_var), mx.largest / stddev, inputs().c_str());
  FUZZ_CHECK(std::fabs(my.variance - expected_var) <= 4 * (2 * k + k * k + (d + 8) * kUnit32) * expected_var,
             "layernorm: var(y) = %.9g, expected %.9g (max|x| / std(x) = %.3g); %s", my.variance, expected_var,
             mx.largest / stddev, inputs().c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const bool layer = in.ConsumeBool();
  const int d = in.ConsumeIntegralInRange(0, 64);
  const std::vector<float> x = some_vector(in, d);
  if (layer) fuzz_layernorm(in, d, x);
  else fuzz_rmsnorm(in, d, x);
  return 0;
}
