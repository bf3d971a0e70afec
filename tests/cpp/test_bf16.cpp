// bfloat16 rounding and the BF16 RMSNorm emulation: exact values where the arithmetic is known by hand, and the
// error against float64 on a 4096-d vector, where summing squares in bf16 goes visibly wrong.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/bf16.hpp"
#include "kernels/norms.hpp"
#include "reference/norms_reference.hpp"
#include "test_util.hpp"

namespace {
float from_bits(std::uint32_t b) {
  float f;
  std::memcpy(&f, &b, sizeof f);
  return f;
}
}  // namespace

TEST_CASE("round_to_bf16 rounds to nearest, ties to even", "[bf16]") {
  const float step = 0x1.0p-7f;  // bf16 spacing just above 1
  CHECK(rl::round_to_bf16(1.0f) == 1.0f);
  CHECK(rl::round_to_bf16(1.0f + step / 2) == 1.0f);                      // tie, 1.0 is even
  CHECK(rl::round_to_bf16(1.0f + step * 1.5f) == 1.0f + 2 * step);        // tie, 1 + step is odd: round up
  CHECK(rl::round_to_bf16(1.0f + step / 2 + 0x1.0p-20f) == 1.0f + step);  // just above the tie
  CHECK(rl::round_to_bf16(1.0f + step / 2 - 0x1.0p-20f) == 1.0f);         // just below the tie
  CHECK(rl::round_to_bf16(-(1.0f + step * 1.5f)) == -(1.0f + 2 * step));
  CHECK(rl::round_to_bf16(257.0f) == 256.0f);  // 8 significant bits: 257 is a tie between 256 and 258
  CHECK(rl::round_to_bf16(259.0f) == 260.0f);
  CHECK(rl::float_to_bf16_bits(1.0f) == 0x3F80);
  CHECK(rl::bf16_bits_to_float(0xC040) == -3.0f);
  CHECK(rl::round_to_bf16(0.0f) == 0.0f);
  CHECK(std::signbit(rl::round_to_bf16(-0.0f)));
  CHECK(std::isinf(rl::round_to_bf16(FLT_MAX)));                               // above the largest bf16 + half a step
  CHECK(rl::round_to_bf16(from_bits(0x7F7F0000u)) == from_bits(0x7F7F0000u));  // the largest bf16
  CHECK(std::isinf(rl::round_to_bf16(INFINITY)));
  CHECK(std::isnan(rl::round_to_bf16(NAN)));
  CHECK(std::isnan(rl::bf16_bits_to_float(rl::float_to_bf16_bits(from_bits(0x7F800001u)))));  // NaN not -> inf
  CHECK(rl::round_to_bf16(from_bits(0x00018000u)) == from_bits(0x00020000u));                 // subnormal tie, to even
}

TEST_CASE("BF16 RMSNorm of the worked example, by hand", "[bf16][rmsnorm]") {
  // mean square 3.5 is exact; rstd = 1/sqrt(3.5) = 0.534522... rounds to 137/256 = 0.53515625;
  // 3 * 0.53515625 = 1.60546875 = 205.5/128 is a tie and rounds to even 206/128 = 1.609375.
  const std::vector<float> x = {2.0f, -1.0f, 3.0f, 0.0f};
  std::vector<float> y(4);
  rl::rmsnorm_forward_bf16(y.data(), x.data(), nullptr, 4, 0.0f, 0.0f);
  CHECK(y == std::vector<float>{1.0703125f, -0.53515625f, 1.609375f, 0.0f});
  // Gemma: w = 1 + 0.5 = 1.5 exactly, and y = bf16(normalized * 1.5) rounds a second time:
  // 1.0703125 * 1.5 = 1.60546875 (tie, up to 1.609375), 1.609375 * 1.5 = 2.4140625 (tie, down to 2.40625)
  const std::vector<float> g(4, 0.5f);
  rl::rmsnorm_forward_bf16(y.data(), x.data(), g.data(), 4, 0.0f, 1.0f);
  CHECK(y == std::vector<float>{1.609375f, -0.8046875f, 2.40625f, 0.0f});
}

TEST_CASE("BF16 RMSNorm: a sum of ones stalls at 256", "[bf16][rmsnorm]") {
  // 256 + 1 = 257 is a tie in bf16 and rounds back to 256, so 4096 ones sum to 256, the mean square comes out
  // 1/16 instead of 1, and every output is 4 instead of 1.
  const std::vector<float> x(4096, 1.0f);
  std::vector<float> y(4096), y32(4096);
  rl::rmsnorm_forward_bf16(y.data(), x.data(), nullptr, 4096, 1e-5f, 0.0f);
  rl::rmsnorm_forward(y32.data(), nullptr, x.data(), nullptr, 1, 4096, 1e-5f, 0.0f);
  CHECK(std::all_of(y.begin(), y.end(), [](float v) { return v == 4.0f; }));
  CHECK(std::all_of(y32.begin(), y32.end(), [](float v) { return std::fabs(v - 1.0f) < 1e-5f; }));
}

TEST_CASE("BF16 RMSNorm is clearly worse than FP32 on a 4096-d vector", "[bf16][rmsnorm]") {
  const int d = 4096;
  rl::test::Rng rng(4096);
  const std::vector<float> x = rl::test::random_normal(rng, d), g = rl::test::random_normal(rng, d, 1.0, 0.1);
  const Eigen::ArrayXd want = rl::ref::rmsnorm_forward(rl::test::to_double(x), rl::test::to_double(g), 1e-5, 0.0);
  std::vector<float> y32(d), y16(d);
  rl::rmsnorm_forward(y32.data(), nullptr, x.data(), g.data(), 1, d, 1e-5f, 0.0f);
  rl::rmsnorm_forward_bf16(y16.data(), x.data(), g.data(), d, 1e-5f, 0.0f);
  auto relative_errors = [&](const std::vector<float>& y) {
    double max_err = 0, sum_err = 0;
    for (int i = 0; i < d; ++i) {
      const double e = std::fabs(y[i] - want[i]) / std::max(std::fabs(want[i]), 1e-30);
      max_err = std::max(max_err, e);
      sum_err += e;
    }
    return std::pair{max_err, sum_err / d};
  };
  const auto [max32, mean32] = relative_errors(y32);
  const auto [max16, mean16] = relative_errors(y16);
  INFO("relative error vs float64, d = 4096: fp32 max " << max32 << " mean " << mean32 << "; bf16 max " << max16
                                                        << " mean " << mean16);
  CHECK(max32 < 1e-5);
  CHECK(mean32 < 1e-6);
  CHECK(max16 > 1000 * max32);
  CHECK(mean16 > 1000 * mean32);
  CHECK(mean16 > 0.1);  // not rounding noise (about 0.2%): the stalled sum makes every output too large
}
