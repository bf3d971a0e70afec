// Experiment 2: gradients at initialisation by norm placement (Xiong et al. 2020, "On Layer Normalization in the
// Transformer Architecture").
//
// For each placement, one model at its seeded initialisation reads the same `samples` text windows; the gradient
// of their mean loss is taken and its norm reported per layer and per weight. The paper's claims to hold this up
// against:
//   Theorem 1: the last layer's FFN weight gradient (its W^2, our mlp.down) is O(d sqrt(ln d)) for Post-LN,
//     independent of depth L, but O(d sqrt(ln d / L)) for Pre-LN: Pre-LN's shrinks like 1/sqrt(L), because its
//     stream grows like sqrt(L) and the final norm divides the gradient by it.
//   Figure 3: at init, Post-LN's gradient norms grow toward the output layer, Pre-LN's stay flat.
// The theorem assumes Xavier-scaled weights, no attention (q, k at zero: uniform attention) and a stream whose
// variance each sublayer raises by a comparable amount; options let the reader move toward or away from that.
#pragma once
#include <string>
#include <vector>

#include "experiments/common.hpp"

namespace rl::experiments {

struct InitGradientsOptions {
  // n_layers: the per-layer profile's depth; placement is ignored (see placements)
  ModelOptions model = model_options(12, decoder::NormKind::layernorm, decoder::InitScheme::normal);
  std::vector<decoder::Placement> placements = {decoder::Placement::post, decoder::Placement::pre};
  std::vector<int> depths = {6, 12, 24, 48};  // for the last-layer-vs-depth curve
  int samples = 2;                            // text windows in the batch
};

struct InitGradientsResult {
  std::string error;
  int layers = 0;
  // [placements, layers], placement-major
  std::vector<double> attn_grad_norm;      // ||grad|| of q, k, v, o together
  std::vector<double> mlp_up_grad_norm;    // mlp.up (W^1)
  std::vector<double> mlp_down_grad_norm;  // mlp.down (W^2 in the paper)
  std::vector<double> loss;                // [placements] loss at init (about ln 38 = 3.64 for every one)
  // [placements, depths]: the last layer's mlp.down gradient norm for a model of that depth
  std::vector<double> last_layer_mlp_grad_norm;
};

std::string validate(const InitGradientsOptions& options);

InitGradientsResult init_gradients(const InitGradientsOptions& options);

}  // namespace rl::experiments
