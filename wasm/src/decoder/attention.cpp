// Multi-head causal self-attention, forward and backward. Per head h (columns h*dh .. h*dh+dh-1 of [T, d]):
//   q, k, v = x Wq^T, x Wk^T, x Wv^T              (QK-Norm: q, k <- RMSNorm over each head's dh values)
//   s[t, j] = q_t . k_j / sqrt(dh)                (saved as scores: the logit before any soft-cap)
//   c[t, j] = cap * tanh(s[t, j] / cap)           (attention soft-cap, if on; else c = s)
//   p[t, :] = softmax(c[t, 0..t])                 (causal: keys j <= t only; p[t, j > t] = 0)
//   y_t     = sum_j p[t, j] v_j;   out = y Wo^T
#include <cmath>
#include <cstring>

#include "decoder/ops.hpp"
#include "kernels/activations.hpp"
#include "kernels/matmul.hpp"
#include "kernels/norms.hpp"
#include "kernels/reductions.hpp"

namespace rl::decoder {
namespace {

// y[i] += a * x[i]
inline void axpy(float* y, float a, const float* x, int n) {
  for (int i = 0; i < n; ++i) y[i] += a * x[i];
}

}  // namespace

void attention_forward(const Config& c, AttentionActs& a, float* out, const float* x, const LayerWeights& w, int T) {
  const int d = c.d_model, H = c.n_heads, dh = c.d_head();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  // projections
  matmul_forward(a.q, x, w.q, T, d, d);
  matmul_forward(a.k, x, w.k, T, d, d);
  matmul_forward(a.v, x, w.v, T, d, d);
  // QK-Norm: [T, d] is [T * H, dh] row-major, one row per (position, head)
  if (c.qk_norm) {
    rmsnorm_forward(a.qn, a.q_rstd, a.q, w.q_norm, T * H, dh, c.eps, 0.0f);
    rmsnorm_forward(a.kn, a.k_rstd, a.k, w.k_norm, T * H, dh, c.eps, 0.0f);
  }
  std::memset(a.att_y, 0, sizeof(float) * T * d);
  for (int h = 0; h < H; ++h) {
    for (int t = 0; t < T; ++t) {
      float* s_row = a.scores + (static_cast<long>(h) * T + t) * T;
      float* p_row = a.probs + (static_cast<long>(h) * T + t) * T;
      const float* q_t = a.qn + t * d + h * dh;
      // scaled scores over the causal keys
      for (int j = 0; j <= t; ++j) s_row[j] = simd::dot(q_t, a.kn + j * d + h * dh, dh) * scale;
      // soft-cap, then softmax over keys 0..t
      if (c.attn_softcap > 0) {
        softcap_forward(p_row, s_row, t + 1, c.attn_softcap);
        softmax_forward(p_row, p_row, 1, t + 1);
      } else {
        softmax_forward(p_row, s_row, 1, t + 1);
      }
      for (int j = t + 1; j < T; ++j) s_row[j] = 0.0f, p_row[j] = 0.0f;
      // weighted sum of values
      float* y_t = a.att_y + t * d + h * dh;
      for (int j = 0; j <= t; ++j) axpy(y_t, p_row[j], a.v + j * d + h * dh, dh);
    }
  }
  // output projection
  matmul_forward(out, a.att_y, w.o, T, d, d);
}

void attention_backward(const Config& c, float* dx, LayerWeights& dw, const float* dout, const float* x,
                        const AttentionActs& a, const LayerWeights& w, Scratch& s, int T) {
  const int d = c.d_model, H = c.n_heads, dh = c.d_head();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  const std::size_t Td = static_cast<std::size_t>(T) * d;
  // output projection
  std::memset(s.d_att_y, 0, sizeof(float) * Td);
  matmul_backward(s.d_att_y, dw.o, dout, a.att_y, w.o, T, d, d);
  std::memset(s.dqn, 0, sizeof(float) * Td);
  std::memset(s.dkn, 0, sizeof(float) * Td);
  std::memset(s.dv, 0, sizeof(float) * Td);
  for (int h = 0; h < H; ++h) {
    for (int t = 0; t < T; ++t) {
      const int n = t + 1;
      const float* p_row = a.probs + (static_cast<long>(h) * T + t) * T;
      const float* s_row = a.scores + (static_cast<long>(h) * T + t) * T;
      const float* dy_t = s.d_att_y + t * d + h * dh;
      // weighted sum: dp[j] = dy_t . v_j,  dv_j += p[j] dy_t
      for (int j = 0; j < n; ++j) {
        s.d_probs[j] = simd::dot(dy_t, a.v + j * d + h * dh, dh);
        axpy(s.dv + j * d + h * dh, p_row[j], dy_t, dh);
      }
      // softmax, then the soft-cap
      std::memset(s.d_scores, 0, sizeof(float) * n);
      softmax_backward(s.d_scores, s.d_probs, p_row, 1, n);
      const float* d_raw = s.d_scores;
      if (c.attn_softcap > 0) {
        std::memset(s.d_raw, 0, sizeof(float) * n);
        softcap_backward(s.d_raw, s.d_scores, s_row, n, c.attn_softcap);
        d_raw = s.d_raw;
      }
      // scaled dot products: dq_t += scale * sum_j ds[j] k_j,  dk_j += scale * ds[j] q_t
      const float* q_t = a.qn + t * d + h * dh;
      float* dq_t = s.dqn + t * d + h * dh;
      for (int j = 0; j < n; ++j) {
        const float g = d_raw[j] * scale;
        axpy(dq_t, g, a.kn + j * d + h * dh, dh);
        axpy(s.dkn + j * d + h * dh, g, q_t, dh);
      }
    }
  }
  // QK-Norm
  if (c.qk_norm) {
    std::memset(s.dq, 0, sizeof(float) * Td);
    std::memset(s.dk, 0, sizeof(float) * Td);
    rmsnorm_backward(s.dq, dw.q_norm, s.dqn, a.q, a.q_rstd, w.q_norm, T * H, dh, 0.0f);
    rmsnorm_backward(s.dk, dw.k_norm, s.dkn, a.k, a.k_rstd, w.k_norm, T * H, dh, 0.0f);
  }
  // projections: dx accumulates from q, k and v
  matmul_backward(dx, dw.q, s.dq, x, w.q, T, d, d);
  matmul_backward(dx, dw.k, s.dk, x, w.k, T, d, d);
  matmul_backward(dx, dw.v, s.dv, x, w.v, T, d, d);
}

}  // namespace rl::decoder
