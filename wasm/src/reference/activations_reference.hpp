// Float64 references for kernels/activations.hpp, one row, written as the formulas read (Eigen arrays).
// Header-only; the backwards return fresh gradients.
#pragma once
#include "reference/eigen.hpp"

namespace rl::ref {

// y = cap * tanh(x / cap)
inline Vec softcap_forward(const Vec& x, double cap) { return cap * (x / cap).tanh(); }
// dx = dy * (1 - tanh^2(x / cap))
inline Vec softcap_backward(const Vec& dy, const Vec& x, double cap) { return dy * (1.0 - (x / cap).tanh().square()); }
// dx = dy * (1 - (y / cap)^2), from the capped values y
inline Vec softcap_backward_from_output(const Vec& dy, const Vec& y, double cap) {
  return dy * (1.0 - (y / cap).square());
}

// y = exp(x - max) / sum exp(x - max)
inline Vec softmax_forward(const Vec& x) {
  const Vec e = (x - x.maxCoeff()).exp();
  return e / e.sum();
}
// dx = y * (dy - sum(dy * y))
inline Vec softmax_backward(const Vec& dy, const Vec& y) { return y * (dy - (dy * y).sum()); }

}  // namespace rl::ref
