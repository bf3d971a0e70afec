// The backward pass, the forward's layer loop in reverse. s.d_stream holds dL/dh for the stream point being
// crossed. The residual rule lives here: h_out = skip * h + (branch of h), so dL/dh is the sum of the skip path's
// skip * dL/dh_out and the branch's contribution. Each sublayer first sets d_stream to the skip path's term, then
// the branch's backward ACCUMULATES (+=) into it; every other activation gradient is a scratch buffer zeroed
// before its first contribution. Parameter gradients accumulate into grads() (zero_grad() clears them).
#include <cmath>
#include <cstring>

#include "decoder/model.hpp"
#include "decoder/model_state.hpp"
#include "decoder/ops.hpp"
#include "kernels/activations.hpp"
#include "kernels/linear.hpp"
#include "kernels/reductions.hpp"

namespace rl::decoder {
namespace {

void scale(float* x, float a, int n) {
  for (int i = 0; i < n; ++i) x[i] *= a;
}
void zero(float* x, int n) { std::memset(x, 0, sizeof(float) * n); }

// Mirrors sublayer_forward. On entry s.d_stream = dL/dh_out; on exit dL/dh_in. branch_backward(d_in, d_out)
// accumulates dL/d(branch input) into d_in given dL/d(branch output).
template <class BranchBackward>
void sublayer_backward(const Config& c, const SublayerActs& a, NormWeights norm_w, NormWeights out_norm_w,
                       NormWeights d_norm_w, NormWeights d_out_norm_w, Scratch& s, int T,
                       BranchBackward&& branch_backward) {
  const float skip = skip_weight(c);
  const int n = T * c.d_model;
  float* d_h = s.d_stream;
  switch (c.placement) {
    case Placement::pre:                           // h_out = skip h + F(Norm(h))
      std::memcpy(s.d_a, d_h, sizeof(float) * n);  // dL/dF = dL/dh_out
      scale(d_h, skip, n);                         // skip path
      zero(s.d_b, n);
      branch_backward(s.d_b, s.d_a);                                         // dL/dNorm(h)
      norm_backward(c, d_h, d_norm_w, s.d_b, a.x_in, a.in_norm, norm_w, T);  // += branch path
      break;
    case Placement::sandwich:  // h_out = skip h + Norm_out(F(Norm(h)))
      zero(s.d_a, n);
      norm_backward(c, s.d_a, d_out_norm_w, d_h, a.branch_out, a.out_norm, out_norm_w, T);  // dL/dF
      scale(d_h, skip, n);                                                                  // skip path
      zero(s.d_b, n);
      branch_backward(s.d_b, s.d_a);
      norm_backward(c, d_h, d_norm_w, s.d_b, a.x_in, a.in_norm, norm_w, T);  // += branch path
      break;
    case Placement::olmo2:  // h_out = skip h + Norm(F(h))
      zero(s.d_a, n);
      norm_backward(c, s.d_a, d_norm_w, d_h, a.branch_out, a.out_norm, norm_w, T);  // dL/dF
      scale(d_h, skip, n);                                                          // skip path
      branch_backward(d_h, s.d_a);                                                  // += branch path
      break;
    case Placement::post:  // h_out = Norm(skip h + F(h))
    case Placement::deepnorm:
      zero(s.d_a, n);
      norm_backward(c, s.d_a, d_norm_w, d_h, a.sum, a.post_norm, norm_w, T);  // dL/dsum = dL/dF
      for (int i = 0; i < n; ++i) d_h[i] = skip * s.d_a[i];                   // skip path
      branch_backward(d_h, s.d_a);                                            // += branch path
      break;
  }
}

// ||dL/dh_t|| for every position of stream point p.
void record_stream_grad(ModelState& st, int point) {
  const int d = st.config.d_model;
  float* out = st.stream_grad_norm.data() + static_cast<long>(point) * st.config.context_length;
  for (int t = 0; t < st.T; ++t) out[t] = std::sqrt(simd::sum_of_squares(st.s.d_stream + t * d, d));
}

}  // namespace

std::string Model::backward(float loss_scale) {
  ModelState& st = *state_;
  const Config& c = st.config;
  if (st.T == 0) return "backward needs a forward pass first";
  if (!st.has_targets) return "backward needs a forward pass with targets";
  if (!std::isfinite(loss_scale)) return "loss_scale must be finite";
  const int T = st.T, d = c.d_model, V = c.vocab_size, L = c.n_layers;
  Scratch& s = st.s;

  // cross-entropy: dL/dlogits = loss_scale * (softmax - onehot(target)) / T
  const float g = loss_scale / static_cast<float>(T);
  for (int t = 0; t < T; ++t) {
    const float* p = st.probs + static_cast<long>(t) * V;
    float* dl = s.d_logits + static_cast<long>(t) * V;
    for (int j = 0; j < V; ++j) dl[j] = g * p[j];
    dl[st.targets[t]] -= g;
  }
  // final soft-cap
  if (c.final_softcap > 0) {
    zero(s.d_logits_raw, T * V);
    softcap_backward(s.d_logits_raw, s.d_logits, st.logits_raw, T * V, c.final_softcap);
  }
  // unembedding, then the final norm (identity without one) into dL/dh at the top of the stack
  zero(s.d_c, T * d);
  linear_backward(s.d_c, st.dw.lm_head, nullptr, s.d_logits_raw, st.final_in, st.w.lm_head, T, d, V);
  zero(s.d_stream, T * d);
  norm_backward(c, s.d_stream, st.dw.final_norm, s.d_c, st.streams[2 * L], st.final_norm, st.w.final_norm, T);
  record_stream_grad(st, 2 * L);

  for (int l = L - 1; l >= 0; --l) {
    const LayerActs& la = st.layers[l];
    const LayerWeights& lw = st.w.layers[l];
    LayerWeights& dlw = st.dw.layers[l];
    // MLP sublayer
    sublayer_backward(c, la.mlp_sub, lw.mlp_norm, lw.mlp_out_norm, dlw.mlp_norm, dlw.mlp_out_norm, s, T,
                      [&](float* d_in, const float* d_out) {
                        mlp_backward(c, d_in, dlw, d_out, la.mlp_sub.branch_in, la.mlp, lw, s, T);
                      });
    record_stream_grad(st, 2 * l + 1);
    // attention sublayer
    sublayer_backward(c, la.attn_sub, lw.attn_norm, lw.attn_out_norm, dlw.attn_norm, dlw.attn_out_norm, s, T,
                      [&](float* d_in, const float* d_out) {
                        attention_backward(c, d_in, dlw, d_out, la.attn_sub.branch_in, la.attn, lw, s, T);
                      });
    record_stream_grad(st, 2 * l);
  }

  // token and position embeddings
  for (int t = 0; t < T; ++t) {
    float* de = st.dw.embed + static_cast<long>(st.tokens[t]) * d;
    for (int i = 0; i < d; ++i) de[i] += s.d_stream[t * d + i];
    if (st.dw.pos_embed)
      for (int i = 0; i < d; ++i) st.dw.pos_embed[t * d + i] += s.d_stream[t * d + i];
  }
  st.has_backward = true;
  return "";
}

}  // namespace rl::decoder
