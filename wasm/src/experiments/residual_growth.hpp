// Experiment 3: how the residual stream grows under pre-norm, h <- h + F(Norm(h)).
//
// Nothing on the trunk is ever normalised, so its norm is the length of a sum of increments: it starts at the
// embedding and grows layer by layer, while each increment F(Norm(h)) has a scale fixed by its weights (its
// input is normalised). The increment-to-stream ratio |F| / |h| therefore falls with depth: the later layers make
// relatively smaller edits. The chapter measured this shape on Qwen2.5-0.5B (24 layers, d = 896): 0.47 at the
// embedding, 4.8 after layer 0, 15 to 20 through the middle, 76 after layer 22, increments mostly 1 to 15.
// At initialisation (std 0.02) the lab's decoder's increments are tiny and the trunk barely moves; the pattern comes
// from training, so the experiment can train the model for `train_steps` steps on the shipped corpus first.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "experiments/common.hpp"

namespace rl::experiments {

struct ResidualGrowthOptions {
  // placement defaults to pre; any placement is accepted and measured as it is
  ModelOptions model = model_options(8, decoder::NormKind::rmsnorm, decoder::InitScheme::normal);
  int train_steps = 0;  // AdamW steps (lr below, no warmup, clip 1) before measuring
  double lr = 1e-3;
};

struct ResidualGrowthResult {
  std::string error;
  std::vector<double> stream_norm;      // [2L + 1] mean over positions of |h_t|; 0 = embedding, 2l+1 after
                                        // layer l's attention, 2l+2 after its MLP
  std::vector<double> increment_norm;   // [2L] mean |increment_t| of each sublayer
  std::vector<double> increment_ratio;  // [2L] mean over t of |increment_t| / |h_t| (h entering the sublayer)
  std::vector<double> train_loss;       // [train_steps] the loss of each training step
  double loss = 0;                      // loss on the measured window
};

// Called after each training step with (done, total); returning false stops and reports "cancelled".
using Progress = std::function<bool(int done, int total)>;

std::string validate(const ResidualGrowthOptions& options);

ResidualGrowthResult residual_growth(const ResidualGrowthOptions& options, const Progress& progress = {});

}  // namespace rl::experiments
