// Internal to the decoder: the building blocks of one layer, forward and backward side by side. Arguments: the
// config, what is written, what is read, T. Forward: activations saved and output, input x, weights. Backward:
// the gradients added into (dx, the weights'), dout, x, the saved activations, the weights, scratch. Every
// backward ACCUMULATES (+=) into the gradient of its input and of its parameters; the caller zeroes a scratch
// gradient before its first contribution.
#pragma once
#include "decoder/model_state.hpp"

namespace rl::decoder {

// The configured norm over [T, d_model] rows. A NormActs without y (norm "none", or a placement without this
// norm) is the identity: forward does nothing (the caller's pointers already alias the input), backward adds dy.
void norm_forward(const Config& c, NormActs& out, const float* x, NormWeights w, int T);
void norm_backward(const Config& c, float* dx, NormWeights dw, const float* dy, const float* x, const NormActs& saved,
                   NormWeights w, int T);

// The weight of the skip path: 1, deepnorm's alpha, or 0 without residual connections.
inline float skip_weight(const Config& c) {
  if (!c.residual) return 0.0f;
  return c.placement == Placement::deepnorm ? c.deepnorm_alpha() : 1.0f;
}

// out = skip * x + increment   (skip = 1, deepnorm's alpha, or 0 without residual connections)
void residual_forward(float* out, const float* x, const float* increment, float skip, int n);

// Multi-head causal self-attention: out = attn.o(softmax(capped(q k^T / sqrt(d_head)) + mask) v).
void attention_forward(const Config& c, AttentionActs& a, float* out, const float* x, const LayerWeights& w, int T);
void attention_backward(const Config& c, float* dx, LayerWeights& dw, const float* dout, const float* x,
                        const AttentionActs& a, const LayerWeights& w, Scratch& s, int T);

// MLP: down(gelu(up x)) or down(silu(gate x) * up x).
void mlp_forward(const Config& c, MlpActs& a, float* out, const float* x, const LayerWeights& w, int T);
void mlp_backward(const Config& c, float* dx, LayerWeights& dw, const float* dout, const float* x, const MlpActs& a,
                  const LayerWeights& w, Scratch& s, int T);

}  // namespace rl::decoder
