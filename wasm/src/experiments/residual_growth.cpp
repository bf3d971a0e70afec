#include "experiments/residual_growth.hpp"

#include "experiments/options.hpp"

#include <cmath>

#include "train/loop.hpp"

namespace rl::experiments {

std::string validate(const ResidualGrowthOptions& o) {
  const options::Table& t = option_table("residualGrowth");
  for (const std::string& e : {options::check(t, "trainSteps", o.train_steps), options::check(t, "lr", o.lr)})
    if (!e.empty()) return e;
  return validate(o.model);
}

ResidualGrowthResult residual_growth(const ResidualGrowthOptions& o, const Progress& progress) {
  ResidualGrowthResult r;
  r.error = validate(o);
  if (!r.error.empty()) return r;
  auto model = build_model(o.model, &r.error);
  if (!model) return r;
  if (o.train_steps > 0) {
    train::TrainOptions to;
    to.schedule.peak_lr = o.lr;
    to.seq_len = o.model.context_length;
    to.data_seed = o.model.init.seed;
    auto trainer = train::Trainer::create(*model, to, &r.error);
    if (!trainer) return r;
    for (int s = 0; s < o.train_steps; ++s) {
      const train::StepReport step = trainer->step();
      if (!step.error.empty()) {
        r.error = step.error;
        return r;
      }
      r.train_loss.push_back(step.loss);
      if (progress && !progress(s + 1, o.train_steps)) {
        r.error = "cancelled";
        return r;
      }
    }
  }
  // measure on one fixed window of the training text, the same for every setting
  const train::Sequence window = probe_windows(o.model.context_length, 1).at(0);
  r.error = model->forward(window.tokens, window.targets);
  if (!r.error.empty()) return r;
  r.loss = model->loss();
  const decoder::ForwardStats stats = model->forward_stats();
  r.stream_norm.assign(stats.stream_norm_mean.begin(), stats.stream_norm_mean.end());
  r.increment_norm.assign(stats.increment_norm_mean.begin(), stats.increment_norm_mean.end());
  r.increment_ratio.assign(stats.increment_ratio.begin(), stats.increment_ratio.end());
  return r;
}

}  // namespace rl::experiments
