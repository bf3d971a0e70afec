// The f32x4 erf and exp of the MLP against float64 std::erf / std::exp, over a dense grid and the extremes.
#include <catch2/catch.hpp>

#include <cmath>

#include "kernels/vector_math.hpp"

using namespace rl;

TEST_CASE("vector erf is within a few float32 ulp of erf", "[decoder][vmath]") {
  double worst = 0;
  float worst_at = 0;
  for (int i = -6000; i <= 6000; i += 4) {
    const simd::f32x4 x{i * 1e-3f, (i + 1) * 1e-3f, (i + 2) * 1e-3f, (i + 3) * 1e-3f};
    const simd::f32x4 y = vmath::erf(x);
    for (int k = 0; k < 4; ++k) {
      const double want = std::erf(static_cast<double>(x[k]));
      const double err = std::fabs(y[k] - want) / std::max(std::fabs(want), 1e-6);
      if (err > worst) worst = err, worst_at = x[k];
    }
  }
  INFO("worst relative error " << worst << " at x = " << worst_at);
  CHECK(worst < 5e-7);  // about 4 ulp
  const simd::f32x4 far = vmath::erf(simd::f32x4{-1e30f, -9.0f, 9.0f, 1e30f});
  CHECK(far[0] == -1.0f);
  CHECK(far[1] == -1.0f);
  CHECK(far[2] == 1.0f);
  CHECK(far[3] == 1.0f);
}

TEST_CASE("vector exp is within a few float32 ulp of exp", "[decoder][vmath]") {
  double worst = 0;
  float worst_at = 0;
  for (int i = -87000; i <= 88000; i += 4 * 7) {
    const simd::f32x4 x{i * 1e-3f, (i + 7) * 1e-3f, (i + 14) * 1e-3f, (i + 21) * 1e-3f};
    const simd::f32x4 y = vmath::exp(x);
    for (int k = 0; k < 4; ++k) {
      const double want = std::exp(static_cast<double>(x[k]));
      const double err = std::fabs(y[k] - want) / want;
      if (err > worst) worst = err, worst_at = x[k];
    }
  }
  INFO("worst relative error " << worst << " at x = " << worst_at);
  CHECK(worst < 4e-7);
  const simd::f32x4 edge = vmath::exp(simd::f32x4{-1000.0f, 0.0f, 1.0f, 1000.0f});
  CHECK(edge[0] >= 0.0f);
  CHECK(edge[0] < 1e-37f);
  CHECK(edge[1] == 1.0f);
  CHECK(edge[2] == Approx(2.718281828).epsilon(2e-7));
  CHECK(std::isfinite(edge[3]));  // clamped at exp(88.37), so sigmoid(-x) stays finite
}

TEST_CASE("for_lanes covers every element, tails included", "[decoder][vmath]") {
  for (int n : {0, 1, 3, 4, 5, 8, 11}) {
    std::vector<float> a(n), b(n), sum(n, -1), prod(n, -1);
    for (int i = 0; i < n; ++i) a[i] = i + 1.0f, b[i] = 2.0f * i;
    vmath::for_lanes<2, 2>(n, {a.data(), b.data()}, {sum.data(), prod.data()},
                           [](const simd::f32x4* in, simd::f32x4* out) {
                             out[0] = in[0] + in[1];
                             out[1] = in[0] * in[1];
                           });
    for (int i = 0; i < n; ++i) {
      CHECK(sum[i] == a[i] + b[i]);
      CHECK(prod[i] == a[i] * b[i]);
    }
  }
}
