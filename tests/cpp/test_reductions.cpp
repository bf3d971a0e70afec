// The SIMD reductions every kernel is built on, for every n from 0 to 40 (all paths of the 16-wide blocks,
// 4-wide steps and scalar tails) and a few large n, against sums in double.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/reductions.hpp"
#include "test_util.hpp"

TEST_CASE("reductions match double sums for every tail length", "[reductions]") {
  rl::test::Rng rng(77);
  std::vector<int> sizes;
  for (int n = 0; n <= 40; ++n) sizes.push_back(n);
  for (int n : {1023, 4096, 5003}) sizes.push_back(n);
  for (int n : sizes) {
    CAPTURE(n);
    const std::vector<float> a = rl::test::random_normal(rng, n, 0.5, 1.0), b = rl::test::random_normal(rng, n);
    double sum = 0, sum_sq = 0, sum_sq_b = 0, dot = 0, dev = 0;
    const float c = 0.25f;
    for (int i = 0; i < n; ++i) {
      sum += a[i];
      sum_sq += double(a[i]) * a[i];
      sum_sq_b += double(b[i]) * b[i];
      dot += double(a[i]) * b[i];
      dev += (double(a[i]) - c) * (double(a[i]) - c);
    }
    const double tol = 1e-6 * (n + 1);  // |terms| ~ 1: float32 sums of n terms
    CHECK(rl::simd::sum(a.data(), n) == Approx(sum).margin(tol));
    CHECK(rl::simd::sum_of_squares(a.data(), n) == Approx(sum_sq).margin(tol));
    CHECK(rl::simd::dot(a.data(), b.data(), n) == Approx(dot).margin(tol));
    CHECK(rl::simd::sum_of_squared_deviations(a.data(), c, n) == Approx(dev).margin(tol));
    const rl::simd::Sums2 both = rl::simd::sums_of_squares(a.data(), b.data(), n);
    CHECK(both.first == Approx(sum_sq).margin(tol));
    CHECK(both.second == Approx(sum_sq_b).margin(tol));
    CHECK(rl::simd::all_finite(a.data(), n));
  }
}

TEST_CASE("all_finite finds one NaN or infinity at any position", "[reductions]") {
  const float bad[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                       -std::numeric_limits<float>::infinity()};
  for (int n : {1, 3, 4, 5, 16, 17, 33}) {
    for (int at = 0; at < n; ++at) {
      for (float value : bad) {
        std::vector<float> v(n, 1e30f);  // large but finite: x * 0 stays 0
        v[at] = value;
        CAPTURE(n, at, value);
        CHECK_FALSE(rl::simd::all_finite(v.data(), n));
        CHECK_FALSE(std::isfinite(rl::simd::sum_of_squares(v.data(), n)));
      }
    }
  }
}
