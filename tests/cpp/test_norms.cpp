// RMSNorm and LayerNorm kernels, forward and backward, against the float64 reference (reference/), over sizes
// that hit every SIMD path: 1, 3 (scalar tail only), 4, 7, 33 (16-wide blocks + tails), 4096, 5003.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "kernels/norms.hpp"
#include "reference/norms_reference.hpp"
#include "test_util.hpp"

using rl::test::check_close;
using rl::test::random_normal;
using rl::test::Rng;
using rl::test::to_double;

namespace {
// float32 against float64: a few float32 ulps per element plus the error of a float32 sum of d terms
// (worst seen: about 1.3e-6 natively, so these leave a margin of 4x or more; a real bug is off by 1e-3 or more).
constexpr double kAtol = 5e-6, kRtol = 5e-6;
constexpr double kGradAtol = 1e-5, kGradRtol = 1e-5;
// dx = rstd * (...): its rounding error grows with rstd (1000 for d = 1 and eps = 1e-6, where dx cancels to 0).
double grad_atol(float rstd) { return kGradAtol * std::max(1.0, static_cast<double>(rstd)); }
}  // namespace

TEST_CASE("rmsnorm_forward matches float64 reference", "[norms][rmsnorm]") {
  const int d = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  const float eps = GENERATE(0.0f, 1e-6f, 1e-5f, 1e-2f);
  const float offset = GENERATE(0.0f, 1.0f);
  const bool with_g = GENERATE(true, false);
  CAPTURE(d, eps, offset, with_g);
  Rng rng(1000 + d);
  const int rows = 3;
  const std::vector<float> x = random_normal(rng, std::size_t(rows) * d, 0.5, 2.0);
  const std::vector<float> g = random_normal(rng, d, offset == 0.0f ? 1.0 : 0.0, 0.3);
  std::vector<float> y(x.size()), rstd(rows);
  rl::rmsnorm_forward(y.data(), rstd.data(), x.data(), with_g ? g.data() : nullptr, rows, d, eps, offset);
  const Eigen::ArrayXd gd = with_g ? to_double(g) : rl::test::ones(d);
  for (int r = 0; r < rows; ++r) {
    const Eigen::ArrayXd xr = to_double(x.data() + r * d, d);
    check_close("y row " + std::to_string(r), y.data() + r * d, rl::ref::rmsnorm_forward(xr, gd, eps, offset), kAtol,
                kRtol);
    const double want_rstd = 1.0 / std::sqrt(xr.square().mean() + eps);
    CHECK(rstd[r] == Approx(want_rstd).epsilon(1e-5));
  }
}

TEST_CASE("rmsnorm_backward matches float64 reference and accumulates", "[norms][rmsnorm]") {
  const int d = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  const float eps = GENERATE(0.0f, 1e-6f, 1e-5f, 1e-2f);
  const float offset = GENERATE(0.0f, 1.0f);
  const bool with_g = GENERATE(true, false);
  CAPTURE(d, eps, offset, with_g);
  Rng rng(2000 + d);
  const int rows = 3;
  const std::vector<float> x = random_normal(rng, std::size_t(rows) * d, -0.3, 1.5);
  const std::vector<float> dy = random_normal(rng, x.size());
  const std::vector<float> g = random_normal(rng, d, offset == 0.0f ? 1.0 : 0.0, 0.3);
  const float* gp = with_g ? g.data() : nullptr;
  std::vector<float> y(x.size()), rstd(rows);
  rl::rmsnorm_forward(y.data(), rstd.data(), x.data(), gp, rows, d, eps, offset);
  // start from non-zero gradients: the kernel must add to them
  const std::vector<float> dx0 = random_normal(rng, x.size()), dg0 = random_normal(rng, d);
  std::vector<float> dx = dx0, dg = dg0;
  rl::rmsnorm_backward(dx.data(), dg.data(), dy.data(), x.data(), rstd.data(), gp, rows, d, offset);
  const Eigen::ArrayXd gd = with_g ? to_double(g) : rl::test::ones(d);
  Eigen::ArrayXd want_dg = to_double(dg0);
  for (int r = 0; r < rows; ++r) {
    const auto grads =
        rl::ref::rmsnorm_backward(to_double(dy.data() + r * d, d), to_double(x.data() + r * d, d), gd, eps, offset);
    check_close("dx row " + std::to_string(r), dx.data() + r * d, to_double(dx0.data() + r * d, d) + grads.dx,
                grad_atol(rstd[r]), kGradRtol);
    want_dg += grads.dg;
  }
  check_close("dg (summed over rows)", dg, want_dg, kGradAtol, kGradRtol);
  // dg may be nullptr: dx must come out the same
  std::vector<float> dx_only = dx0;
  rl::rmsnorm_backward(dx_only.data(), nullptr, dy.data(), x.data(), rstd.data(), gp, rows, d, offset);
  CHECK(dx_only == dx);
}

TEST_CASE("layernorm_forward matches float64 reference", "[norms][layernorm]") {
  const int d = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  const float eps = GENERATE(0.0f, 1e-6f, 1e-5f, 1e-2f);
  const bool with_params = GENERATE(true, false);
  if (d == 1 && eps == 0.0f) return;  // variance 0 and eps 0: 0/0, undefined in every implementation
  CAPTURE(d, eps, with_params);
  Rng rng(3000 + d);
  const int rows = 3;
  const std::vector<float> x = random_normal(rng, std::size_t(rows) * d, 3.0, 2.0);
  const std::vector<float> gamma = random_normal(rng, d, 1.0, 0.3), beta = random_normal(rng, d, 0.0, 0.5);
  std::vector<float> y(x.size()), mean(rows), rstd(rows);
  rl::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), with_params ? gamma.data() : nullptr,
                        with_params ? beta.data() : nullptr, rows, d, eps);
  const Eigen::ArrayXd gd = with_params ? to_double(gamma) : rl::test::ones(d);
  const Eigen::ArrayXd bd = with_params ? to_double(beta) : rl::test::zeros(d);
  for (int r = 0; r < rows; ++r) {
    const Eigen::ArrayXd xr = to_double(x.data() + r * d, d);
    check_close("y row " + std::to_string(r), y.data() + r * d, rl::ref::layernorm_forward(xr, gd, bd, eps), kAtol,
                kRtol);
    CHECK(mean[r] == Approx(xr.mean()).epsilon(1e-5).margin(1e-6));
    CHECK(rstd[r] == Approx(1.0 / std::sqrt((xr - xr.mean()).square().mean() + eps)).epsilon(1e-5));
  }
}

TEST_CASE("layernorm_backward matches float64 reference and accumulates", "[norms][layernorm]") {
  const int d = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  const float eps = GENERATE(0.0f, 1e-6f, 1e-5f, 1e-2f);
  const bool with_gamma = GENERATE(true, false);
  if (d == 1 && eps == 0.0f) return;
  CAPTURE(d, eps, with_gamma);
  Rng rng(4000 + d);
  const int rows = 3;
  const std::vector<float> x = random_normal(rng, std::size_t(rows) * d, -1.0, 0.7);
  const std::vector<float> dy = random_normal(rng, x.size());
  const std::vector<float> gamma = random_normal(rng, d, 1.0, 0.3);
  const float* gp = with_gamma ? gamma.data() : nullptr;
  std::vector<float> y(x.size()), mean(rows), rstd(rows);
  rl::layernorm_forward(y.data(), mean.data(), rstd.data(), x.data(), gp, nullptr, rows, d, eps);
  const std::vector<float> dx0 = random_normal(rng, x.size()), dgamma0 = random_normal(rng, d),
                           dbeta0 = random_normal(rng, d);
  std::vector<float> dx = dx0, dgamma = dgamma0, dbeta = dbeta0;
  rl::layernorm_backward(dx.data(), dgamma.data(), dbeta.data(), dy.data(), x.data(), mean.data(), rstd.data(), gp,
                         rows, d);
  const Eigen::ArrayXd gd = with_gamma ? to_double(gamma) : rl::test::ones(d);
  Eigen::ArrayXd want_dgamma = to_double(dgamma0), want_dbeta = to_double(dbeta0);
  for (int r = 0; r < rows; ++r) {
    const auto grads =
        rl::ref::layernorm_backward(to_double(dy.data() + r * d, d), to_double(x.data() + r * d, d), gd, eps);
    check_close("dx row " + std::to_string(r), dx.data() + r * d, to_double(dx0.data() + r * d, d) + grads.dx,
                grad_atol(rstd[r]), kGradRtol);
    want_dgamma += grads.dgamma;
    want_dbeta += grads.dbeta;
  }
  check_close("dgamma (summed over rows)", dgamma, want_dgamma, kGradAtol, kGradRtol);
  check_close("dbeta (summed over rows)", dbeta, want_dbeta, kGradAtol, kGradRtol);
  std::vector<float> dx_only = dx0;
  rl::layernorm_backward(dx_only.data(), nullptr, nullptr, dy.data(), x.data(), mean.data(), rstd.data(), gp, rows, d);
  CHECK(dx_only == dx);
}

TEST_CASE("dyt_forward matches float64 reference", "[norms][dyt]") {
  const int d = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  const float alpha = GENERATE(0.5f, 2.0f, -0.3f);
  const bool with_params = GENERATE(true, false);
  CAPTURE(d, alpha, with_params);
  Rng rng(5000 + d);
  const int rows = 3;
  const std::vector<float> x = random_normal(rng, std::size_t(rows) * d, 0.5, 2.0);
  const std::vector<float> gamma = random_normal(rng, d, 1.0, 0.3), beta = random_normal(rng, d, 0.0, 0.5);
  std::vector<float> y(x.size());
  rl::dyt_forward(y.data(), x.data(), alpha, with_params ? gamma.data() : nullptr, with_params ? beta.data() : nullptr,
                  rows, d);
  const Eigen::ArrayXd gd = with_params ? to_double(gamma) : rl::test::ones(d);
  const Eigen::ArrayXd bd = with_params ? to_double(beta) : rl::test::zeros(d);
  for (int r = 0; r < rows; ++r) {
    check_close("y row " + std::to_string(r), y.data() + r * d,
                rl::ref::dyt_forward(to_double(x.data() + r * d, d), alpha, gd, bd), kAtol, kRtol);
  }
}

TEST_CASE("dyt_backward matches float64 reference and accumulates", "[norms][dyt]") {
  const int d = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  const float alpha = GENERATE(0.5f, 2.0f, -0.3f);
  const bool with_gamma = GENERATE(true, false);
  CAPTURE(d, alpha, with_gamma);
  Rng rng(6000 + d);
  const int rows = 3;
  const std::vector<float> x = random_normal(rng, std::size_t(rows) * d, -0.3, 1.5);
  const std::vector<float> dy = random_normal(rng, x.size());
  const std::vector<float> gamma = random_normal(rng, d, 1.0, 0.3);
  const float* gp = with_gamma ? gamma.data() : nullptr;
  // start from non-zero gradients: the kernel must add to them
  const std::vector<float> dx0 = random_normal(rng, x.size()), dgamma0 = random_normal(rng, d),
                           dbeta0 = random_normal(rng, d);
  const float dalpha0 = 0.75f;
  std::vector<float> dx = dx0, dgamma = dgamma0, dbeta = dbeta0;
  float dalpha = dalpha0;
  rl::dyt_backward(dx.data(), &dalpha, dgamma.data(), dbeta.data(), dy.data(), x.data(), alpha, gp, rows, d);
  const Eigen::ArrayXd gd = with_gamma ? to_double(gamma) : rl::test::ones(d);
  Eigen::ArrayXd want_dgamma = to_double(dgamma0), want_dbeta = to_double(dbeta0);
  double want_dalpha = dalpha0, dalpha_scale = 0.0;
  for (int r = 0; r < rows; ++r) {
    const Eigen::ArrayXd xr = to_double(x.data() + r * d, d), dyr = to_double(dy.data() + r * d, d);
    const auto grads = rl::ref::dyt_backward(dyr, xr, alpha, gd);
    check_close("dx row " + std::to_string(r), dx.data() + r * d, to_double(dx0.data() + r * d, d) + grads.dx,
                kGradAtol, kGradRtol);
    want_dgamma += grads.dgamma;
    want_dbeta += grads.dbeta;
    want_dalpha += grads.dalpha;
    dalpha_scale += (dyr * gd * xr).abs().sum();
  }
  check_close("dgamma (summed over rows)", dgamma, want_dgamma, kGradAtol, kGradRtol);
  check_close("dbeta (summed over rows)", dbeta, want_dbeta, kGradAtol, kGradRtol);
  // dalpha sums rows * d terms: a float32 rounding of each term, relative to the sum of their sizes
  CHECK(std::fabs(dalpha - want_dalpha) <= kGradAtol + 1e-6 * dalpha_scale);
  // the parameter gradients may be nullptr: dx must come out the same
  std::vector<float> dx_only = dx0;
  rl::dyt_backward(dx_only.data(), nullptr, nullptr, nullptr, dy.data(), x.data(), alpha, gp, rows, d);
  CHECK(dx_only == dx);
}
