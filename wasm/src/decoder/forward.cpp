// The forward pass. The layer loop reads like the architecture diagram: for each layer, the attention sublayer
// and the MLP sublayer, each written out per placement as norm, branch, residual add (in that placement's order).
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

// One sublayer with its residual connection; branch(in, out) computes F (attention or MLP).
// norm_w is the sublayer's norm (attn_norm / mlp_norm), out_norm_w the sandwich's second norm.
template <class Branch>
void sublayer_forward(const Config& c, SublayerActs& a, NormWeights norm_w, NormWeights out_norm_w, int T,
                      Branch&& branch) {
  const float skip = skip_weight(c);
  const int n = T * c.d_model;
  switch (c.placement) {
    case Placement::pre:  // h <- h + F(Norm(h))
      norm_forward(c, a.in_norm, a.x_in, norm_w, T);
      branch(a.branch_in, a.branch_out);
      residual_forward(a.x_out, a.x_in, a.increment, skip, n);
      break;
    case Placement::sandwich:  // h <- h + Norm_out(F(Norm(h)))
      norm_forward(c, a.in_norm, a.x_in, norm_w, T);
      branch(a.branch_in, a.branch_out);
      norm_forward(c, a.out_norm, a.branch_out, out_norm_w, T);
      residual_forward(a.x_out, a.x_in, a.increment, skip, n);
      break;
    case Placement::olmo2:  // h <- h + Norm(F(h))
      branch(a.x_in, a.branch_out);
      norm_forward(c, a.out_norm, a.branch_out, norm_w, T);
      residual_forward(a.x_out, a.x_in, a.increment, skip, n);
      break;
    case Placement::post:      // h <- Norm(h + F(h))
    case Placement::deepnorm:  // h <- Norm(alpha h + F(h))
      branch(a.x_in, a.branch_out);
      residual_forward(a.sum, a.x_in, a.branch_out, skip, n);
      norm_forward(c, a.post_norm, a.sum, norm_w, T);  // writes x_out (with norm "none", sum is x_out)
      break;
  }
}

}  // namespace

std::string Model::forward(std::span<const std::int32_t> tokens, std::span<const std::int32_t> targets) {
  ModelState& st = *state_;
  const Config& c = st.config;
  const int T = static_cast<int>(tokens.size()), d = c.d_model, V = c.vocab_size;
  if (tokens.empty()) return "the token sequence is empty";
  if (T > c.context_length)
    return "sequence of " + std::to_string(T) + " tokens exceeds contextLength " + std::to_string(c.context_length);
  if (!targets.empty() && targets.size() != tokens.size())
    return "targets has " + std::to_string(targets.size()) + " entries but tokens has " + std::to_string(T);
  for (int t = 0; t < T; ++t) {
    if (tokens[t] < 0 || tokens[t] >= V)
      return "token " + std::to_string(tokens[t]) + " at position " + std::to_string(t) +
             " is outside the vocabulary [0, " + std::to_string(V) + ")";
    if (!targets.empty() && (targets[t] < 0 || targets[t] >= V))
      return "target " + std::to_string(targets[t]) + " at position " + std::to_string(t) +
             " is outside the vocabulary [0, " + std::to_string(V) + ")";
  }
  st.tokens.assign(tokens.begin(), tokens.end());
  st.targets.assign(targets.begin(), targets.end());
  st.T = T;
  st.has_targets = !targets.empty();
  st.has_backward = false;

  // token and position embeddings
  float* h0 = st.streams[0];
  for (int t = 0; t < T; ++t) {
    const float* e = st.w.embed + static_cast<long>(tokens[t]) * d;
    for (int i = 0; i < d; ++i) h0[t * d + i] = e[i] + (st.w.pos_embed ? st.w.pos_embed[t * d + i] : 0.0f);
  }

  for (int l = 0; l < c.n_layers; ++l) {
    LayerActs& la = st.layers[l];
    const LayerWeights& lw = st.w.layers[l];
    // attention sublayer: norm, attention, residual add (in the placement's order)
    sublayer_forward(c, la.attn_sub, lw.attn_norm, lw.attn_out_norm, T,
                     [&](const float* in, float* out) { attention_forward(c, la.attn, out, in, lw, T); });
    // MLP sublayer: norm, MLP, residual add
    sublayer_forward(c, la.mlp_sub, lw.mlp_norm, lw.mlp_out_norm, T,
                     [&](const float* in, float* out) { mlp_forward(c, la.mlp, out, in, lw, T); });
  }

  // final norm (pre, sandwich, olmo2), unembedding, final soft-cap
  norm_forward(c, st.final_norm, st.streams[2 * c.n_layers], st.w.final_norm, T);
  linear_forward(st.logits_raw, st.final_in, st.w.lm_head, nullptr, T, d, V);
  if (c.final_softcap > 0) softcap_forward(st.logits, st.logits_raw, T * V, c.final_softcap);
  softmax_forward(st.probs, st.logits, T, V);

  // mean cross-entropy: loss_t = logsumexp(logits_t) - logits_t[target_t]
  st.loss = 0.0f;
  if (st.has_targets) {
    double total = 0.0;
    for (int t = 0; t < T; ++t) {
      const float* row = st.logits + static_cast<long>(t) * V;
      float max_logit = row[0];
      for (int j = 1; j < V; ++j) max_logit = std::fmax(max_logit, row[j]);
      float sum = 0.0f;
      for (int j = 0; j < V; ++j) sum += std::exp(row[j] - max_logit);
      total += static_cast<double>(std::log(sum) + max_logit - row[targets[t]]);
    }
    st.loss = static_cast<float>(total / T);
  }
  st.forward_status = !simd::all_finite(st.logits, T * V)         ? ForwardStatus::nonfinite_logits
                      : st.has_targets && !std::isfinite(st.loss) ? ForwardStatus::nonfinite_loss
                                                                  : ForwardStatus::ok;
  return "";
}

}  // namespace rl::decoder
