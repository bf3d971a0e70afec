// What a forward and a backward pass report besides the loss, all computed from the activations the model saved.
// Stream points: 0 is the embedding output, 2l+1 the stream after layer l's attention sublayer, 2l+2 after its
// MLP sublayer (2L+1 points). Sublayers: 2l is layer l's attention, 2l+1 its MLP (2L sublayers).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/memory_budget.hpp"

namespace rl::decoder {

struct ForwardStats {
  int n_layers = 0, n_heads = 0, seq_len = 0;
  std::vector<float> stream_norm;       // [2L+1, T]  ||h_t||, L2 over d_model
  std::vector<float> stream_norm_mean;  // [2L+1]     mean over positions
  // The increment of a sublayer is what its branch writes into the stream: F(Norm(h)) for pre,
  // Norm_out(F(Norm(h))) for sandwich, Norm(F(h)) for olmo2, F(h) for post and deepnorm (before their norm).
  std::vector<float> increment_norm;       // [2L, T]  ||increment_t||
  std::vector<float> increment_norm_mean;  // [2L]
  std::vector<float> increment_ratio;      // [2L]  mean over t of ||increment_t|| / ||h_t||, h = stream entering
  std::vector<float> max_attn_logit;       // [L, H] largest q.k/sqrt(d_head) over causal pairs, before any soft-cap
  std::vector<float> attn_entropy;         // [L, H] softmax entropy in nats, mean over query positions
};

struct GradStats {
  std::vector<float> param_grad_norm;                // [tensors]  ||grad|| per tensor, in ParamLayout order
  std::vector<float> stream_grad_norm;               // [2L+1]     ||dL/dh|| over all positions, per stream point
  std::vector<float> stream_grad_norm_per_position;  // [2L+1, T]
  float total_grad_norm = 0;                         // ||grads()||
};

// Logit lens: each stream point read through the final norm (when the model has one) and the unembedding
// (and the final soft-cap). Post and deepnorm have no final norm: their streams after every sublayer are already
// a norm's output, so the lens applies lm_head directly (the embedding point is read raw). Same for norm "none".
struct LogitLens {
  int points = 0, seq_len = 0, k = 0;
  std::vector<std::int32_t> top_tokens;  // [points, T, k] most probable first
  std::vector<float> top_probs;          // [points, T, k] softmax probabilities
  std::string error;                     // non-empty (out of memory) when the lens was refused; then empty
  MemoryReservation memory;              // the lens's share of the memory budget, held while it lives
};

}  // namespace rl::decoder
