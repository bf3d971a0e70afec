#include "experiments/warmup.hpp"

#include "experiments/options.hpp"

#include <algorithm>
#include <cmath>
#include <span>

namespace rl::experiments {
namespace {

// Mean over position pairs of cos(z_a - mean(z_a), z_b - mean(z_b)) for the logits z of the last forward.
double prediction_similarity(const decoder::Model& model) {
  const int T = model.seq_len(), V = model.config().vocab_size;
  const std::span<const float> logits = model.logits();
  std::vector<double> centred(size_t(T) * size_t(V));
  for (int t = 0; t < T; ++t) {
    double mean = 0.0, norm2 = 0.0;
    for (int v = 0; v < V; ++v) mean += logits[size_t(t * V + v)];
    mean /= V;
    for (int v = 0; v < V; ++v) norm2 += std::pow(logits[size_t(t * V + v)] - mean, 2);
    const double inv = norm2 > 0 ? 1.0 / std::sqrt(norm2) : 0.0;
    for (int v = 0; v < V; ++v) centred[size_t(t * V + v)] = (logits[size_t(t * V + v)] - mean) * inv;
  }
  double sum = 0.0;
  for (int a = 0; a < T; ++a)
    for (int b = a + 1; b < T; ++b) {
      double dot = 0.0;
      for (int v = 0; v < V; ++v) dot += centred[size_t(a * V + v)] * centred[size_t(b * V + v)];
      sum += dot;
    }
  return T > 1 ? sum / (0.5 * T * (T - 1)) : 1.0;
}

}  // namespace

std::string validate(const WarmupOptions& o) {
  const options::Table& t = option_table("warmup");
  for (const std::string& e :
       {options::check(t, "steps", o.steps), options::check(t, "lr", o.lr),
        options::check(t, "warmupSteps", o.warmup_steps), options::check(t, "clipNorm", o.clip_norm),
        options::check(t, "beta2", o.beta2), options::check(t, "evalWindows", o.eval_windows)})
    if (!e.empty()) return e;
  if (std::string e = check_length(t, "runs", o.runs.size()); !e.empty()) return e;
  const std::vector<std::string> names = warmup_run_names();
  for (std::size_t i = 0; i < o.runs.size(); ++i) {
    if (std::string e = options::check_choice(*options::find(t, "runs"), o.runs[i], "runs[" + std::to_string(i) + "]");
        !e.empty())
      return e;
    if (std::count(o.runs.begin(), o.runs.begin() + long(i), o.runs[i]))
      return "runs lists \"" + o.runs[i] + "\" more than once";
  }
  if (o.warmup_steps > o.steps)
    return "warmupSteps (" + std::to_string(o.warmup_steps) + ") must not exceed steps (" + std::to_string(o.steps) +
           ")";
  return validate(o.model);
}

std::unique_ptr<WarmupRun> WarmupRun::create(const WarmupOptions& o, std::string* error) {
  std::string message = validate(o);
  std::unique_ptr<WarmupRun> run(new WarmupRun(o));
  // post without, post with, pre without, pre with warmup; same init seed and same batches for all four, so a
  // run's curves do not depend on which others train beside it
  const std::vector<std::string> names = warmup_run_names();
  for (int i = 0; i < 4 && message.empty(); ++i) {
    if (std::find(o.runs.begin(), o.runs.end(), names[size_t(i)]) == o.runs.end()) continue;
    Run r;
    ModelOptions mo = o.model;
    mo.placement = i < 2 ? decoder::Placement::post : decoder::Placement::pre;
    r.model = build_model(mo, &message);
    if (!r.model) break;
    train::TrainOptions to;
    to.schedule.peak_lr = o.lr;
    to.schedule.warmup_steps = i % 2 == 1 ? o.warmup_steps : 0;
    to.adamw.beta2 = o.beta2;
    to.clip_norm = o.clip_norm;
    to.seq_len = o.model.context_length;
    to.data_seed = o.model.init.seed;
    r.trainer = train::Trainer::create(*r.model, to, &message);
    if (!r.trainer) break;
    r.curve.placement = mo.placement;
    r.curve.warmup = i % 2 == 1;
    r.curve.eval_loss = std::nan("");
    r.curve.prediction_similarity = std::nan("");
    run->runs_.push_back(std::move(r));
  }
  if (error) *error = message;
  return message.empty() ? std::move(run) : nullptr;
}

int WarmupRun::advance(int n) {
  const int target = std::min(options_.steps, steps_done_ + std::max(0, n));
  for (Run& r : runs_) {
    for (int s = steps_done_; s < target; ++s) {
      const train::StepReport step = r.trainer->step();
      r.curve.loss.push_back(step.loss);
      r.curve.grad_norm.push_back(step.grad_norm);
      r.curve.lr.push_back(step.lr);
    }
    const train::DivergenceMonitor& m = r.trainer->monitor();
    r.curve.status = m.first_status();
    r.curve.first_divergent_step = m.first_divergent_step();
    r.curve.final_smoothed_loss = m.smoothed_loss();
    if (target == options_.steps && std::isnan(r.curve.eval_loss)) {
      r.curve.eval_loss = r.trainer->evaluate(options_.eval_windows);
      const train::Sequence window =
          train::fixed_windows(train::shipped_corpus().validation, options_.model.context_length, 1).at(0);
      if (r.model->forward(window.tokens).empty()) r.curve.prediction_similarity = prediction_similarity(*r.model);
    }
  }
  steps_done_ = target;
  return steps_done_;
}

WarmupResult WarmupRun::result() const {
  WarmupResult out;
  out.steps_done = steps_done_;
  out.steps_total = options_.steps;
  out.unigram_entropy = train::unigram_entropy(train::shipped_corpus().train);
  for (const Run& r : runs_) out.runs.push_back(r.curve);
  return out;
}

WarmupResult warmup(const WarmupOptions& options) {
  std::string error;
  auto run = WarmupRun::create(options, &error);
  if (!run) {
    WarmupResult r;
    r.error = error;
    return r;
  }
  run->advance(options.steps);
  return run->result();
}

}  // namespace rl::experiments
