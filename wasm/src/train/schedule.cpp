#include "train/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace rl::train {

std::string validate(const LrSchedule& s) {
  if (!(s.peak_lr > 0.0 && std::isfinite(s.peak_lr))) return "learning rate must be a positive finite number";
  if (s.warmup_steps < 0) return "warmup steps must be >= 0";
  if (s.total_steps < 1) return "total steps must be >= 1";
  if (s.decay == LrDecay::cosine && s.warmup_steps >= s.total_steps)
    return "cosine decay needs warmup steps < total steps";
  if (!(s.final_ratio >= 0.0 && s.final_ratio <= 1.0)) return "final learning-rate ratio must be in [0, 1]";
  return {};
}

double learning_rate(const LrSchedule& s, int step) {
  if (step < s.warmup_steps) return s.peak_lr * double(step + 1) / double(s.warmup_steps);
  if (s.decay == LrDecay::constant) return s.peak_lr;
  const double span = double(std::max(1, s.total_steps - s.warmup_steps));
  const double progress = std::min(1.0, double(step - s.warmup_steps) / span);
  const double floor = s.peak_lr * s.final_ratio;
  return floor + (s.peak_lr - floor) * 0.5 * (1.0 + std::cos(std::numbers::pi * progress));
}

}  // namespace rl::train
