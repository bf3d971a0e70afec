// Experiment 5: the QK-Norm bound on attention logits.
//
// The attention logit is s = q.k / sqrt(d_head). Multiplying the q and k weights by a gain g multiplies q and k
// by g, so without QK-Norm s grows like g^2 (exactly, in layer 0, whose input does not depend on g), the softmax
// sharpens and its entropy falls toward 0 (one key takes all the weight).
// QK-Norm applies RMSNorm to each head's q and k: with weight 1, |q^| = |k^| = sqrt(d_head) (up to eps), so by
// Cauchy-Schwarz s = q^.k^ / sqrt(d_head) <= sqrt(d_head), whatever g is: 4 for d_head = 16, 11.3 for the
// chapter's d_head = 128. And because RMSNorm is scale-invariant, the gain drops out altogether.
#pragma once
#include <string>
#include <vector>

#include "experiments/common.hpp"

namespace rl::experiments {

struct QkLogitGrowthOptions {
  // qk_norm and init.qk_gain are set by the experiment
  ModelOptions model = model_options(2, decoder::NormKind::rmsnorm, decoder::InitScheme::normal);
  std::vector<double> gains = {1, 2, 4, 8, 16, 32, 64};
};

struct QkLogitGrowthResult {
  std::string error;
  double bound = 0;  // sqrt(d_head)
  // [gains] without and with QK-Norm: the largest logit over all layers, heads and causal pairs
  std::vector<double> max_logit_plain, max_logit_qk_norm;
  std::vector<double> layer0_max_logit_plain;  // layer 0 alone: exactly proportional to gain^2
  // [gains] softmax entropy in nats, mean over layers, heads and query positions
  std::vector<double> entropy_plain, entropy_qk_norm;
};

std::string validate(const QkLogitGrowthOptions& options);

QkLogitGrowthResult qk_logit_growth(const QkLogitGrowthOptions& options);

}  // namespace rl::experiments
