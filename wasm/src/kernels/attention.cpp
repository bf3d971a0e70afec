#include "kernels/attention.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/activations.hpp"
#include "kernels/matmul.hpp"

namespace rl {
namespace {

// Causal products run in blocks of this many query rows: a block's rows need the keys up to its last row, so the
// matrix kernels skip the upper triangle but for these small corners (whose entries the code sets to 0).
constexpr int kBlockRows = 8;

// For each block of rows [t0, t0 + rows) of a causal [T, T] product: fn(t0, rows).
template <class Fn>
inline void for_each_block(int T, Fn fn) {
  for (int t0 = 0; t0 < T; t0 += kBlockRows) fn(t0, std::min(kBlockRows, T - t0));
}

int first_key(int t, int window) { return window > 0 ? std::max(0, t - window + 1) : 0; }

}  // namespace

// Per head, as matrix products on the head's columns: S = Qh Kh^T (matmul_nt), Yh = P Vh (gemm).
void attention_forward(float* y, float* scores, float* probs, const float* q, const float* k, const float* v,
                       const AttentionShape& s) {
  const int T = s.T, dh = s.dh, group = s.H / s.KV;
  for (int h = 0; h < s.H; ++h) {
    const float *qh = q + h * dh, *kh = k + (h / group) * dh, *vh = v + (h / group) * dh;
    float* S = scores + static_cast<long>(h) * T * T;
    float* P = probs + static_cast<long>(h) * T * T;
    for_each_block(T, [&](int t0, int rows) {
      matmul_nt(S + t0 * T, T, qh + static_cast<long>(t0) * s.ldq, s.ldq, kh, s.ldkv, rows, dh, t0 + rows);
    });
    for (int t = 0; t < T; ++t) {
      float* s_row = S + static_cast<long>(t) * T;
      float* p_row = P + static_cast<long>(t) * T;
      const int first = first_key(t, s.window), n = t + 1 - first;
      // scaled scores over the keys seen, soft-cap, then softmax over them
      for (int j = first; j <= t; ++j) s_row[j] *= s.scale;
      if (s.softcap > 0) {
        softcap_forward(p_row + first, s_row + first, n, s.softcap);
        softmax_forward(p_row + first, p_row + first, 1, n);
      } else {
        softmax_forward(p_row + first, s_row + first, 1, n);
      }
      for (int j = 0; j < first; ++j) s_row[j] = 0.0f, p_row[j] = 0.0f;
      for (int j = t + 1; j < T; ++j) s_row[j] = 0.0f, p_row[j] = 0.0f;
    }
    // weighted sum of values: y_t = sum_{j seen} p[t, j] v_j
    for_each_block(T, [&](int t0, int rows) {
      gemm(y + static_cast<long>(t0) * s.ldq + h * dh, s.ldq, P + t0 * T, T, 1, vh, s.ldkv, rows, dh, t0 + rows,
           /*accumulate=*/false);
    });
  }
}

// Per head, with G = dS * scale (the gradient of the unscaled scores q_t . k_j):
//   dP = dYh Vh^T,  dVh += P^T dYh,  dQh += G Kh,  dKh += G^T Qh;
// the transposed products run over rows j >= j0 only (P and G are 0 above the diagonal).
void attention_backward(float* dq, float* dk, float* dv, float* dP, float* G, float* d_raw, const float* dy,
                        const float* q, const float* k, const float* v, const float* scores, const float* probs,
                        const AttentionShape& s) {
  const int T = s.T, dh = s.dh, group = s.H / s.KV;
  for (int h = 0; h < s.H; ++h) {
    const int kv = (h / group) * dh;
    const float *qh = q + h * dh, *kh = k + kv, *vh = v + kv, *dyh = dy + h * dh;
    const float* P = probs + static_cast<long>(h) * T * T;
    const float* S = scores + static_cast<long>(h) * T * T;
    for_each_block(T, [&](int t0, int rows) {
      matmul_nt(dP + t0 * T, T, dyh + static_cast<long>(t0) * s.ldq, s.ldq, vh, s.ldkv, rows, dh, t0 + rows);
    });
    for (int t = 0; t < T; ++t) {
      const int first = first_key(t, s.window), n = t + 1 - first;
      float* g_row = G + static_cast<long>(t) * T;
      // softmax, then the soft-cap, over the keys seen (G stays 0 at the rest)
      std::memset(g_row, 0, sizeof(float) * T);
      softmax_backward(g_row + first, dP + static_cast<long>(t) * T + first, P + static_cast<long>(t) * T + first, 1,
                       n);
      if (s.softcap > 0) {
        std::memset(d_raw, 0, sizeof(float) * n);
        softcap_backward(d_raw, g_row + first, S + static_cast<long>(t) * T + first, n, s.softcap);
        std::memcpy(g_row + first, d_raw, sizeof(float) * n);
      }
      for (int j = first; j <= t; ++j) g_row[j] *= s.scale;
    }
    for_each_block(T, [&](int t0, int rows) {
      gemm(dq + static_cast<long>(t0) * s.ldq + h * dh, s.ldq, G + t0 * T, T, 1, kh, s.ldkv, rows, dh, t0 + rows,
           /*accumulate=*/true);
      const long corner = static_cast<long>(t0) * T + t0;  // (row t0, column t0): A(i, k) = M[t0 + k, t0 + i]
      gemm(dv + static_cast<long>(t0) * s.ldkv + kv, s.ldkv, P + corner, 1, T, dyh + static_cast<long>(t0) * s.ldq,
           s.ldq, rows, dh, T - t0, /*accumulate=*/true);
      gemm(dk + static_cast<long>(t0) * s.ldkv + kv, s.ldkv, G + corner, 1, T, qh + static_cast<long>(t0) * s.ldq,
           s.ldq, rows, dh, T - t0, /*accumulate=*/true);
    });
  }
}

void rope_rotate(float* y, const float* x, int T, int heads, int dh, const float* inv_freq, bool inverse) {
  const int half = dh / 2, d = heads * dh;
  std::vector<float> cos_t(half), sin_t(half);
  for (int t = 0; t < T; ++t) {
    for (int i = 0; i < half; ++i) {
      const double angle = static_cast<float>(t) * inv_freq[i];
      cos_t[i] = static_cast<float>(std::cos(angle));
      sin_t[i] = static_cast<float>(inverse ? -std::sin(angle) : std::sin(angle));
    }
    for (int h = 0; h < heads; ++h) {
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

std::vector<float> rope_inverse_frequencies(int dh, double theta) {
  std::vector<float> inv_freq(dh / 2);
  for (int i = 0; i < dh / 2; ++i) {
    const float e = static_cast<float>(2 * i) / static_cast<float>(dh);
    const float p = static_cast<float>(std::pow(theta, static_cast<double>(e)));
    inv_freq[i] = static_cast<float>(1.0 / static_cast<double>(p));
  }
  return inv_freq;
}

}  // namespace rl
