// Float64 references for kernels/norms.hpp, one row at a time, written as the formulas read (Eigen arrays).
// Tests hold the float32 kernels to these; nothing here is tuned for speed. Header-only.
// Unlike the kernels, these backwards RETURN fresh gradients (they are references, not layers).
#pragma once
#include <cmath>

#include "reference/eigen.hpp"

namespace rl::ref {

// y = x / sqrt(mean(x^2) + eps) * (weight_offset + g)
inline Vec rmsnorm_forward(const Vec& x, const Vec& g, double eps, double weight_offset) {
  const double rstd = 1.0 / std::sqrt(x.square().mean() + eps);
  return x * rstd * (weight_offset + g);
}

struct RmsNormGrads {
  Vec dx, dg;
};
// dx_i = rstd * w_i * dy_i - rstd^3 / d * x_i * sum_j(w_j dy_j x_j),  dg_i = dy_i * x_i * rstd
inline RmsNormGrads rmsnorm_backward(const Vec& dy, const Vec& x, const Vec& g, double eps, double weight_offset) {
  const double d = static_cast<double>(x.size());
  const double rstd = 1.0 / std::sqrt(x.square().mean() + eps);
  const Vec w = weight_offset + g;
  const double wdy_dot_x = (w * dy * x).sum();
  return {rstd * w * dy - rstd * rstd * rstd / d * x * wdy_dot_x, dy * x * rstd};
}

// y = (x - mean) / sqrt(var + eps) * gamma + beta, var biased
inline Vec layernorm_forward(const Vec& x, const Vec& gamma, const Vec& beta, double eps) {
  const Vec centered = x - x.mean();
  const double rstd = 1.0 / std::sqrt(centered.square().mean() + eps);
  return centered * rstd * gamma + beta;
}

struct LayerNormGrads {
  Vec dx, dgamma, dbeta;
};
// dx = rstd * (dn - mean(dn) - n * mean(dn * n)), dn = gamma * dy, n = (x - mean) * rstd
inline LayerNormGrads layernorm_backward(const Vec& dy, const Vec& x, const Vec& gamma, double eps) {
  const Vec centered = x - x.mean();
  const double rstd = 1.0 / std::sqrt(centered.square().mean() + eps);
  const Vec n = centered * rstd;
  const Vec dn = gamma * dy;
  return {rstd * (dn - dn.mean() - n * (dn * n).mean()), n * dy, dy};
}

// y = gamma * tanh(alpha * x) + beta
inline Vec dyt_forward(const Vec& x, double alpha, const Vec& gamma, const Vec& beta) {
  return gamma * (alpha * x).tanh() + beta;
}

struct DytGrads {
  Vec dx;
  double dalpha;
  Vec dgamma, dbeta;
};
// t = tanh(alpha * x): dx = dy * gamma * (1 - t^2) * alpha, dalpha = sum(dy * gamma * (1 - t^2) * x),
// dgamma = dy * t, dbeta = dy
inline DytGrads dyt_backward(const Vec& dy, const Vec& x, double alpha, const Vec& gamma) {
  const Vec t = (alpha * x).tanh();
  const Vec dz = dy * gamma * (1.0 - t.square());
  return {dz * alpha, (dz * x).sum(), dy * t, dy};
}

}  // namespace rl::ref
