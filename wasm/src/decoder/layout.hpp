// One flat parameter vector, laid out tensor by tensor with PyTorch's names and shapes: linear weights are
// nn.Linear.weight, [out_features, in_features] row-major, no biases; a norm has the tensors its kind's entry in
// norm_kinds.cpp lists (LayerNorm: weight, bias; RMSNorm: weight). Order: embed, pos_embed, then per layer
// attn_norm, attn.{q,k,v,o}, attn.{q_norm,k_norm}, attn_out_norm, mlp_norm, mlp.{up,gate,down}, mlp_out_norm; then
// final_norm, lm_head. Absent tensors are skipped.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decoder/config.hpp"
#include "decoder/norm_kinds.hpp"

namespace rl::decoder {

inline constexpr long kAbsent = -1;  // offset of a tensor this config does not have

struct ParamTensor {
  std::string name;                 // "layers.3.attn.q.weight"
  std::size_t offset = 0;           // in floats, into params() and grads()
  std::vector<int> shape;           // PyTorch shape
  std::size_t size = 0;             // product of shape
  int layer = -1;                   // -1 for embed, pos_embed, final_norm, lm_head
  std::optional<float> init_value;  // norm parameters: every element starts at this value (else drawn at random)
};

// One norm instance's tensors, in the order of its kind's params.
struct NormOffsets {
  const NormKindSpec* kind = nullptr;  // nullptr: no norm here
  std::array<long, kMaxNormParams> param = [] {
    std::array<long, kMaxNormParams> absent;
    absent.fill(kAbsent);
    return absent;
  }();
  bool present() const { return param[0] != kAbsent; }
  // Offset of <prefix>.<suffix> ("weight", "bias", ...), or kAbsent.
  long find(std::string_view suffix) const {
    const int i = kind ? kind->find_param(suffix) : -1;
    return i < 0 ? kAbsent : param[i];
  }
};

struct LayerOffsets {
  NormOffsets attn_norm, attn_out_norm, mlp_norm, mlp_out_norm;
  long q = kAbsent, k = kAbsent, v = kAbsent, o = kAbsent;
  long q_norm = kAbsent, k_norm = kAbsent;
  long up = kAbsent, gate = kAbsent, down = kAbsent;
};

struct ParamLayout {
  std::vector<ParamTensor> tensors;
  std::size_t total = 0;
  long embed = kAbsent, pos_embed = kAbsent, lm_head = kAbsent;
  NormOffsets final_norm;
  std::vector<LayerOffsets> layers;

  // Index into tensors of the tensor with this name, or -1.
  int find(std::string_view name) const;
};

// The layout of a (validated) config.
ParamLayout build_layout(const Config& config);

// Parameter count: the layout's walk without storing tensors (the memory check runs it before validation
// finishes), counted in 64 bits like model_bytes.
std::uint64_t count_params(const Config& config);

}  // namespace rl::decoder
