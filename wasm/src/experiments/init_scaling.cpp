#include "experiments/init_scaling.hpp"

#include "experiments/options.hpp"

#include <algorithm>

namespace rl::experiments {

std::string validate(const InitScalingOptions& o) {
  if (std::string e = check_items(option_table("initScaling"), "depths", o.depths); !e.empty()) return e;
  ModelOptions deepest = o.model;
  deepest.n_layers = *std::max_element(o.depths.begin(), o.depths.end());
  return validate(deepest);
}

InitScalingResult init_scaling(const InitScalingOptions& o) {
  InitScalingResult r;
  r.error = validate(o);
  if (!r.error.empty()) return r;
  const train::Sequence window = probe_windows(o.model.context_length, 1).at(0);
  const int deepest = *std::max_element(o.depths.begin(), o.depths.end());
  for (bool scaled : {false, true}) {
    for (int depth : o.depths) {
      ModelOptions mo = o.model;
      mo.n_layers = depth;
      mo.init.residual_scaling = scaled;
      auto model = build_model(mo, &r.error);
      if (!model) return r;
      r.error = model->forward(window.tokens);
      if (!r.error.empty()) return r;
      const std::vector<double> profile = stream_mean_square(*model);
      (scaled ? r.final_variance_scaled : r.final_variance_plain).push_back(profile.back());
      if (depth == deepest && (scaled ? r.profile_scaled : r.profile_plain).empty())
        (scaled ? r.profile_scaled : r.profile_plain) = profile;
    }
  }
  return r;
}

}  // namespace rl::experiments
