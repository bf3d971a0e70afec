#include "experiments/qk_logit_growth.hpp"

#include "experiments/options.hpp"

#include <algorithm>
#include <cmath>

namespace rl::experiments {

std::string validate(const QkLogitGrowthOptions& o) {
  if (std::string e = check_items(option_table("qkLogitGrowth"), "gains", o.gains); !e.empty()) return e;
  if (o.model.init.zero_qk) return "zeroQK would make every gain the same: turn it off for this experiment";
  return validate(o.model);
}

QkLogitGrowthResult qk_logit_growth(const QkLogitGrowthOptions& o) {
  QkLogitGrowthResult r;
  r.error = validate(o);
  if (!r.error.empty()) return r;
  r.bound = std::sqrt(double(o.model.d_model / o.model.n_heads));
  const train::Sequence window = probe_windows(o.model.context_length, 1).at(0);
  for (bool qk_norm : {false, true}) {
    for (double gain : o.gains) {
      ModelOptions mo = o.model;
      mo.qk_norm = qk_norm;
      mo.init.qk_gain = float(gain);
      auto model = build_model(mo, &r.error);
      if (!model) return r;
      r.error = model->forward(window.tokens);
      if (!r.error.empty()) return r;
      const decoder::ForwardStats stats = model->forward_stats();
      const double max_logit = *std::max_element(stats.max_attn_logit.begin(), stats.max_attn_logit.end());
      double entropy = 0.0;
      for (float e : stats.attn_entropy) entropy += e;
      entropy /= double(stats.attn_entropy.size());
      (qk_norm ? r.max_logit_qk_norm : r.max_logit_plain).push_back(max_logit);
      (qk_norm ? r.entropy_qk_norm : r.entropy_plain).push_back(entropy);
      if (!qk_norm)
        r.layer0_max_logit_plain.push_back(
            *std::max_element(stats.max_attn_logit.begin(), stats.max_attn_logit.begin() + o.model.n_heads));
    }
  }
  return r;
}

}  // namespace rl::experiments
