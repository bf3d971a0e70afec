#include "train/divergence.hpp"

#include <algorithm>
#include <cmath>

namespace rl::train {

const char* status_name(TrainStatus status) {
  switch (status) {
    case TrainStatus::ok: return "ok";
    case TrainStatus::nonfinite_loss: return "nonfinite_loss";
    case TrainStatus::nonfinite_gradient: return "nonfinite_gradient";
    case TrainStatus::loss_exploded: return "loss_exploded";
  }
  return "unknown";
}

std::string validate(const DivergenceConfig& c) {
  if (!(c.smoothing >= 0.0 && c.smoothing < 1.0)) return "divergence smoothing must be in [0, 1)";
  if (!(c.explode_factor > 1.0 && std::isfinite(c.explode_factor))) return "explode factor must be a finite number > 1";
  if (c.warmup_observations < 1) return "divergence warmup observations must be >= 1";
  if (!(c.spike_factor > 1.0 && std::isfinite(c.spike_factor))) return "spike factor must be a finite number > 1";
  return {};
}

TrainStatus DivergenceMonitor::observe(double loss, double grad_norm) {
  const int step = count_++;
  TrainStatus status = TrainStatus::ok;
  if (!std::isfinite(loss)) {
    status = TrainStatus::nonfinite_loss;
  } else {
    const bool first = finite_losses_++ == 0;
    const bool spiked = !first && loss > config_.spike_factor * smoothed_;  // smoothed_ of the steps before
    smoothed_ = first ? loss : config_.smoothing * smoothed_ + (1.0 - config_.smoothing) * loss;
    best_ = first ? smoothed_ : std::min(best_, smoothed_);
    if (!std::isfinite(grad_norm)) {
      status = TrainStatus::nonfinite_gradient;
    } else if (spiked || (count_ >= config_.warmup_observations && smoothed_ > config_.explode_factor * best_)) {
      status = TrainStatus::loss_exploded;
    }
  }
  if (status != TrainStatus::ok && first_divergent_step_ < 0) {
    first_divergent_step_ = step;
    first_status_ = status;
  }
  return status;
}

}  // namespace rl::train
