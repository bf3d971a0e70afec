#include "kernels/activations.hpp"

#include <cmath>
#include <cstddef>

#include "kernels/reductions.hpp"

namespace rl {

void softcap_forward(float* y, const float* x, int n, float cap) {
  const float inv_cap = 1.0f / cap;
  for (int i = 0; i < n; ++i) y[i] = cap * std::tanh(x[i] * inv_cap);
}

void softcap_backward(float* dx, const float* dy, const float* x, int n, float cap) {
  const float inv_cap = 1.0f / cap;
  for (int i = 0; i < n; ++i) {
    const float t = std::tanh(x[i] * inv_cap);
    dx[i] += dy[i] * (1.0f - t * t);
  }
}

void softcap_backward_from_output(float* dx, const float* dy, const float* y, int n, float cap) {
  const float inv_cap = 1.0f / cap;
  for (int i = 0; i < n; ++i) {
    const float t = y[i] * inv_cap;
    dx[i] += dy[i] * (1.0f - t * t);
  }
}

void softmax_forward(float* y, const float* x, int rows, int n) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + static_cast<std::size_t>(r) * n;
    float* yr = y + static_cast<std::size_t>(r) * n;
    // row max
    float max_x = xr[0];
    for (int j = 1; j < n; ++j) max_x = std::fmax(max_x, xr[j]);
    // exponentiate, then sum with 16 partial sums (a single running float sum loses digits at large n)
    for (int j = 0; j < n; ++j) yr[j] = std::exp(xr[j] - max_x);
    const float inv_sum = 1.0f / simd::sum(yr, n);
    // normalize
    for (int j = 0; j < n; ++j) yr[j] *= inv_sum;
  }
}

void softmax_backward(float* dx, const float* dy, const float* y, int rows, int n) {
  for (int r = 0; r < rows; ++r) {
    const std::size_t off = static_cast<std::size_t>(r) * n;
    const float dy_dot_y = simd::dot(dy + off, y + off, n);
    for (int j = 0; j < n; ++j) dx[off + j] += y[off + j] * (dy[off + j] - dy_dot_y);
  }
}

}  // namespace rl
