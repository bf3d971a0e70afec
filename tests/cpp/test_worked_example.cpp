// The chapter's worked numbers, computed by the kernels, the steps functions and the validated API.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "api/kernel_api.hpp"
#include "kernels/activations.hpp"
#include "kernels/norm_steps.hpp"
#include "kernels/norms.hpp"

namespace {
const std::vector<float> kX = {2.0f, -1.0f, 3.0f, 0.0f};

// |got - want| < 0.0005: equal to the chapter's 3 decimals
void check_3_decimals(const std::vector<float>& got, const std::vector<double>& want) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("[" << i << "] got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) < 5e-4);
  }
}

std::vector<float> rmsnorm(const std::vector<float>& x, float eps, const float* g = nullptr, float offset = 0.0f) {
  std::vector<float> y(x.size());
  rl::rmsnorm_forward(y.data(), nullptr, x.data(), g, 1, static_cast<int>(x.size()), eps, offset);
  return y;
}
}  // namespace

TEST_CASE("RMSNorm([2, -1, 3, 0]) = [1.069, -0.535, 1.604, 0]", "[worked]") {
  const float eps = GENERATE(0.0f, 1e-5f);
  CAPTURE(eps);
  check_3_decimals(rmsnorm(kX, eps), {1.069, -0.535, 1.604, 0.0});
}

TEST_CASE("RMSNorm of 10x gives the same output: only the direction is kept", "[worked]") {
  const std::vector<float> x10 = {20.0f, -10.0f, 30.0f, 0.0f};
  check_3_decimals(rmsnorm(x10, 1e-5f), {1.069, -0.535, 1.604, 0.0});
  const std::vector<float> y = rmsnorm(kX, 0.0f), y10 = rmsnorm(x10, 0.0f);
  for (int i = 0; i < 4; ++i) CHECK(y10[i] == Approx(y[i]).epsilon(1e-6));
}

TEST_CASE("LayerNorm([2, -1, 3, 0]) = [0.632, -1.265, 1.265, -0.632]", "[worked]") {
  const float eps = GENERATE(0.0f, 1e-5f);
  CAPTURE(eps);
  std::vector<float> y(4);
  float mean = 0, rstd = 0;
  rl::layernorm_forward(y.data(), &mean, &rstd, kX.data(), nullptr, nullptr, 1, 4, eps);
  check_3_decimals(y, {0.632, -1.265, 1.265, -0.632});
  CHECK(mean == 1.0f);
  CHECK(1.0 / rstd == Approx(1.581).margin(5e-4));
}

TEST_CASE("RMSNorm steps: squares, mean square 3.5, rms 1.871, output", "[worked][steps]") {
  const rl::RmsNormSteps s = rl::rmsnorm_steps(kX.data(), nullptr, 4, 0.0f, 0.0f);
  CHECK(s.squares == std::vector<float>{4.0f, 1.0f, 9.0f, 0.0f});
  CHECK(s.mean_square == 3.5f);
  CHECK(s.rms == Approx(1.871).margin(5e-4));
  check_3_decimals(s.normalized, {1.069, -0.535, 1.604, 0.0});
  check_3_decimals(s.output, {1.069, -0.535, 1.604, 0.0});
  // with weights the output is normalized * g, and it agrees with the kernel
  const std::vector<float> g = {0.5f, 2.0f, -1.0f, 3.0f};
  const rl::RmsNormSteps sg = rl::rmsnorm_steps(kX.data(), g.data(), 4, 1e-5f, 0.0f);
  const std::vector<float> y = rmsnorm(kX, 1e-5f, g.data());
  for (int i = 0; i < 4; ++i) {
    CHECK(sg.output[i] == Approx(sg.normalized[i] * g[i]).epsilon(1e-6));
    CHECK(sg.output[i] == Approx(y[i]).epsilon(1e-6).margin(1e-7));
  }
}

TEST_CASE("LayerNorm steps: mean 1, centered [1, -2, 2, -1], variance 2.5, std 1.581", "[worked][steps]") {
  const rl::LayerNormSteps s = rl::layernorm_steps(kX.data(), nullptr, nullptr, 4, 0.0f);
  CHECK(s.mean == 1.0f);
  CHECK(s.centered == std::vector<float>{1.0f, -2.0f, 2.0f, -1.0f});
  CHECK(s.variance == 2.5f);
  CHECK(s.std == Approx(1.581).margin(5e-4));
  check_3_decimals(s.normalized, {0.632, -1.265, 1.265, -0.632});
  check_3_decimals(s.output, {0.632, -1.265, 1.265, -0.632});
  const std::vector<float> gamma = {2.0f, 1.0f, 0.5f, -1.0f}, beta = {0.1f, 0.2f, 0.3f, 0.4f};
  const rl::LayerNormSteps sp = rl::layernorm_steps(kX.data(), gamma.data(), beta.data(), 4, 1e-5f);
  std::vector<float> y(4);
  rl::layernorm_forward(y.data(), nullptr, nullptr, kX.data(), gamma.data(), beta.data(), 1, 4, 1e-5f);
  for (int i = 0; i < 4; ++i) CHECK(sp.output[i] == Approx(y[i]).epsilon(1e-6).margin(1e-7));
}

TEST_CASE("softcap: cap 30 at 10, 30, 60, 200 gives 9.6, 22.8, 28.9, 30.0; cap 50 at 100 gives 48.2", "[worked]") {
  const std::vector<float> x = {10.0f, 30.0f, 60.0f, 200.0f};
  std::vector<float> y(4);
  rl::softcap_forward(y.data(), x.data(), 4, 30.0f);
  const double want[4] = {9.6, 22.8, 28.9, 30.0};
  for (int i = 0; i < 4; ++i) {
    INFO("softcap_30(" << x[i] << ") = " << y[i]);
    CHECK(std::fabs(y[i] - want[i]) < 0.05);  // one decimal
    CHECK(y[i] <= 30.0f);                     // never above the cap
  }
  const float x100 = 100.0f;
  float y100 = 0.0f;
  rl::softcap_forward(&y100, &x100, 1, 50.0f);
  CHECK(std::fabs(y100 - 48.2) < 0.05);
}

TEST_CASE("Gemma offset: weights 0 with offset 1 equal weights 1 with offset 0", "[worked][gemma]") {
  const std::vector<float> zeros(4, 0.0f), ones(4, 1.0f);
  const std::vector<float> gemma = rmsnorm(kX, 1e-6f, zeros.data(), 1.0f);
  const std::vector<float> llama = rmsnorm(kX, 1e-6f, ones.data(), 0.0f);
  CHECK(gemma == llama);
  check_3_decimals(gemma, {1.069, -0.535, 1.604, 0.0});
  // the trap: Gemma weights read with the Llama convention multiply by w instead of 1 + w
  const std::vector<float> w = {0.5f, 0.5f, 0.5f, 0.5f};
  const std::vector<float> right = rmsnorm(kX, 1e-6f, w.data(), 1.0f), wrong = rmsnorm(kX, 1e-6f, w.data(), 0.0f);
  for (int i = 0; i < 3; ++i) CHECK(right[i] == Approx(3.0f * wrong[i]));
}

TEST_CASE("the validated API gives the worked numbers too", "[worked][api]") {
  std::vector<float> y(4);
  REQUIRE(rl::api::rmsnorm(y, kX, std::nullopt, 1e-5f).ok);
  check_3_decimals(y, {1.069, -0.535, 1.604, 0.0});
  REQUIRE(rl::api::layernorm(y, kX, std::nullopt, std::nullopt, 1e-5f).ok);
  check_3_decimals(y, {0.632, -1.265, 1.265, -0.632});
  rl::RmsNormSteps steps;
  REQUIRE(rl::api::rmsnorm_steps(steps, kX, std::nullopt, 0.0f).ok);
  CHECK(steps.mean_square == 3.5f);
}
