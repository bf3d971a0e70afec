// The configured norm kind, dispatched to the kernels of kernels/norms.hpp, and the residual add.
#include <cstring>

#include "decoder/ops.hpp"
#include "kernels/norms.hpp"
#include "kernels/simd.hpp"

namespace rl::decoder {

void norm_forward(const Config& c, NormActs& out, const float* x, NormWeights w, int T) {
  if (!out.y) return;  // identity
  const int d = c.d_model;
  switch (c.norm) {
    case NormKind::layernorm: layernorm_forward(out.y, out.mean, out.rstd, x, w.weight, w.bias, T, d, c.eps); break;
    case NormKind::rmsnorm: rmsnorm_forward(out.y, out.rstd, x, w.weight, T, d, c.eps, 0.0f); break;
    case NormKind::rmsnorm_gemma: rmsnorm_forward(out.y, out.rstd, x, w.weight, T, d, c.eps, 1.0f); break;
    case NormKind::none: std::memcpy(out.y, x, sizeof(float) * T * d); break;
  }
}

void norm_backward(const Config& c, float* dx, NormWeights dw, const float* dy, const float* x, const NormActs& saved,
                   NormWeights w, int T) {
  const int d = c.d_model;
  if (!saved.y) {  // identity: dx += dy
    for (int i = 0; i < T * d; ++i) dx[i] += dy[i];
    return;
  }
  switch (c.norm) {
    case NormKind::layernorm:
      layernorm_backward(dx, dw.weight, dw.bias, dy, x, saved.mean, saved.rstd, w.weight, T, d);
      break;
    case NormKind::rmsnorm: rmsnorm_backward(dx, dw.weight, dy, x, saved.rstd, w.weight, T, d, 0.0f); break;
    case NormKind::rmsnorm_gemma: rmsnorm_backward(dx, dw.weight, dy, x, saved.rstd, w.weight, T, d, 1.0f); break;
    case NormKind::none:
      for (int i = 0; i < T * d; ++i) dx[i] += dy[i];
      break;
  }
}

void residual_forward(float* out, const float* x, const float* increment, float skip, int n) {
  using simd::load;
  const simd::f32x4 sv = simd::splat(skip);
  int i = 0;
  for (; i + 4 <= n; i += 4) simd::store(out + i, sv * load(x + i) + load(increment + i));
  for (; i < n; ++i) out[i] = skip * x[i] + increment[i];
}

}  // namespace rl::decoder
