// Grouped-query causal self-attention between the projections, and RoPE, forward and backward side by side; the
// lab's decoder (decoder/attention.cpp) and the checkpoint layer (checkpoint/) both run these. Per query head h, its
// key/value head h / (H / KV), query t and the keys j it sees (j <= t; with a window w > 0 also j > t - w):
//   s[t, j] = scale * q_t . k_j                  (kept as scores: the logit before any soft-cap)
//   c[t, j] = cap * tanh(s[t, j] / cap)          (the attention soft-cap, if cap > 0; else c = s)
//   p[t, :] = softmax(c[t, keys seen])           (kept as probs; 0 at every key not seen)
//   y_t     = sum_j p[t, j] v_j
// q[T, H * dh] and y with row stride ldq, k and v [T, KV * dh] with row stride ldkv (heads side by side).
// Backward ACCUMULATES (+=) into dq, dk and dv (norms.hpp's rule); the caller zeroes them first.
#pragma once
#include <vector>

namespace rl {

struct AttentionShape {
  int T = 0, H = 0, KV = 0, dh = 0, ldq = 0, ldkv = 0;
  float scale = 1.0f, softcap = 0.0f;
  int window = 0;  // 0: every earlier key
};

// scores, probs: H * T * T floats each.
void attention_forward(float* y, float* scores, float* probs, const float* q, const float* k, const float* v,
                       const AttentionShape& s);

// Scratch: dP and G, T * T floats each; d_raw, T floats.
void attention_backward(float* dq, float* dk, float* dv, float* dP, float* G, float* d_raw, const float* dy,
                        const float* q, const float* k, const float* v, const float* scores, const float* probs,
                        const AttentionShape& s);

// RoPE, Hugging Face's rotate_half: for the pair (i, i + dh/2) of each head of x[T, heads * dh] (row stride
// heads * dh) at position t, with angle = t * inv_freq[i],
//   forward: (a, b) <- (a cos - b sin, b cos + a sin);   inverse (the backward, R^T): (a, b) <- (a cos + b sin,
//   b cos - a sin).
// In place is allowed (y == x).
void rope_rotate(float* y, const float* x, int T, int heads, int dh, const float* inv_freq, bool inverse);

// RoPE's inverse frequencies, dh / 2 of them, theta^(-2i/dh) in Transformers' float32 steps
// (_compute_default_rope_parameters): e = float(2i) / float(dh) in float32, p = theta^e rounded to float32,
// inv_freq[i] = 1 / p rounded to float32. web/lib/checkpoint/model.js invFreq computes the same in JS (and then
// scales them as config.json's rope_scaling says); tests/js/rope-frequencies.test.mjs holds the two bit-identical.
std::vector<float> rope_inverse_frequencies(int dh, double theta);

}  // namespace rl
