// Finite-difference gradient checks. For loss L = sum(dy * f(x, w)), central differences in double on the
// float64 reference give the true gradient to about 1e-9; both the float64 analytic backward and the float32
// kernels' backward must agree with them. Small d only: each check costs 2d reference evaluations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <functional>
#include <vector>

#include "kernels/activations.hpp"
#include "kernels/norms.hpp"
#include "reference/activations_reference.hpp"
#include "reference/norms_reference.hpp"
#include "test_util.hpp"

using Eigen::ArrayXd;
using rl::test::check_close;
using rl::test::numeric_gradient;
using rl::test::random_normal;
using rl::test::Rng;
using rl::test::to_double;

namespace {

constexpr double kRefAtol = 1e-7, kRefRtol = 1e-6;  // float64 analytic vs finite differences
constexpr double kF32Atol = 2e-5, kF32Rtol = 2e-5;  // float32 kernel vs finite differences

}  // namespace

TEST_CASE("RMSNorm gradients match finite differences", "[gradcheck][rmsnorm]") {
  const int d = GENERATE(1, 3, 4, 7, 33);
  const float eps = GENERATE(0.0f, 1e-5f, 1e-2f);
  const float offset = GENERATE(0.0f, 1.0f);
  CAPTURE(d, eps, offset);
  Rng rng(7000 + d);
  const std::vector<float> x = random_normal(rng, d, 0.2, 1.0), g = random_normal(rng, d, 0.5, 0.5),
                           dy = random_normal(rng, d);
  const ArrayXd xd = to_double(x), gd = to_double(g), dyd = to_double(dy);
  auto loss_x = [&](const ArrayXd& v) { return (dyd * rl::ref::rmsnorm_forward(v, gd, eps, offset)).sum(); };
  auto loss_g = [&](const ArrayXd& v) { return (dyd * rl::ref::rmsnorm_forward(xd, v, eps, offset)).sum(); };
  const ArrayXd fd_dx = numeric_gradient(loss_x, xd), fd_dg = numeric_gradient(loss_g, gd);

  const auto ref = rl::ref::rmsnorm_backward(dyd, xd, gd, eps, offset);
  check_close("reference dx", ref.dx, fd_dx, kRefAtol, kRefRtol);
  check_close("reference dg", ref.dg, fd_dg, kRefAtol, kRefRtol);

  std::vector<float> y(d), dx(d, 0.0f), dg(d, 0.0f);
  float rstd = 0;
  rl::rmsnorm_forward(y.data(), &rstd, x.data(), g.data(), 1, d, eps, offset);
  rl::rmsnorm_backward(dx.data(), dg.data(), dy.data(), x.data(), &rstd, g.data(), 1, d, offset);
  check_close("kernel dx", dx, fd_dx, kF32Atol, kF32Rtol);
  check_close("kernel dg", dg, fd_dg, kF32Atol, kF32Rtol);
}

TEST_CASE("LayerNorm gradients match finite differences", "[gradcheck][layernorm]") {
  const int d = GENERATE(1, 3, 4, 7, 33);
  const float eps = GENERATE(1e-5f, 1e-2f);
  CAPTURE(d, eps);
  Rng rng(8000 + d);
  const std::vector<float> x = random_normal(rng, d, 1.0, 2.0), gamma = random_normal(rng, d, 1.0, 0.5),
                           beta = random_normal(rng, d), dy = random_normal(rng, d);
  const ArrayXd xd = to_double(x), gd = to_double(gamma), bd = to_double(beta), dyd = to_double(dy);
  auto loss_x = [&](const ArrayXd& v) { return (dyd * rl::ref::layernorm_forward(v, gd, bd, eps)).sum(); };
  auto loss_gamma = [&](const ArrayXd& v) { return (dyd * rl::ref::layernorm_forward(xd, v, bd, eps)).sum(); };
  auto loss_beta = [&](const ArrayXd& v) { return (dyd * rl::ref::layernorm_forward(xd, gd, v, eps)).sum(); };
  const ArrayXd fd_dx = numeric_gradient(loss_x, xd), fd_dgamma = numeric_gradient(loss_gamma, gd),
                fd_dbeta = numeric_gradient(loss_beta, bd);

  const auto ref = rl::ref::layernorm_backward(dyd, xd, gd, eps);
  check_close("reference dx", ref.dx, fd_dx, kRefAtol, kRefRtol);
  check_close("reference dgamma", ref.dgamma, fd_dgamma, kRefAtol, kRefRtol);
  check_close("reference dbeta", ref.dbeta, fd_dbeta, kRefAtol, kRefRtol);

  std::vector<float> y(d), dx(d, 0.0f), dgamma(d, 0.0f), dbeta(d, 0.0f);
  float mean = 0, rstd = 0;
  rl::layernorm_forward(y.data(), &mean, &rstd, x.data(), gamma.data(), beta.data(), 1, d, eps);
  rl::layernorm_backward(dx.data(), dgamma.data(), dbeta.data(), dy.data(), x.data(), &mean, &rstd, gamma.data(), 1, d);
  // for d = 1 the output is beta whatever x is, and dx is 0 up to rounding scaled by rstd (up to 316 here)
  check_close("kernel dx", dx, fd_dx, kF32Atol * std::max(1.0f, rstd), kF32Rtol);
  check_close("kernel dgamma", dgamma, fd_dgamma, kF32Atol, kF32Rtol);
  check_close("kernel dbeta", dbeta, fd_dbeta, kF32Atol, kF32Rtol);
}

TEST_CASE("DyT gradients match finite differences", "[gradcheck][dyt]") {
  const int d = GENERATE(1, 3, 4, 7, 33);
  const double alpha = GENERATE(0.5, 1.7, -0.4);
  CAPTURE(d, alpha);
  Rng rng(8500 + d);
  const std::vector<float> x = random_normal(rng, d, 0.3, 1.5), gamma = random_normal(rng, d, 1.0, 0.5),
                           beta = random_normal(rng, d), dy = random_normal(rng, d);
  const ArrayXd xd = to_double(x), gd = to_double(gamma), bd = to_double(beta), dyd = to_double(dy);
  auto loss_x = [&](const ArrayXd& v) { return (dyd * rl::ref::dyt_forward(v, alpha, gd, bd)).sum(); };
  auto loss_alpha = [&](const ArrayXd& v) { return (dyd * rl::ref::dyt_forward(xd, v[0], gd, bd)).sum(); };
  auto loss_gamma = [&](const ArrayXd& v) { return (dyd * rl::ref::dyt_forward(xd, alpha, v, bd)).sum(); };
  auto loss_beta = [&](const ArrayXd& v) { return (dyd * rl::ref::dyt_forward(xd, alpha, gd, v)).sum(); };
  const ArrayXd fd_dx = numeric_gradient(loss_x, xd),
                fd_dalpha = numeric_gradient(loss_alpha, ArrayXd::Constant(1, alpha)),
                fd_dgamma = numeric_gradient(loss_gamma, gd), fd_dbeta = numeric_gradient(loss_beta, bd);

  const auto ref = rl::ref::dyt_backward(dyd, xd, alpha, gd);
  check_close("reference dx", ref.dx, fd_dx, kRefAtol, kRefRtol);
  check_close("reference dalpha", ArrayXd::Constant(1, ref.dalpha), fd_dalpha, kRefAtol, kRefRtol);
  check_close("reference dgamma", ref.dgamma, fd_dgamma, kRefAtol, kRefRtol);
  check_close("reference dbeta", ref.dbeta, fd_dbeta, kRefAtol, kRefRtol);

  std::vector<float> dx(d, 0.0f), dgamma(d, 0.0f), dbeta(d, 0.0f);
  float dalpha = 0.0f;
  rl::dyt_backward(dx.data(), &dalpha, dgamma.data(), dbeta.data(), dy.data(), x.data(), static_cast<float>(alpha),
                   gamma.data(), 1, d);
  // alpha itself is rounded to float32 in the kernel: 1e-8 relative, far inside these bounds
  check_close("kernel dx", dx, fd_dx, kF32Atol, kF32Rtol);
  check_close("kernel dalpha", std::vector<float>{dalpha}, fd_dalpha, kF32Atol, kF32Rtol);
  check_close("kernel dgamma", dgamma, fd_dgamma, kF32Atol, kF32Rtol);
  check_close("kernel dbeta", dbeta, fd_dbeta, kF32Atol, kF32Rtol);
}

TEST_CASE("softcap and softmax gradients match finite differences", "[gradcheck][activations]") {
  const int n = GENERATE(1, 3, 4, 7, 33);
  CAPTURE(n);
  Rng rng(9000 + n);
  const std::vector<float> x = random_normal(rng, n, 0.0, 20.0), dy = random_normal(rng, n);
  const ArrayXd xd = to_double(x), dyd = to_double(dy);
  const double cap = 30.0;

  auto loss_softcap = [&](const ArrayXd& v) { return (dyd * rl::ref::softcap_forward(v, cap)).sum(); };
  const ArrayXd fd_softcap = numeric_gradient(loss_softcap, xd);
  check_close("softcap reference dx", rl::ref::softcap_backward(dyd, xd, cap), fd_softcap, kRefAtol, kRefRtol);
  std::vector<float> dx(n, 0.0f);
  rl::softcap_backward(dx.data(), dy.data(), x.data(), n, static_cast<float>(cap));
  check_close("softcap kernel dx", dx, fd_softcap, kF32Atol, kF32Rtol);
  // the same derivative from the capped values alone
  check_close("softcap reference dx from the output",
              rl::ref::softcap_backward_from_output(dyd, rl::ref::softcap_forward(xd, cap), cap), fd_softcap, kRefAtol,
              kRefRtol);
  std::vector<float> y_capped(n), dx_out(n, 0.0f);
  rl::softcap_forward(y_capped.data(), x.data(), n, static_cast<float>(cap));
  rl::softcap_backward_from_output(dx_out.data(), dy.data(), y_capped.data(), n, static_cast<float>(cap));
  check_close("softcap kernel dx from the output", dx_out, fd_softcap, kF32Atol, kF32Rtol);

  const ArrayXd xs = xd / 10.0;  // logits of a few units
  const std::vector<float> xs_f(xs.begin(), xs.end());
  auto loss_softmax = [&](const ArrayXd& v) { return (dyd * rl::ref::softmax_forward(v)).sum(); };
  const ArrayXd fd_softmax = numeric_gradient(loss_softmax, xs);
  check_close("softmax reference dx", rl::ref::softmax_backward(dyd, rl::ref::softmax_forward(xs)), fd_softmax,
              kRefAtol, kRefRtol);
  std::vector<float> y(n), dxs(n, 0.0f);
  rl::softmax_forward(y.data(), xs_f.data(), 1, n);
  rl::softmax_backward(dxs.data(), dy.data(), y.data(), 1, n);
  check_close("softmax kernel dx", dxs, fd_softmax, kF32Atol, kF32Rtol);
}
