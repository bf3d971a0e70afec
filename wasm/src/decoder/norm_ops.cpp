// The configured norm kind, through its entry in norm_kinds.cpp, and the residual add.
#include <cstring>

#include "decoder/ops.hpp"
#include "decoder/norm_kinds.hpp"
#include "kernels/simd.hpp"

namespace rl::decoder {

void norm_forward(const Config& c, NormActs& out, const float* x, NormWeights w, int T) {
  if (!out.y) return;  // identity
  const NormKindSpec& kind = norm_spec(c.norm);
  if (kind.identity()) {
    std::memcpy(out.y, x, sizeof(float) * T * c.d_model);
    return;
  }
  kind.forward(out.y, out.stats, x, w, T, c.d_model, c.eps);
}

void norm_backward(const Config& c, float* dx, NormWeights dw, const float* dy, const float* x, const NormActs& saved,
                   NormWeights w, int T) {
  const int d = c.d_model;
  const NormKindSpec& kind = norm_spec(c.norm);
  if (!saved.y || kind.identity()) {  // identity: dx += dy
    for (int i = 0; i < T * d; ++i) dx[i] += dy[i];
    return;
  }
  kind.backward(dx, dw, dy, x, saved.stats, w, T, d);
}

void residual_forward(float* out, const float* x, const float* increment, float skip, int n) {
  using simd::load;
  const simd::f32x4 sv = simd::splat(skip);
  int i = 0;
  for (; i + 4 <= n; i += 4) simd::store(out + i, sv * load(x + i) + load(increment + i));
  for (; i < n; ++i) out[i] = skip * x[i] + increment[i];
}

}  // namespace rl::decoder
