// One layer's saved activations and the backward's scratch (backward.cpp's, not an interface of the tier).
#pragma once

#include <algorithm>
#include <cstddef>

#include "checkpoint/backward.hpp"
#include "kernels/attention.hpp"

namespace rl::checkpoint::detail {

constexpr int kVectors = 2;  // the gradient and the branch-only vector, stacked as 2T rows

inline double sum_squares(const float* x, std::size_t n) {
  double s = 0;
  for (std::size_t i = 0; i < n; ++i) s += double(x[i]) * x[i];
  return s;
}

// One layer's saved activations and the backward's scratch, carved from one block.
struct Buffers {
  int T, d, qc, kvc, H, KV, hd, ffn;
  float *n1, *rstd1, *q0, *qn, *rstdq, *k0, *kn, *rstdk, *qr, *kr, *v, *S, *P, *y, *a0, *rstd2, *xm, *n3, *rstd3, *gate,
      *up, *act, *m0, *rstd4;
  float *dP, *dG, *d_raw, *G, *J, *dA, *dY, *dQ, *dK, *dV, *dQ0, *dK0, *dIn, *dAct, *dGate, *dUp, *dparam, *panel;

  explicit Buffers(const LayerSpec& s, int T_)
      : T(T_),
        d(s.d),
        qc(s.n_heads * s.head_dim),
        kvc(s.n_kv_heads * s.head_dim),
        H(s.n_heads),
        KV(s.n_kv_heads),
        hd(s.head_dim),
        ffn(s.ffn) {}

  // Calls f(pointer member, float count) in one fixed order: the forward's activations, then the backward's
  // scratch; count() sums a part, carve() assigns both.
  template <class F>
  void activations(F f) {
    const std::size_t t = T, tt = t * t;
    f(n1, t * d), f(rstd1, t), f(q0, t * qc), f(qn, t * qc), f(rstdq, t * H), f(k0, t * kvc), f(kn, t * kvc);
    f(rstdk, t * KV), f(qr, t * qc), f(kr, t * kvc), f(v, t * kvc), f(S, H * tt), f(P, H * tt), f(y, t * qc);
    f(a0, t * d), f(rstd2, t), f(xm, t * d), f(n3, t * d), f(rstd3, t), f(gate, t * ffn), f(up, t * ffn);
    f(act, t * ffn), f(m0, t * d), f(rstd4, t);
  }
  template <class F>
  void scratch(F f) {
    const std::size_t t = T, tt = t * t, V2 = kVectors;
    f(dP, tt), f(dG, tt), f(d_raw, t);
    f(G, V2 * t * d), f(J, V2 * t * d), f(dA, V2 * t * d), f(dY, V2 * t * qc), f(dQ, V2 * t * qc);
    f(dK, V2 * t * kvc), f(dV, V2 * t * kvc), f(dQ0, V2 * t * qc), f(dK0, V2 * t * kvc), f(dIn, V2 * t * d);
    f(dAct, V2 * t * ffn), f(dGate, V2 * t * ffn), f(dUp, V2 * t * ffn);
    f(dparam, std::size_t(std::max({d, qc, kvc})));
    f(panel, std::size_t(kBackwardPanelRows) * std::max({d, qc, ffn}));
  }
  static constexpr std::size_t rounded(std::size_t k) { return (k + 3) / 4 * 4; }  // 16-byte aligned blocks
  std::size_t activation_floats() {
    std::size_t n = 0;
    activations([&](float*&, std::size_t k) { n += rounded(k); });
    return n;
  }
  std::size_t scratch_floats() {
    std::size_t n = 0;
    scratch([&](float*&, std::size_t k) { n += rounded(k); });
    return n;
  }
  void carve(float* acts, float* rest) {
    activations([&](float*& member, std::size_t k) { member = acts, acts += rounded(k); });
    scratch([&](float*& member, std::size_t k) { member = rest, rest += rounded(k); });
  }
};

inline AttentionShape heads(const Buffers& b, const LayerSpec& s, int window) {
  return {b.T, b.H, b.KV, b.hd, b.qc, b.kvc, s.attn_scale, s.attn_softcap, window};
}

}  // namespace rl::checkpoint::detail
