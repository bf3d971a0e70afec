// The seeded random numbers every experiment and the corpus sampler draw from.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>

#include "core/random.hpp"

using rl::Rng;
using rl::uniform_below;

TEST_CASE("SplitMix64 reproduces the reference stream", "[train][random]") {
  // Reference values of Vigna's splitmix64.c started from state 0.
  Rng rng(0);
  CHECK(rng.next() == 0xe220a8397b1dcdafULL);
  CHECK(rng.next() == 0x6e789e6aa1b965f4ULL);
  CHECK(rng.next() == 0x06c45d188009454fULL);
}

TEST_CASE("uniform, uniform_below and normal have the right distributions", "[train][random]") {
  Rng rng(42);
  const int n = 200000;
  double sum = 0, sum2 = 0, sum4 = 0, usum = 0;
  int counts[7] = {};
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    sum += z;
    sum2 += z * z;
    sum4 += z * z * z * z;
    const double u = rng.uniform();
    REQUIRE(u >= 0.0);
    REQUIRE(u < 1.0);
    usum += u;
    const uint32_t k = uniform_below(rng, 7);
    REQUIRE(k < 7);
    ++counts[k];
  }
  // Standard errors over n = 2e5 draws: mean 1/sqrt(n) = 0.0022, variance sqrt(2/n) = 0.0032,
  // fourth moment sqrt(96/n) = 0.022 (E z^8 - 9 = 96); the bands are about 5 standard errors.
  CHECK(std::abs(sum / n) < 0.011);
  CHECK(std::abs(sum2 / n - 1.0) < 0.016);
  CHECK(std::abs(sum4 / n - 3.0) < 0.11);
  CHECK(std::abs(usum / n - 0.5) < 0.0033);  // sd of the mean 0.29 / sqrt(n) = 0.00065
  for (int c : counts) CHECK(std::abs(c - n / 7.0) < 5 * std::sqrt(n / 7.0));
}

TEST_CASE("streams from mix_seed are reproducible and distinct", "[train][random]") {
  Rng a(rl::mix_seed(3, 0)), b(rl::mix_seed(3, 0)), c(rl::mix_seed(3, 1));
  const double first_a = a.normal();
  CHECK(first_a == b.normal());
  CHECK(first_a != c.normal());
}
