// What a norm kind is, in one table: its name (as the JS API spells it), its parameter tensors, the per-row
// statistics its backward reads, and its forward and backward (the kernels of kernels/norms.hpp). The layout,
// the parameter count, the initialisation, the saved activations and the dispatch all read this table, so a new
// kind is one entry here (the README's "Add a norm kind" lists the steps). QK-Norm is not a norm kind: it is always
// Llama's RMSNorm.
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string_view>

#include "decoder/config.hpp"

namespace rl::decoder {

inline constexpr int kMaxNormParams = 3;  // tensors of one norm instance
inline constexpr int kMaxNormStats = 2;   // floats saved per row

// One parameter tensor of a norm instance: <prefix>.<suffix>, of shape [d_model] or [1] (one scalar per
// instance), every element starting at `init`.
struct NormParamSpec {
  std::string_view suffix;
  bool per_feature;  // true: [d_model]; false: [1]
  float init;
  std::uint64_t size(std::uint64_t d_model) const { return per_feature ? d_model : 1; }
};

// One norm instance's tensors (or their gradients) in the order of its spec's params; nullptr when absent.
using NormTensors = std::array<float*, kMaxNormParams>;
// The per-row statistics a forward saves for the backward, in the order of its spec's stats; [rows] each.
using NormStats = std::array<float*, kMaxNormStats>;

// y = Norm(x) over `rows` rows of d floats. stats[i] may be nullptr (nothing saved).
using NormForward = void (*)(float* y, const NormStats& stats, const float* x, const NormTensors& w, int rows, int d,
                             float eps);
// ACCUMULATES into dx and dw (the residual rule of kernels/norms.hpp); entries of dw may be nullptr.
using NormBackward = void (*)(float* dx, const NormTensors& dw, const float* dy, const float* x, const NormStats& stats,
                              const NormTensors& w, int rows, int d);

struct NormKindSpec {
  NormKind kind;
  std::string_view name;                    // as the JS API spells it; a null-terminated literal
  std::span<const NormParamSpec> params;    // in layout order
  std::span<const std::string_view> stats;  // what each saved per-row float is ("mean", "rstd")
  NormForward forward;                      // nullptr: the identity (norm "none")
  NormBackward backward;

  bool identity() const { return forward == nullptr; }
  // Index into params of the tensor with this suffix, or -1.
  int find_param(std::string_view suffix) const {
    for (std::size_t i = 0; i < params.size(); ++i)
      if (params[i].suffix == suffix) return static_cast<int>(i);
    return -1;
  }
};

// Every norm kind, in the order the JS API lists them.
std::span<const NormKindSpec> norm_kinds();

// The entry of a kind, or nullptr for a value outside the enum (validate_config rejects those).
const NormKindSpec* find_norm_kind(NormKind kind);

// The entry of a validated config's kind (the identity's entry for a value outside the enum).
const NormKindSpec& norm_spec(NormKind kind);

}  // namespace rl::decoder
