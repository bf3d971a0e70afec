// The checkpoint forward's layout as data: what JS must know to hand a layer to the raw exports
// (wasm/bindings/checkpoint_bindings.cpp), said once here and exported as JSON (describeCheckpointLayout), as
// api/all_options.hpp exports the options. web/lib/checkpoint/layout.js reads it; JS holds no copy.
//   slots       the weight slots of LayerWeights, in the order of checkpoint::Slot
//   dtypes      name -> { code, blockValues, blockBytes } (RL_CHECKPOINT_DTYPES)
//   placements, qkNorms, activations   the enums' names, index = value
//   spec        the LayerSpec as floats: each field's name, offset and kind (int, float or an enum's name)
//   observedNorms  the slots of N1 .. N4, the order of LayerObservations::norm_inputs
//   panelRows, backwardPanelRows, headStats   kPanelRows, kBackwardPanelRows, kHeadStats
#pragma once
#include <string>

#include "checkpoint/forward.hpp"

namespace rl::checkpoint {

// X(field, kind): LayerSpec's fields in the order of their floats; an enum field's kind names its list.
#define RL_LAYER_SPEC_FIELDS(X) \
  X(d, int)                     \
  X(n_heads, int)               \
  X(n_kv_heads, int)            \
  X(head_dim, int)              \
  X(ffn, int)                   \
  X(eps, float)                 \
  X(norm_offset, float)         \
  X(placement, placements)      \
  X(qk_norm, qkNorms)           \
  X(activation, activations)    \
  X(attn_scale, float)          \
  X(attn_softcap, float)

#define RL_LAYER_SPEC_COUNT(field, kind) +1
inline constexpr int kSpecFloats = 0 RL_LAYER_SPEC_FIELDS(RL_LAYER_SPEC_COUNT);
#undef RL_LAYER_SPEC_COUNT

// The LayerSpec whose fields are the kSpecFloats floats at p, in RL_LAYER_SPEC_FIELDS' order.
LayerSpec read_layer_spec(const float* p);

// The whole layout as one JSON object (the keys in the comment above).
std::string layout_json();

}  // namespace rl::checkpoint
