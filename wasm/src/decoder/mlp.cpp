// The MLP sublayer, forward and backward:
//   gelu:   a = gelu(x Wup^T),                      out = a Wdown^T
//   swiglu: a = silu(x Wgate^T) * (x Wup^T),        out = a Wdown^T      (Llama: w1 = gate, w3 = up, w2 = down)
// The activations run four lanes at a time with kernels/vector_math.hpp's erf and exp (SwiGLU: kernels/gated.hpp).
#include <cstring>

#include "decoder/ops.hpp"
#include "kernels/gated.hpp"
#include "kernels/vector_math.hpp"
#include "kernels/linear.hpp"

namespace rl::decoder {
namespace {

using simd::f32x4;

// gelu(x) = x Phi(x),  Phi(x) = (1 + erf(x / sqrt 2)) / 2   (exact erf form, torch.nn.functional.gelu's default)
inline f32x4 normal_cdf(f32x4 x) { return 0.5f * (1.0f + vmath::erf(x * 0.70710678118654752f)); }
// phi(x) = exp(-x^2 / 2) / sqrt(2 pi)
inline f32x4 normal_pdf(f32x4 x) { return 0.39894228040143268f * vmath::exp(-0.5f * x * x); }

}  // namespace

void mlp_forward(const Config& c, MlpActs& a, float* out, const float* x, const LayerWeights& w, int T) {
  const int d = c.d_model, f = c.ffn_width(), n = T * f;
  // up projection
  linear_forward(a.up, x, w.up, nullptr, T, d, f);
  // activation
  if (c.mlp == MlpKind::gelu) {
    vmath::for_lanes<1, 1>(n, {a.up}, {a.act}, [](const f32x4* u, f32x4* act) { act[0] = u[0] * normal_cdf(u[0]); });
  } else {
    linear_forward(a.gate, x, w.gate, nullptr, T, d, f);
    glu_forward(a.act, a.gate, a.up, n, Gate::silu);
  }
  // down projection
  linear_forward(out, a.act, w.down, nullptr, T, f, d);
}

void mlp_backward(const Config& c, float* dx, LayerWeights& dw, const float* dout, const float* x, const MlpActs& a,
                  const LayerWeights& w, Scratch& s, int T) {
  const int d = c.d_model, f = c.ffn_width(), n = T * f;
  // down projection
  std::memset(s.d_act, 0, sizeof(float) * n);
  linear_backward(s.d_act, dw.down, nullptr, dout, a.act, w.down, T, f, d);
  // activation (d_up and d_gate are written, not accumulated: nothing else feeds them)
  if (c.mlp == MlpKind::gelu) {
    // gelu'(u) = Phi(u) + u phi(u)
    vmath::for_lanes<2, 1>(n, {s.d_act, a.up}, {s.d_up}, [](const f32x4* in, f32x4* d_up) {
      d_up[0] = in[0] * (normal_cdf(in[1]) + in[1] * normal_pdf(in[1]));
    });
  } else {
    glu_backward(s.d_gate, s.d_up, s.d_act, a.gate, a.up, n, Gate::silu);
    linear_backward(dx, dw.gate, nullptr, s.d_gate, x, w.gate, T, d, f);
  }
  // up projection: dx accumulates
  linear_backward(dx, dw.up, nullptr, s.d_up, x, w.up, T, d, f);
}

}  // namespace rl::decoder
