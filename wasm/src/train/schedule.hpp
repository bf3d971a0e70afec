// Learning-rate schedule: linear warmup, then constant or cosine decay.
//   step s = 0, 1, ... counts updates already taken (s = 0 is the first update).
//   warmup (s < W):          lr = peak * (s + 1) / W        (the first update is already nonzero)
//   constant (s >= W):       lr = peak
//   cosine (s >= W):         lr = floor + (peak - floor) * (1 + cos(pi * p)) / 2,  p = min(1, (s - W) / (T - W)),
//                            floor = peak * final_ratio, so lr = peak at s = W and lr = floor from s = T on.
#pragma once
#include <string>

namespace rl::train {

enum class LrDecay { constant, cosine };

struct LrSchedule {
  double peak_lr = 1e-3;
  int warmup_steps = 0;
  LrDecay decay = LrDecay::constant;
  int total_steps = 1000;    // T: where cosine decay reaches the floor
  double final_ratio = 0.1;  // floor as a fraction of the peak
};

std::string validate(const LrSchedule& schedule);

double learning_rate(const LrSchedule& schedule, int step);

}  // namespace rl::train
