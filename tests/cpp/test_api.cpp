// The validated entry points (api/kernel_api.hpp): every bad input returns a Status with the right message and
// runs no kernel; good input gives what the kernels give; a good call after a bad one works.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "api/kernel_api.hpp"
#include "kernels/activations.hpp"
#include "kernels/norms.hpp"

using rl::api::OptionalFloats;
using rl::api::Precision;

namespace {
const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();
const std::vector<float> kX = {2.0f, -1.0f, 3.0f, 0.0f};
const std::vector<float> kG = {1.0f, 0.5f, 2.0f, -1.0f};
const std::vector<float> kDy = {0.3f, -0.2f, 0.1f, 1.0f};

void check_fails(const rl::Status& status, const std::string& message) {
  CHECK_FALSE(status.ok);
  CHECK(status.message == message);
}

std::vector<float> with(std::vector<float> v, std::size_t i, float value) {
  v[i] = value;
  return v;
}
}  // namespace

TEST_CASE("api::rmsnorm rejects bad input with a clear message", "[api][rmsnorm]") {
  std::vector<float> y(4);
  const std::vector<float> empty;
  check_fails(rl::api::rmsnorm(y, empty, std::nullopt, 1e-5f), "x is empty");
  check_fails(rl::api::rmsnorm(y, kX, std::vector<float>{1, 2, 3}, 1e-5f), "g has 3 values but x has 4");
  check_fails(rl::api::rmsnorm(y, kX, kG, -1.0f), "eps must be a finite number of at least 0 (got -1)");
  check_fails(rl::api::rmsnorm(y, kX, kG, kNaN), "eps must be a finite number of at least 0 (got NaN)");
  check_fails(rl::api::rmsnorm(y, kX, kG, kInf), "eps must be a finite number of at least 0 (got Infinity)");
  check_fails(rl::api::rmsnorm(y, with(kX, 2, kNaN), kG, 1e-5f), "x[2] is NaN");
  check_fails(rl::api::rmsnorm(y, with(kX, 1, kInf), kG, 1e-5f), "x[1] is Infinity");
  check_fails(rl::api::rmsnorm(y, kX, with(kG, 0, -kInf), 1e-5f), "g[0] is -Infinity");
  check_fails(rl::api::rmsnorm(y, kX, kG, 1e-5f, kNaN), "weightOffset must be a finite number (got NaN)");
  check_fails(rl::api::rmsnorm(y, std::vector<float>(4, 0.0f), kG, 0.0f),
              "x is all zeros and eps is 0, so its RMS is 0 and x / RMS is undefined; use eps > 0");
  check_fails(rl::api::rmsnorm(y, std::vector<float>{1e20f, 1.0f, 0.0f, 0.0f}, kG, 1e-5f),
              "the sum of squares of x overflows float32 (the largest |x_i| is 1.00000002e+20); scale x down");
  // the reason a page words in its own language, with the number the message quotes
  const rl::Status zeros = rl::api::rmsnorm(y, std::vector<float>(4, 0.0f), kG, 0.0f);
  CHECK(zeros.reason.kind == "zero_rms");
  const rl::Status huge = rl::api::rmsnorm(y, std::vector<float>{1e20f, 1.0f, 0.0f, 0.0f}, kG, 1e-5f);
  CHECK(huge.reason.kind == "sum_overflow");
  CHECK(huge.reason.value == static_cast<double>(1e20f));
  CHECK(rl::api::rmsnorm(y, kX, kG, -1.0f).reason.kind.empty());
  std::vector<float> y3(3);
  check_fails(rl::api::rmsnorm(y3, kX, kG, 1e-5f), "the output y has room for 3 values but x has 4");
  check_fails(rl::api::rmsnorm(y, kX, std::vector<float>(4, 3e38f), 1e-5f),
              "the result y[2] overflows float32 (Infinity): the weights or dy are too large");
  const std::vector<float> too_long((1 << 20) + 1, 1.0f);
  std::vector<float> y_long(too_long.size());
  check_fails(rl::api::rmsnorm(y_long, too_long, std::nullopt, 1e-5f),
              "x has 1048577 values; at most 1,048,576 are supported");
}

TEST_CASE("api::rmsnorm computes what the kernels compute, fp32 and bf16", "[api][rmsnorm]") {
  const float offset = GENERATE(0.0f, 1.0f);
  std::vector<float> y(4), want(4);
  REQUIRE(rl::api::rmsnorm(y, kX, kG, 1e-5f, offset).ok);
  rl::rmsnorm_forward(want.data(), nullptr, kX.data(), kG.data(), 1, 4, 1e-5f, offset);
  CHECK(y == want);
  REQUIRE(rl::api::rmsnorm(y, kX, std::nullopt, 1e-5f, offset, Precision::bf16).ok);
  rl::rmsnorm_forward_bf16(want.data(), kX.data(), nullptr, 4, 1e-5f, offset);
  CHECK(y == want);
  // zeros are fine with eps > 0
  REQUIRE(rl::api::rmsnorm(y, std::vector<float>(4, 0.0f), std::nullopt, 1e-5f).ok);
  CHECK(y == std::vector<float>(4, 0.0f));
}

TEST_CASE("api::parse_precision", "[api]") {
  Precision p = Precision::fp32;
  REQUIRE(rl::api::parse_precision("bf16", p).ok);
  CHECK(p == Precision::bf16);
  REQUIRE(rl::api::parse_precision("fp32", p).ok);
  CHECK(p == Precision::fp32);
  check_fails(rl::api::parse_precision("fp16", p), "precision must be 'fp32' or 'bf16' (got 'fp16')");
}

TEST_CASE("api::layernorm rejects bad input and computes the kernel's result", "[api][layernorm]") {
  std::vector<float> y(4), want(4);
  const std::vector<float> beta = {0.1f, 0.2f, 0.3f, 0.4f};
  check_fails(rl::api::layernorm(y, std::vector<float>{}, std::nullopt, std::nullopt, 1e-5f), "x is empty");
  check_fails(rl::api::layernorm(y, kX, std::vector<float>(5, 1.0f), std::nullopt, 1e-5f),
              "gamma has 5 values but x has 4");
  check_fails(rl::api::layernorm(y, kX, kG, std::vector<float>(2, 0.0f), 1e-5f), "beta has 2 values but x has 4");
  check_fails(rl::api::layernorm(y, kX, kG, with(beta, 3, kNaN), 1e-5f), "beta[3] is NaN");
  check_fails(rl::api::layernorm(y, kX, kG, beta, -0.5f), "eps must be a finite number of at least 0 (got -0.5)");
  check_fails(rl::api::layernorm(y, std::vector<float>(4, 7.0f), kG, beta, 0.0f),
              "x is constant: its variance (0) is rounding noise (at most 5.68434189e-12 for these values), and eps "
              "is 0, so (x - mean) / std is undefined; use eps > 0");
  check_fails(rl::api::layernorm(y, std::vector<float>{5.0f}, std::nullopt, std::nullopt, 0.0f),
              "x is constant: its variance (0) is rounding noise (at most 9.09494702e-13 for these values), and eps "
              "is 0, so (x - mean) / std is undefined; use eps > 0");
  REQUIRE(rl::api::layernorm(y, kX, kG, beta, 1e-5f).ok);
  rl::layernorm_forward(want.data(), nullptr, nullptr, kX.data(), kG.data(), beta.data(), 1, 4, 1e-5f);
  CHECK(y == want);
  // a constant x with eps > 0 normalizes to 0, so the output is beta
  REQUIRE(rl::api::layernorm(y, std::vector<float>(4, 7.0f), kG, beta, 1e-5f).ok);
  CHECK(y == beta);
}

TEST_CASE("api backwards validate, write (not accumulate) and match the kernels", "[api][backward]") {
  std::vector<float> dx(4, 99.0f), dg(4, 99.0f), db(4, 99.0f);
  check_fails(rl::api::rmsnorm_backward(dx, dg, std::vector<float>{1, 2, 3}, kX, kG, 1e-5f),
              "dy has 3 values but x has 4");
  check_fails(rl::api::rmsnorm_backward(dx, dg, with(kDy, 1, kNaN), kX, kG, 1e-5f), "dy[1] is NaN");
  check_fails(rl::api::rmsnorm_backward(dx, dg, kDy, kX, std::vector<float>{1}, 1e-5f), "g has 1 value but x has 4");
  check_fails(rl::api::layernorm_backward(dx, dg, db, kDy, kX, kG, -1.0f),
              "eps must be a finite number of at least 0 (got -1)");
  check_fails(rl::api::layernorm_backward(dx, dg, db, std::vector<float>{}, kX, kG, 1e-5f),
              "dy has 0 values but x has 4");
  std::vector<float> short_out(2);
  check_fails(rl::api::layernorm_backward(dx, dg, short_out, kDy, kX, kG, 1e-5f),
              "the output dbeta has room for 2 values but x has 4");

  const float offset = GENERATE(0.0f, 1.0f);
  // the kernels accumulate into zeros; the API must give exactly that, twice in a row
  std::vector<float> y(4), want_dx(4, 0.0f), want_dg(4, 0.0f), want_db(4, 0.0f);
  float mean = 0, rstd = 0;
  rl::rmsnorm_forward(y.data(), &rstd, kX.data(), kG.data(), 1, 4, 1e-5f, offset);
  rl::rmsnorm_backward(want_dx.data(), want_dg.data(), kDy.data(), kX.data(), &rstd, kG.data(), 1, 4, offset);
  for (int call = 0; call < 2; ++call) {
    REQUIRE(rl::api::rmsnorm_backward(dx, dg, kDy, kX, kG, 1e-5f, offset).ok);
    CHECK(dx == want_dx);
    CHECK(dg == want_dg);
  }
  std::fill(want_dx.begin(), want_dx.end(), 0.0f);
  std::fill(want_dg.begin(), want_dg.end(), 0.0f);
  rl::layernorm_forward(y.data(), &mean, &rstd, kX.data(), kG.data(), nullptr, 1, 4, 1e-5f);
  rl::layernorm_backward(want_dx.data(), want_dg.data(), want_db.data(), kDy.data(), kX.data(), &mean, &rstd, kG.data(),
                         1, 4);
  for (int call = 0; call < 2; ++call) {
    REQUIRE(rl::api::layernorm_backward(dx, dg, db, kDy, kX, kG, 1e-5f).ok);
    CHECK(dx == want_dx);
    CHECK(dg == want_dg);
    CHECK(db == want_db);
  }
}

TEST_CASE("api steps validate like the forwards", "[api][steps]") {
  rl::RmsNormSteps rms;
  rl::LayerNormSteps ln;
  check_fails(rl::api::rmsnorm_steps(rms, std::vector<float>{}, std::nullopt, 1e-5f), "x is empty");
  check_fails(rl::api::rmsnorm_steps(rms, with(kX, 3, kNaN), std::nullopt, 1e-5f), "x[3] is NaN");
  check_fails(rl::api::layernorm_steps(ln, kX, std::vector<float>{1}, std::nullopt, 1e-5f),
              "gamma has 1 value but x has 4");
  check_fails(rl::api::layernorm_steps(ln, kX, std::nullopt, std::nullopt, -2.0f),
              "eps must be a finite number of at least 0 (got -2)");
  REQUIRE(rl::api::layernorm_steps(ln, kX, std::nullopt, std::nullopt, 0.0f).ok);
  CHECK(ln.variance == 2.5f);
  REQUIRE(rl::api::rmsnorm_steps(rms, kX, kG, 0.0f, 1.0f).ok);
  CHECK(rms.mean_square == 3.5f);
  CHECK(rms.output[1] == Approx(rms.normalized[1] * 1.5f));
}

// A constant x whose two-pass variance is not exactly 0 (0.1 is not a float32: the mean rounds away from the
// values) is still constant: forward, steps and backward refuse it alike with eps 0, naming x, not the weights.
TEST_CASE("api: a variance within rounding noise of a constant x is zero, in every entry point", "[api][edges]") {
  const std::vector<float> x = {0.1f, 0.1f, 0.1f};
  const float variance = rl::layernorm_stats(x.data(), 3, 0.0f).variance;
  CHECK(variance > 0.0f);  // the rounding leaves a tiny variance
  const std::string constant_x =
      "x is constant: its variance (" + rl::api::format_number(variance) +
      ") is rounding noise (at most 8.8817842e-16 for these values), and eps is 0, so (x - mean) / std is "
      "undefined; use eps > 0";
  std::vector<float> y(3), dx(3), dg(3), db(3);
  check_fails(rl::api::layernorm(y, x, std::nullopt, std::nullopt, 0.0f), constant_x);
  rl::LayerNormSteps ln;
  check_fails(rl::api::layernorm_steps(ln, x, std::nullopt, std::nullopt, 0.0f), constant_x);
  check_fails(rl::api::layernorm_backward(dx, dg, db, std::vector<float>{1, 0, 0}, x, std::nullopt, 0.0f), constant_x);
  // large constant values: the noise scales with the magnitude
  const std::vector<float> big = {3e18f, 3e18f, 3e18f, 3e18f, 3e18f};
  std::vector<float> y5(5);
  CHECK_THAT(rl::api::layernorm(y5, big, std::nullopt, std::nullopt, 0.0f).message,
             Catch::Matchers::StartsWith("x is constant"));
  // a spread of a few ulps is within the noise ((d + 1) ulps of 1 here); a spread of 80 ulps is kept
  const auto within_noise =
      rl::api::layernorm(y, std::vector<float>{1.0f, 1.0f + 1e-6f, 1.0f}, std::nullopt, std::nullopt, 0.0f);
  CHECK(within_noise.reason.kind == "constant_x_eps_zero");
  // not constant, but the squares of its deviations (5e-31) underflow float32: said so
  const auto small_spread = rl::api::layernorm(y, std::vector<float>{1e-30f, 0.0f}, std::nullopt, std::nullopt, 0.0f);
  CHECK(small_spread.reason.kind == "variance_underflow");
  CHECK(small_spread.reason.value == Approx(2.5e-61).epsilon(1e-6));
  CHECK_THAT(small_spread.message, Catch::Matchers::StartsWith("x is not constant, but its variance (2.5"));
  REQUIRE(rl::api::layernorm(y, std::vector<float>{1.0f, 1.0f + 1e-5f, 1.0f}, std::nullopt, std::nullopt, 0.0f).ok);
  CHECK(y[1] == Approx(std::sqrt(2.0f)).epsilon(0.01));
  // with eps above the noise a constant x is its rounding noise over sqrt(eps): about 0 here
  REQUIRE(rl::api::layernorm(y, x, std::nullopt, std::nullopt, 1e-5f).ok);
  for (float v : y) CHECK(std::fabs(v) < 1e-2f);
  // with eps below it, the output would be rounding error over its own size ([-0.9987, -0.9987, -0.9987] here)
  const std::vector<float> million = {1000000.1f, 1000000.1f, 1000000.1f};
  check_fails(rl::api::layernorm(y, million, std::nullopt, std::nullopt, 1e-5f),
              "x is constant: its variance (" +
                  rl::api::format_number(rl::layernorm_stats(million.data(), 3, 1e-5f).variance) +
                  ") is rounding noise (at most 0.0625 for these values), and eps (9.99999975e-06) is smaller, so "
                  "(x - mean) / std would be rounding error over its own size; use eps >= 0.0625");
  REQUIRE(rl::api::layernorm(y, million, std::nullopt, std::nullopt, 0.0625f).ok);
  // RMSNorm's backward has a term in 1 / RMS^3: for a tiny x it overflows, and the message says so
  const rl::Status tiny_rms = rl::api::rmsnorm_backward(dx, dg, std::vector<float>{1, 0, 0},
                                                        std::vector<float>{1e-20f, 2e-20f, 0.0f}, std::nullopt, 0.0f);
  CHECK_FALSE(tiny_rms.ok);
  CHECK_THAT(tiny_rms.message,
             Catch::Matchers::StartsWith("the result dx[0] overflows float32 (-Infinity): x is so "
                                         "small that 1 / RMS^3 overflows float32 (1 / RMS is 7.7459"));

  // RMSNorm: all zeros, and squares that underflow, are refused by the forward, the steps and the backward
  const std::string zeros = "x is all zeros and eps is 0, so its RMS is 0 and x / RMS is undefined; use eps > 0";
  const std::vector<float> z(3, 0.0f);
  rl::RmsNormSteps rms;
  check_fails(rl::api::rmsnorm(y, z, std::nullopt, 0.0f), zeros);
  check_fails(rl::api::rmsnorm_steps(rms, z, std::nullopt, 0.0f), zeros);
  // only the division is refused: the steps before it are filled, the mean square and RMS 0
  CHECK(rms.squares == z);
  CHECK(rms.mean_square == 0.0f);
  CHECK(rms.rms == 0.0f);
  check_fails(rl::api::rmsnorm_backward(dx, dg, std::vector<float>{1, 0, 0}, z, std::nullopt, 0.0f), zeros);
  const std::vector<float> tiny = {1e-30f, -1e-30f, 0.0f};
  const std::string underflow =
      "the mean square of x underflows float32 to 0 (the largest |x_i| is 1e-30) and eps is 0, so "
      "x / RMS is undefined; scale x up or use eps > 0";
  check_fails(rl::api::rmsnorm(y, tiny, std::nullopt, 0.0f), underflow);
  check_fails(rl::api::rmsnorm_steps(rms, tiny, std::nullopt, 0.0f), underflow);
  check_fails(rl::api::rmsnorm_backward(dx, dg, std::vector<float>{1, 0, 0}, tiny, std::nullopt, 0.0f), underflow);
  // bf16: squares that float32 keeps (1e-21^2 = 1e-42) but bf16 rounds to 0
  const std::vector<float> small = {1e-21f, 1e-21f, 1e-21f};
  REQUIRE(rl::api::rmsnorm(y, small, std::nullopt, 0.0f).ok);
  check_fails(rl::api::rmsnorm(y, small, std::nullopt, 0.0f, 0.0f, Precision::bf16),
              "in bf16 the mean square of x rounds to 0 (the largest |x_i| is 9.99999968e-22; bf16 rounds squares "
              "up to 4.6e-41 to 0) and eps is 0, so x / RMS is undefined; scale x up or use eps > 0");
}

// The check decides on cheap bounds of the noise first; its decision must be the rule's, computed here directly.
TEST_CASE("api: layernorm's constant-x decision is the rounding-noise rule for any scale, spread and eps",
          "[api][edges]") {
  for (int d : {1, 2, 3, 4, 33, 4096}) {
    for (float scale : {1e-30f, 0.1f, 1.0f, 7.0f, 1e6f, 1e15f}) {
      for (int ulps : {0, 1, 3, 40, 100000}) {
        std::vector<float> v(static_cast<std::size_t>(d), scale);
        for (int i = 0; i < d; i += 2) v[i] = scale * (1.0f + ulps * std::ldexp(1.0f, -23));
        const double variance = rl::layernorm_stats(v.data(), d, 0.0f).variance;
        const double noise = rl::api::detail::variance_rounding_noise(v);
        for (float eps : {0.0f, 1e-30f, 1e-12f, 1e-5f, 1.0f}) {
          const bool want = variance > noise || (eps != 0.0f && static_cast<double>(eps) >= noise);
          std::vector<float> y(v.size());
          INFO("d " << d << " scale " << scale << " ulps " << ulps << " eps " << eps);
          CHECK(rl::api::layernorm(y, v, std::nullopt, std::nullopt, eps).ok == want);
        }
      }
    }
  }
}

TEST_CASE("api softcap and softmax validate", "[api][activations]") {
  std::vector<float> y(4), dx(4, 5.0f);
  check_fails(rl::api::softcap(y, kX, 0.0f), "cap must be > 0 (got 0)");
  check_fails(rl::api::softcap(y, kX, -30.0f), "cap must be > 0 (got -30)");
  check_fails(rl::api::softcap(y, kX, kNaN), "cap must be > 0 (got NaN)");
  check_fails(rl::api::softcap(y, kX, kInf), "cap must be a finite number (got Infinity)");
  // a cap float32 cannot hold is refused as given (1e-50 would become 0, 1e39 Infinity)
  check_fails(rl::api::softcap(y, kX, 1e-50),
              "cap must be representable as a float32: 1e-50 would become 0 (nonzero magnitudes from 1.17549435e-38 "
              "to 3.40282347e+38)");
  check_fails(rl::api::softcap_backward(dx, kDy, kX, 1e39),
              "cap must be representable as a float32: 1e+39 would become Infinity (nonzero magnitudes from "
              "1.17549435e-38 to 3.40282347e+38)");
  check_fails(rl::api::softcap(y, with(kX, 0, kNaN), 30.0f), "x[0] is NaN");
  check_fails(rl::api::softcap(y, std::vector<float>{}, 30.0f), "x is empty");
  check_fails(rl::api::softcap_backward(dx, std::vector<float>{1}, kX, 30.0f), "dy has 1 value but x has 4");
  check_fails(rl::api::softmax(y, with(kX, 2, -kInf)), "x[2] is -Infinity");
  check_fails(rl::api::softmax(y, std::vector<float>{}), "x is empty");

  const std::vector<float> logits = {10.0f, 30.0f, 60.0f, 200.0f};
  REQUIRE(rl::api::softcap(y, logits, 30.0f).ok);
  CHECK(y[3] == Approx(30.0f).margin(1e-3));
  REQUIRE(rl::api::softcap_backward(dx, kDy, logits, 30.0f).ok);  // writes: the 5.0 fill is gone
  std::vector<float> want(4, 0.0f);
  rl::softcap_backward(want.data(), kDy.data(), logits.data(), 4, 30.0f);
  CHECK(dx == want);
  REQUIRE(rl::api::softmax(y, kX).ok);
  CHECK(y[0] + y[1] + y[2] + y[3] == Approx(1.0f));
}

TEST_CASE("a good call after a bad one works", "[api]") {
  std::vector<float> y(4), first(4);
  REQUIRE(rl::api::rmsnorm(first, kX, kG, 1e-5f).ok);
  check_fails(rl::api::rmsnorm(y, with(kX, 0, kNaN), kG, 1e-5f), "x[0] is NaN");
  check_fails(rl::api::rmsnorm(y, kX, kG, -1.0f), "eps must be a finite number of at least 0 (got -1)");
  const rl::Status again = rl::api::rmsnorm(y, kX, kG, 1e-5f);
  CHECK(again.ok);
  CHECK(again.message.empty());
  CHECK(y == first);
}

TEST_CASE("api::dyt validates, computes the kernel's result, and its backward writes the gradients", "[api][dyt]") {
  std::vector<float> y(4), want(4);
  const std::vector<float> beta = {0.1f, 0.2f, 0.3f, 0.4f};
  check_fails(rl::api::dyt(y, std::vector<float>{}, 0.5f, std::nullopt, std::nullopt), "x is empty");
  check_fails(rl::api::dyt(y, with(kX, 2, kNaN), 0.5f, std::nullopt, std::nullopt), "x[2] is NaN");
  check_fails(rl::api::dyt(y, kX, kNaN, std::nullopt, std::nullopt), "alpha must be a finite number (got NaN)");
  check_fails(rl::api::dyt(y, kX, -kInf, std::nullopt, std::nullopt), "alpha must be a finite number (got -Infinity)");
  check_fails(rl::api::dyt(y, kX, 0.5f, std::vector<float>(3, 1.0f), std::nullopt), "gamma has 3 values but x has 4");
  check_fails(rl::api::dyt(y, kX, 0.5f, kG, with(beta, 0, kInf)), "beta[0] is Infinity");
  std::vector<float> y3(3);
  check_fails(rl::api::dyt(y3, kX, 0.5f, kG, beta), "the output y has room for 3 values but x has 4");

  // [2, -1, 3, 0] at alpha 0.5: tanh(1), tanh(-0.5), tanh(1.5), 0
  REQUIRE(rl::api::dyt(y, kX, 0.5f, std::nullopt, std::nullopt).ok);
  CHECK(y[0] == Approx(std::tanh(1.0)).epsilon(1e-6));
  CHECK(y[1] == Approx(std::tanh(-0.5)).epsilon(1e-6));
  CHECK(y[2] == Approx(std::tanh(1.5)).epsilon(1e-6));
  CHECK(y[3] == 0.0f);
  REQUIRE(rl::api::dyt(y, kX, 0.5f, kG, beta).ok);
  rl::dyt_forward(want.data(), kX.data(), 0.5f, kG.data(), beta.data(), 1, 4);
  CHECK(y == want);

  rl::api::DytSteps steps;
  check_fails(rl::api::dyt_steps(steps, kX, kInf, std::nullopt, std::nullopt),
              "alpha must be a finite number (got Infinity)");
  REQUIRE(rl::api::dyt_steps(steps, kX, 0.5f, kG, beta).ok);
  CHECK(steps.scaled == std::vector<float>{1.0f, -0.5f, 1.5f, 0.0f});
  CHECK(steps.tanh[2] == Approx(std::tanh(1.5)).epsilon(1e-6));
  CHECK(steps.output == want);

  // the kernel accumulates into zeros; the API must give exactly that, twice in a row
  std::vector<float> dx(4, 99.0f), dgamma(4, 99.0f), dbeta(4, 99.0f), want_dx(4, 0.0f), want_dgamma(4, 0.0f),
      want_dbeta(4, 0.0f);
  float dalpha = 99.0f, want_dalpha = 0.0f;
  check_fails(rl::api::dyt_backward(dx, dalpha, dgamma, dbeta, std::vector<float>{1, 2}, kX, 0.5f, kG),
              "dy has 2 values but x has 4");
  check_fails(rl::api::dyt_backward(dx, dalpha, dgamma, dbeta, kDy, kX, kNaN, kG),
              "alpha must be a finite number (got NaN)");
  rl::dyt_backward(want_dx.data(), &want_dalpha, want_dgamma.data(), want_dbeta.data(), kDy.data(), kX.data(), 0.7f,
                   kG.data(), 1, 4);
  for (int call = 0; call < 2; ++call) {
    REQUIRE(rl::api::dyt_backward(dx, dalpha, dgamma, dbeta, kDy, kX, 0.7f, kG).ok);
    CHECK(dx == want_dx);
    CHECK(dalpha == want_dalpha);
    CHECK(dgamma == want_dgamma);
    CHECK(dbeta == kDy);
  }
  CHECK(want_dalpha != 0.0f);
}

TEST_CASE("api: without g, an overflowing multiplier 1/RMS * (weightOffset + 1) is an error, not inf", "[api][edges]") {
  // x = [1e-20]: 1/RMS = 1e20, times weightOffset + 1 = 1e19 + 1 overflows float32 although x * that would not
  std::vector<float> y(1);
  const std::vector<float> x = {1e-20f};
  const rl::Status s = rl::api::rmsnorm(y, x, std::nullopt, 0.0f, 1e19f);
  CHECK_FALSE(s.ok);
  CHECK_THAT(s.message, Catch::Matchers::Contains("1 / RMS times (weightOffset + 1) overflows"));
  // with g given as zeros the kernel multiplies in another order and the finite answer comes back
  const std::vector<float> g = {0.0f};
  REQUIRE(rl::api::rmsnorm(y, x, g, 0.0f, 1e19f).ok);
  CHECK(y[0] == Approx(1e19).epsilon(1e-5));  // x^2 = 1e-40 is subnormal: about 5 digits
}

TEST_CASE("api: eps so large that mean square + eps overflows is an error, not an output of zeros", "[api][edges]") {
  std::vector<float> y(3);
  const std::vector<float> x = {1.01e18f, 1.01e18f, 1.01e18f};  // mean square 1.02e36
  const rl::Status rms = rl::api::rmsnorm(y, x, std::nullopt, 3.4009e38f);
  CHECK_FALSE(rms.ok);
  CHECK_THAT(rms.message, Catch::Matchers::Contains("plus the mean square of x overflows float32"));
  const std::vector<float> spread = {1e18f, -2e18f, 1.01e18f};
  CHECK_FALSE(rl::api::layernorm(y, spread, std::nullopt, std::nullopt, 3.4009e38f).ok);
  REQUIRE(rl::api::rmsnorm(y, x, std::nullopt, 1e30f).ok);  // a large eps that fits still computes
  CHECK(y[0] == Approx(1.01e18 / std::sqrt(1.0201e36 + 1e30)).epsilon(1e-5));
}
