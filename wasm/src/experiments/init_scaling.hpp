// Experiment 6: GPT-2's 1/sqrt(2L) scaling of the projections that write into the residual stream.
//
// Under pre-norm the final stream is the embedding plus 2L increments (an attention and an MLP output per layer).
// At initialisation the increments are nearly independent with comparable variance v each, so the stream's
// per-coordinate variance is about var(embedding) + 2L v: it grows linearly with depth. Scaling attn.o and
// mlp.down by 1/sqrt(2L) scales each increment's variance by 1/(2L), so the sum stays about var(embedding) + v
// at every depth. The measurement reads the stream's mean square (||h||^2 / d, averaged over positions) on one
// fixed text window.
#pragma once
#include <string>
#include <vector>

#include "experiments/common.hpp"

namespace rl::experiments {

struct InitScalingOptions {
  ModelOptions model;  // n_layers is ignored (see depths); init.residual_scaling is set by the experiment
  std::vector<int> depths = {1, 2, 4, 8, 16, 32, 64};
};

struct InitScalingResult {
  std::string error;
  // [depths] per-coordinate mean square of the last stream point (before any final norm)
  std::vector<double> final_variance_plain, final_variance_scaled;
  // for the deepest model: [2 * max_depth + 1] the mean square at every stream point
  std::vector<double> profile_plain, profile_scaled;
};

std::string validate(const InitScalingOptions& options);

InitScalingResult init_scaling(const InitScalingOptions& options);

}  // namespace rl::experiments
