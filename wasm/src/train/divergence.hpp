// Divergence detection for a training run: the status is reported to the caller, never hidden or "fixed".
//
// A run has diverged when
//   - the loss is NaN or infinite (nonfinite_loss), or
//   - the gradient norm is NaN or infinite (nonfinite_gradient; the trainer skips that update), or
//   - one step's loss jumps far above the running level (loss_exploded, from the second step on):
//       exploded  if loss_t > spike_factor * smoothed_{t-1}   (once there is a smoothed_{t-1})
//     The smoothing starts at the first loss, so the second step is compared with it. Cross-entropy does not jump
//     tenfold from one healthy batch to the next; this flags a blow-up on the step it happens, or
//   - the smoothed loss climbs far above the best it has reached (loss_exploded):
//       smoothed_t = beta * smoothed_{t-1} + (1 - beta) * loss_t        (starts at the first finite loss)
//       best_t     = min over s <= t of smoothed_s
//       exploded  if t >= warmup_observations and smoothed_t > explode_factor * best_t
//     Smoothing keeps one hard batch (one 128-token sequence per step is noisy) from counting as divergence.
// The first divergence is latched: diverged() stays true and first_divergent_step() says when it happened.
#pragma once
#include <string>

namespace rl::train {

enum class TrainStatus { ok = 0, nonfinite_loss = 1, nonfinite_gradient = 2, loss_exploded = 3 };

const char* status_name(TrainStatus status);  // "ok", "nonfinite_loss", ...

struct DivergenceConfig {
  double smoothing = 0.9;        // beta of the loss average
  double explode_factor = 1.5;   // how far above its best the smoothed loss may climb
  int warmup_observations = 10;  // steps before an explosion of the smoothed loss can be declared
  double spike_factor = 10.0;    // how far above the previous smoothed loss one step's loss may jump
};

std::string validate(const DivergenceConfig& config);

class DivergenceMonitor {
 public:
  explicit DivergenceMonitor(const DivergenceConfig& config = {}) : config_(config) {}

  // Records one step; returns that step's status (ok for a healthy step, even after an earlier divergence).
  TrainStatus observe(double loss, double grad_norm);

  bool diverged() const { return first_divergent_step_ >= 0; }
  TrainStatus first_status() const { return first_status_; }
  int first_divergent_step() const { return first_divergent_step_; }  // -1 if none
  double smoothed_loss() const { return smoothed_; }
  int observations() const { return count_; }

 private:
  DivergenceConfig config_;
  double smoothed_ = 0.0, best_ = 0.0;
  int count_ = 0;
  int finite_losses_ = 0;  // the smoothing starts at the first finite loss
  int first_divergent_step_ = -1;
  TrainStatus first_status_ = TrainStatus::ok;
};

}  // namespace rl::train
