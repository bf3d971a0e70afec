// Multi-head causal self-attention of the toy, forward and backward; the heads run in kernels/attention.hpp. Per
// head h (columns h*dh .. h*dh+dh-1 of [T, d]):
//   q, k, v = x Wq^T, x Wk^T, x Wv^T              (QK-Norm: q, k <- RMSNorm over each head's dh values, or over
//                                                  the whole projection's d values; then RoPE, if on)
//   s[t, j] = q_t . k_j / sqrt(dh)                (saved as scores: the logit before any soft-cap)
//   c[t, j] = cap * tanh(s[t, j] / cap)           (attention soft-cap, if on; else c = s)
//   p[t, :] = softmax(c[t, 0..t])                 (causal: keys j <= t only; p[t, j > t] = 0)
//   y_t     = sum_j p[t, j] v_j;   out = y Wo^T
#include <cmath>
#include <cstring>
#include <vector>

#include "decoder/ops.hpp"
#include "kernels/attention.hpp"
#include "kernels/linear.hpp"
#include "kernels/norms.hpp"

namespace rl::decoder {
namespace {

// QK-Norm's rows: one per (position, head) of dh values, or one per position of d values.
int qk_norm_rows(const Config& c, int T) { return c.qk_norm_shape == QkNormShape::projection ? T : T * c.n_heads; }
int qk_norm_width(const Config& c) { return c.qk_norm_shape == QkNormShape::projection ? c.d_model : c.d_head(); }

// The toy's heads: as many key/value heads as query heads, every earlier key, scale 1 / sqrt(dh).
AttentionShape shape_of(const Config& c, int T) {
  const int d = c.d_model, dh = c.d_head();
  return {T, c.n_heads, c.n_heads, dh, d, d, 1.0f / std::sqrt(static_cast<float>(dh)), c.attn_softcap, 0};
}

}  // namespace

void attention_forward(const Config& c, AttentionActs& a, float* out, const float* x, const LayerWeights& w, int T) {
  const int d = c.d_model, H = c.n_heads, dh = c.d_head();
  // projections
  linear_forward(a.q, x, w.q, nullptr, T, d, d);
  linear_forward(a.k, x, w.k, nullptr, T, d, d);
  linear_forward(a.v, x, w.v, nullptr, T, d, d);
  // QK-Norm: [T, d] is [T * H, dh] row-major, one row per (position, head); or [T, d], one row per position
  if (c.qk_norm) {
    const int rows = qk_norm_rows(c, T), width = qk_norm_width(c);
    rmsnorm_forward(a.qn, a.q_rstd, a.q, w.q_norm, rows, width, c.eps, 0.0f);
    rmsnorm_forward(a.kn, a.k_rstd, a.k, w.k_norm, rows, width, c.eps, 0.0f);
  }
  if (c.rope) {
    const std::vector<float> inv_freq = rope_inverse_frequencies(dh, c.rope_theta);
    rope_rotate(a.qr, a.qn, T, H, dh, inv_freq.data(), /*inverse=*/false);
    rope_rotate(a.kr, a.kn, T, H, dh, inv_freq.data(), /*inverse=*/false);
  }
  // the heads (kernels/attention.hpp)
  rl::attention_forward(a.att_y, a.scores, a.probs, a.qr, a.kr, a.v, shape_of(c, T));
  // output projection
  linear_forward(out, a.att_y, w.o, nullptr, T, d, d);
}

void attention_backward(const Config& c, float* dx, LayerWeights& dw, const float* dout, const float* x,
                        const AttentionActs& a, const LayerWeights& w, Scratch& s, int T) {
  const int d = c.d_model, H = c.n_heads, dh = c.d_head();
  const std::size_t Td = static_cast<std::size_t>(T) * d;
  // output projection
  std::memset(s.d_att_y, 0, sizeof(float) * Td);
  linear_backward(s.d_att_y, dw.o, nullptr, dout, a.att_y, w.o, T, d, d);
  std::memset(s.dqn, 0, sizeof(float) * Td);
  std::memset(s.dkn, 0, sizeof(float) * Td);
  std::memset(s.dv, 0, sizeof(float) * Td);
  // the heads (kernels/attention.hpp)
  rl::attention_backward(s.dqn, s.dkn, s.dv, s.d_probs, s.d_scores, s.d_raw, s.d_att_y, a.qr, a.kr, a.v, a.scores,
                         a.probs, shape_of(c, T));
  // RoPE: the gradients above are with respect to the rotated q and k; the rotation's transpose is its inverse
  if (c.rope) {
    const std::vector<float> inv_freq = rope_inverse_frequencies(dh, c.rope_theta);
    rope_rotate(s.dqn, s.dqn, T, H, dh, inv_freq.data(), /*inverse=*/true);
    rope_rotate(s.dkn, s.dkn, T, H, dh, inv_freq.data(), /*inverse=*/true);
  }
  // QK-Norm
  if (c.qk_norm) {
    const int rows = qk_norm_rows(c, T), width = qk_norm_width(c);
    std::memset(s.dq, 0, sizeof(float) * Td);
    std::memset(s.dk, 0, sizeof(float) * Td);
    rmsnorm_backward(s.dq, dw.q_norm, s.dqn, a.q, a.q_rstd, w.q_norm, rows, width, 0.0f);
    rmsnorm_backward(s.dk, dw.k_norm, s.dkn, a.k, a.k_rstd, w.k_norm, rows, width, 0.0f);
  }
  // projections: dx accumulates from q, k and v
  linear_backward(dx, dw.q, nullptr, s.dq, x, w.q, T, d, d);
  linear_backward(dx, dw.k, nullptr, s.dk, x, w.k, T, d, d);
  linear_backward(dx, dw.v, nullptr, s.dv, x, w.v, T, d, d);
}

}  // namespace rl::decoder
