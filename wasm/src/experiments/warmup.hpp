// Experiment 4: learning-rate warmup, post-norm against pre-norm.
//
// Four runs train from the same initialisation seed on the same sequence of batches at the same peak learning
// rate: post-norm and pre-norm, each with a linear warmup of `warmup_steps` and without one. Xiong et al. (2020)
// found Post-LN Transformers need the warmup (without it they train badly or diverge: at init the gradients of
// the last layers are large, so Adam's early steps of full size lr disturb them most) while Pre-LN trains
// without it. The runs report their loss curves and any divergence as found; docs/experiments.md records which
// settings show the effect at this toy scale and which do not.
//
// WarmupRun advances the four runs a few steps at a time so a page or a worker can show progress and stop.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "experiments/common.hpp"
#include "train/divergence.hpp"
#include "train/loop.hpp"

namespace rl::experiments {

// The four runs, in the race's order: post-norm without and with warmup, pre-norm without and with warmup.
inline std::vector<std::string> warmup_run_names() { return {"post", "post+warmup", "pre", "pre+warmup"}; }

struct WarmupOptions {
  // placement is set per run; Xavier init is where post-norm without warmup fails (docs/experiments.md)
  ModelOptions model = model_options(6, decoder::NormKind::layernorm, decoder::InitScheme::xavier);
  int steps = 200;         // training steps per run
  double lr = 3e-3;        // the peak learning rate of every run
  int warmup_steps = 50;   // the warmed-up runs' ramp, at most steps
  double clip_norm = 0.0;  // 0 = off (clipping at 1 does not rescue post-norm here: docs/experiments.md)
  double beta2 = 0.999;
  int eval_windows = 8;  // validation windows for the final loss
  // Which of the four runs to train (names of warmup_run_names()); the result lists those, in the race's order.
  std::vector<std::string> runs = warmup_run_names();
};

struct WarmupCurve {
  decoder::Placement placement = decoder::Placement::pre;
  bool warmup = false;
  std::vector<double> loss, grad_norm, lr;             // one entry per step taken
  train::TrainStatus status = train::TrainStatus::ok;  // the first divergence, if any
  int first_divergent_step = -1;
  double final_smoothed_loss = 0;  // the divergence monitor's moving average at the end
  double eval_loss = 0;            // on the validation windows, once the run is done (NaN before)
  // Mean cosine similarity, over pairs of positions of the first validation window, of the centred logit
  // vectors, once done (NaN before). 1 means every position predicts the same distribution: the model ignores
  // its context (what post-norm without warmup collapses to in docs/experiments.md).
  double prediction_similarity = 0;
};

struct WarmupResult {
  std::string error;
  int steps_done = 0, steps_total = 0;
  std::vector<WarmupCurve> runs;  // post without, post with, pre without, pre with warmup
  double unigram_entropy = 0;     // of the training text (nats): the plateau of a run that learns no context
};

std::string validate(const WarmupOptions& options);

class WarmupRun {
 public:
  static std::unique_ptr<WarmupRun> create(const WarmupOptions& options, std::string* error);
  // Advances every run by up to n steps; returns the steps done so far (of steps_total()).
  int advance(int n);
  bool done() const { return steps_done_ >= options_.steps; }
  int steps_done() const { return steps_done_; }
  int steps_total() const { return options_.steps; }
  WarmupResult result() const;  // the curves so far; eval_loss filled once done()

 private:
  struct Run {
    std::unique_ptr<decoder::Model> model;
    std::unique_ptr<train::Trainer> trainer;
    WarmupCurve curve;
  };
  explicit WarmupRun(const WarmupOptions& options) : options_(options) {}
  WarmupOptions options_;
  std::vector<Run> runs_;
  int steps_done_ = 0;
};

// Runs all steps at once.
WarmupResult warmup(const WarmupOptions& options);

}  // namespace rl::experiments
