// Internal to the decoder: the buffers a Model owns and the pointers into them. Parameters and gradients live in
// two vectors laid out by ParamLayout; every saved activation and every backward scratch lives in one arena
// vector, carved once by assign_buffers() from the config's context length (the capacity). A forward of T tokens
// uses the first T rows of every [T, ...] buffer and packs [H, T, T] attention buffers densely for that T.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/memory_budget.hpp"
#include "decoder/config.hpp"
#include "decoder/layout.hpp"
#include "decoder/model.hpp"  // ForwardStatus
#include "decoder/norm_kinds.hpp"

namespace rl::decoder {

// Parameters (or their gradients) of one norm, in the order of its kind's params; nullptr when absent.
using NormWeights = NormTensors;

struct LayerWeights {
  NormWeights attn_norm, attn_out_norm, mlp_norm, mlp_out_norm;
  float *q = nullptr, *k = nullptr, *v = nullptr, *o = nullptr, *q_norm = nullptr, *k_norm = nullptr;
  float *up = nullptr, *gate = nullptr, *down = nullptr;
};

struct ModelWeights {
  float *embed = nullptr, *pos_embed = nullptr, *lm_head = nullptr;
  NormWeights final_norm;
  std::vector<LayerWeights> layers;
};

// A norm's output and the per-row statistics its backward needs (its kind's stats, in order).
struct NormActs {
  float* y = nullptr;
  NormStats stats{};
};

struct AttentionActs {
  float *q = nullptr, *k = nullptr, *v = nullptr;  // [T, d] projections (q, k before QK-Norm)
  float *qn = nullptr, *kn = nullptr;              // [T, d] after QK-Norm (aliases of q, k without it)
  float *q_rstd = nullptr, *k_rstd = nullptr;      // [T * H] QK-Norm statistics (projection shape: [T])
  float *qr = nullptr, *kr = nullptr;              // [T, d] after RoPE (aliases of qn, kn without it)
  float* scores = nullptr;                         // [H, T, T] q.k / sqrt(d_head), before the soft-cap
  float* probs = nullptr;                          // [H, T, T] causal softmax (zeros above the diagonal)
  float* att_y = nullptr;                          // [T, d] heads concatenated, input of attn.o
};

struct MlpActs {
  float *up = nullptr, *gate = nullptr, *act = nullptr;  // [T, d_ff]; act = gelu(up) or silu(gate) * up
};

// One sublayer (attention or MLP) and the residual stream around it.
struct SublayerActs {
  const float* x_in = nullptr;       // stream entering (= streams[j])
  NormActs in_norm;                  // pre, sandwich: Norm(x_in)
  const float* branch_in = nullptr;  // what F reads: in_norm.y or x_in
  float* branch_out = nullptr;       // F(branch_in)
  NormActs out_norm;                 // sandwich: Norm_out(F); olmo2: Norm(F)
  const float* increment = nullptr;  // what is added to the stream: out_norm.y or branch_out
  float* sum = nullptr;              // post, deepnorm: skip * x_in + F, before the norm (alias of x_out otherwise)
  NormActs post_norm;                // post, deepnorm: Norm(sum), whose y is x_out
  float* x_out = nullptr;            // stream leaving (= streams[j + 1])
};

struct LayerActs {
  SublayerActs attn_sub, mlp_sub;
  AttentionActs attn;
  MlpActs mlp;
};

struct Scratch {                                         // backward temporaries, reused by every layer
  float* d_stream = nullptr;                             // [T, d] dL/dh, accumulated through the stack
  float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;  // [T, d]
  float *dq = nullptr, *dk = nullptr, *dv = nullptr, *dqn = nullptr, *dkn = nullptr, *d_att_y = nullptr;  // [T, d]
  float *d_probs = nullptr, *d_scores = nullptr, *d_raw = nullptr;  // [T, T] one head at a time
  float *d_up = nullptr, *d_gate = nullptr, *d_act = nullptr;       // [T, d_ff]
  float *d_logits = nullptr, *d_logits_raw = nullptr;               // [T, V]; raw: before the final soft-cap
};

struct ModelState {
  MemoryReservation memory;  // model_bytes(config) of the memory budget, held while the model lives
  Config config;
  ParamLayout layout;
  std::vector<float> params, grads, arena;
  ModelWeights w, dw;  // pointers into params and grads

  std::vector<float*> streams;  // 2L + 1 buffers [T, d]
  std::vector<LayerActs> layers;
  NormActs final_norm;              // with a final norm
  const float* final_in = nullptr;  // what lm_head reads: final_norm.y or the last stream
  float *logits_raw = nullptr, *logits = nullptr, *probs = nullptr;  // [T, V]
  Scratch s;
  std::vector<float> stream_grad_norm;  // [2L+1, T] ||dL/dh_t|| saved by backward

  std::vector<std::int32_t> tokens, targets;
  int T = 0;  // tokens in the last forward
  bool has_targets = false;
  bool has_backward = false;
  float loss = 0;
  ForwardStatus forward_status = ForwardStatus::ok;
};

// Carves the arena (base == nullptr: only counts) and sets every activation pointer; returns floats used.
std::uint64_t assign_buffers(ModelState& state, float* base);
// Points w / dw into params / grads following the layout.
void bind_weights(ModelState& state);
// Seeded initialisation of params from config.init (init.cpp).
void init_weights(ModelState& state);

}  // namespace rl::decoder
