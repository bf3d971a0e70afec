#include "kernels/gated.hpp"

#include "kernels/vector_math.hpp"

namespace rl {
namespace {

using simd::f32x4;

// sigma(x) = 1 / (1 + exp(-x))
inline f32x4 sigmoid(f32x4 x) { return 1.0f / (1.0f + vmath::exp(-x)); }
// tanh(z) = 2 sigma(2z) - 1
inline f32x4 tanh_of(f32x4 z) { return 2.0f * sigmoid(2.0f * z) - 1.0f; }
constexpr float kC = 0.7978845608028654f, kCubic = 0.044715f;  // sqrt(2 / pi), GELU's tanh fit

}  // namespace

void glu_forward(float* act, const float* gate, const float* up, int n, Gate kind) {
  if (kind == Gate::silu) {
    // silu(g) * u = g sigma(g) u
    vmath::for_lanes<2, 1>(n, {gate, up}, {act},
                           [](const f32x4* in, f32x4* a) { a[0] = in[0] * sigmoid(in[0]) * in[1]; });
  } else {
    vmath::for_lanes<2, 1>(n, {gate, up}, {act}, [](const f32x4* in, f32x4* a) {
      const f32x4 g = in[0];
      a[0] = 0.5f * g * (1.0f + tanh_of(kC * (g + kCubic * g * g * g))) * in[1];
    });
  }
}

void glu_backward(float* d_gate, float* d_up, const float* d_act, const float* gate, const float* up, int n,
                  Gate kind) {
  if (kind == Gate::silu) {
    // d/du = d_act silu(g);  d/dg = d_act u silu'(g),  silu'(g) = sigma(g) (1 + g (1 - sigma(g)))
    vmath::for_lanes<3, 2>(n, {d_act, gate, up}, {d_up, d_gate}, [](const f32x4* in, f32x4* grads) {
      const f32x4 sig = sigmoid(in[1]);
      grads[0] = in[0] * in[1] * sig;                                  // term through up
      grads[1] = in[0] * in[2] * sig * (1.0f + in[1] * (1.0f - sig));  // term through gate
    });
  } else {
    // gelu_tanh'(g) = (1 + th) / 2 + g (1 - th^2) c (1 + 3 * 0.044715 g^2) / 2,  th = tanh(c (g + 0.044715 g^3))
    vmath::for_lanes<3, 2>(n, {d_act, gate, up}, {d_up, d_gate}, [](const f32x4* in, f32x4* grads) {
      const f32x4 g = in[1];
      const f32x4 th = tanh_of(kC * (g + kCubic * g * g * g));
      const f32x4 slope = 0.5f * (1.0f + th) + 0.5f * g * (1.0f - th * th) * kC * (1.0f + 3.0f * kCubic * g * g);
      grads[0] = in[0] * 0.5f * g * (1.0f + th);  // term through up
      grads[1] = in[0] * in[2] * slope;           // term through gate
    });
  }
}

}  // namespace rl
