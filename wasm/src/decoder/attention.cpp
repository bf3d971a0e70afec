// Multi-head causal self-attention, forward and backward. Per head h (columns h*dh .. h*dh+dh-1 of [T, d]):
//   q, k, v = x Wq^T, x Wk^T, x Wv^T              (QK-Norm: q, k <- RMSNorm over each head's dh values, or over
//                                                  the whole projection's d values; then RoPE, if on)
//   s[t, j] = q_t . k_j / sqrt(dh)                (saved as scores: the logit before any soft-cap)
//   c[t, j] = cap * tanh(s[t, j] / cap)           (attention soft-cap, if on; else c = s)
//   p[t, :] = softmax(c[t, 0..t])                 (causal: keys j <= t only; p[t, j > t] = 0)
//   y_t     = sum_j p[t, j] v_j;   out = y Wo^T
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "decoder/ops.hpp"
#include "kernels/activations.hpp"
#include "kernels/matmul.hpp"
#include "kernels/norms.hpp"
#include "kernels/reductions.hpp"

namespace rl::decoder {
namespace {

// Causal products run in blocks of this many query rows: a block's rows need the keys up to its last row, so the
// matrix kernels skip the upper triangle but for these small corners (whose entries the code sets to 0).
constexpr int kBlockRows = 8;

// For each block of rows [t0, t0 + rows) of a causal [T, T] product: fn(t0, rows).
template <class Fn>
inline void for_each_block(int T, Fn fn) {
  for (int t0 = 0; t0 < T; t0 += kBlockRows) fn(t0, std::min(kBlockRows, T - t0));
}

// RoPE on [T, d] rows of H heads (Hugging Face's rotate_half): for pair (i, i + dh/2) of each head at position t,
//   forward: (a, b) <- (a cos - b sin, b cos + a sin);   inverse (the backward, R^T): (a, b) <- (a cos + b sin, b cos -
//   a sin)
// with angle = t * inv_freq_i, inv_freq_i = theta^(-2i/dh), each rounded to float32 as transformers computes them.
// In place is allowed (y == x).
void rope_rotate(float* y, const float* x, int T, int H, int dh, float theta, bool inverse) {
  const int half = dh / 2, d = H * dh;
  std::vector<float> cos_t(half), sin_t(half), inv_freq(half);
  for (int i = 0; i < half; ++i)
    inv_freq[i] = static_cast<float>(1.0 / std::pow(static_cast<double>(theta), (2.0 * i) / dh));
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < half; ++i) {
      const double angle = static_cast<float>(t) * inv_freq[i];
      cos_t[i] = static_cast<float>(std::cos(angle));
      sin_t[i] = static_cast<float>(inverse ? -std::sin(angle) : std::sin(angle));
    }
    for (int h = 0; h < H; ++h) {
      const float* xr = x + static_cast<long>(t) * d + h * dh;
      float* yr = y + static_cast<long>(t) * d + h * dh;
      for (int i = 0; i < half; ++i) {
        const float a = xr[i], b = xr[i + half];
        yr[i] = a * cos_t[i] - b * sin_t[i];
        yr[i + half] = b * cos_t[i] + a * sin_t[i];
      }
    }
  }
}

// QK-Norm's rows: one per (position, head) of dh values, or one per position of d values.
int qk_norm_rows(const Config& c, int T) { return c.qk_norm_shape == QkNormShape::projection ? T : T * c.n_heads; }
int qk_norm_width(const Config& c) { return c.qk_norm_shape == QkNormShape::projection ? c.d_model : c.d_head(); }

}  // namespace

// Per head, as matrix products on the head's columns of q, k and v ([T, d] with row stride d):
//   S = Qh Kh^T (matmul_nt),  Yh = P Vh (gemm).
void attention_forward(const Config& c, AttentionActs& a, float* out, const float* x, const LayerWeights& w, int T) {
  const int d = c.d_model, H = c.n_heads, dh = c.d_head();
  const float scale = 1.0f / std::sqrt(static_cast<float>(dh));
  // projections
  matmul_forward(a.q, x, w.q, T, d, d);
  matmul_forward(a.k, x, w.k, T, d, d);
  matmul_forward(a.v, x, w.v, T, d, d);
  // QK-Norm: [T, d] is [T * H, dh] row-major, one row per (position, head); or [T, d], one row per position
  if (c.qk_norm) {
    const int rows = qk_norm_rows(c, T), width = qk_norm_width(c);
    rmsnorm_forward(a.qn, a.q_rstd, a.q, w.q_norm, rows, width, c.eps, 0.0f);
    rmsnorm_forward(a.kn, a.k_rstd, a.k, w.k_norm, rows, width, c.eps, 0.0f);
  }
  if (c.rope) {
    rope_rotate(a.qr, a.qn, T, H, dh, c.rope_theta, /*inverse=*/false);
    rope_rotate(a.kr, a.kn, T, H, dh, c.rope_theta, /*inverse=*/false);
  }
  for (int h = 0; h < H; ++h) {
    const float *qh = a.qr + h * dh, *kh = a.kr + h * dh, *vh = a.v + h * dh;
    float* S = a.scores + static_cast<long>(h) * T * T;
    float* P = a.probs + static_cast<long>(h) * T * T;
    for_each_block(T, [&](int t0, int rows) { matmul_nt(S + t0 * T, T, qh + t0 * d, d, kh, d, rows, dh, t0 + rows); });
    for (int t = 0; t < T; ++t) {
      float* s_row = S + static_cast<long>(t) * T;
      float* p_row = P + static_cast<long>(t) * T;
      // scaled scores over the causal keys, soft-cap, then softmax over keys 0..t
      for (int j = 0; j <= t; ++j) s_row[j] *= scale;
      if (c.attn_softcap > 0) {
        softcap_forward(p_row, s_row, t + 1, c.attn_softcap);
        softmax_forward(p_row, p_row, 1, t + 1);
      } else {
        softmax_forward(p_row, s_row, 1, t + 1);
      }
      for (int j = t + 1; j < T; ++j) s_row[j] = 0.0f, p_row[j] = 0.0f;
    }
    // weighted sum of values: y_t = sum_{j <= t} p[t, j] v_j
    for_each_block(T, [&](int t0, int rows) {
      gemm(a.att_y + t0 * d + h * dh, d, P + t0 * T, T, 1, vh, d, rows, dh, t0 + rows, /*accumulate=*/false);
    });
  }
  // output projection
  matmul_forward(out, a.att_y, w.o, T, d, d);
}

// Per head, with G = dS * scale (the gradient of the unscaled scores q_t . k_j):
//   dP = dYh Vh^T,  dVh += P^T dYh,  dQh += G Kh,  dKh += G^T Qh;
// the transposed products run over rows j >= j0 only (P and G are 0 above the diagonal).
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
  float* dP = s.d_probs;  // [T, T]
  float* G = s.d_scores;  // [T, T]
  for (int h = 0; h < H; ++h) {
    const float *qh = a.qr + h * dh, *kh = a.kr + h * dh, *vh = a.v + h * dh, *dyh = s.d_att_y + h * dh;
    const float* P = a.probs + static_cast<long>(h) * T * T;
    const float* S = a.scores + static_cast<long>(h) * T * T;
    for_each_block(T,
                   [&](int t0, int rows) { matmul_nt(dP + t0 * T, T, dyh + t0 * d, d, vh, d, rows, dh, t0 + rows); });
    for (int t = 0; t < T; ++t) {
      const int n = t + 1;
      float* g_row = G + static_cast<long>(t) * T;
      // softmax, then the soft-cap
      std::memset(g_row, 0, sizeof(float) * T);
      softmax_backward(g_row, dP + static_cast<long>(t) * T, P + static_cast<long>(t) * T, 1, n);
      if (c.attn_softcap > 0) {
        std::memset(s.d_raw, 0, sizeof(float) * n);
        softcap_backward(s.d_raw, g_row, S + static_cast<long>(t) * T, n, c.attn_softcap);
        std::memcpy(g_row, s.d_raw, sizeof(float) * n);
      }
      for (int j = 0; j < n; ++j) g_row[j] *= scale;
    }
    for_each_block(T, [&](int t0, int rows) {
      gemm(s.dqn + t0 * d + h * dh, d, G + t0 * T, T, 1, kh, d, rows, dh, t0 + rows, /*accumulate=*/true);
      const long corner = static_cast<long>(t0) * T + t0;  // (row t0, column t0): A(i, k) = M[t0 + k, t0 + i]
      gemm(s.dv + t0 * d + h * dh, d, P + corner, 1, T, dyh + t0 * d, d, rows, dh, T - t0, /*accumulate=*/true);
      gemm(s.dkn + t0 * d + h * dh, d, G + corner, 1, T, qh + t0 * d, d, rows, dh, T - t0, /*accumulate=*/true);
    });
  }
  // RoPE: the gradients above are with respect to the rotated q and k; the rotation's transpose is its inverse
  if (c.rope) {
    rope_rotate(s.dqn, s.dqn, T, H, dh, c.rope_theta, /*inverse=*/true);
    rope_rotate(s.dkn, s.dkn, T, H, dh, c.rope_theta, /*inverse=*/true);
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
  matmul_backward(dx, dw.q, s.dq, x, w.q, T, d, d);
  matmul_backward(dx, dw.k, s.dk, x, w.k, T, d, d);
  matmul_backward(dx, dw.v, s.dv, x, w.v, T, d, d);
}

}  // namespace rl::decoder
