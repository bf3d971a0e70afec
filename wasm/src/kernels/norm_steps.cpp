#include "kernels/norm_steps.hpp"

#include <cmath>

namespace rl {

RmsNormSteps rmsnorm_steps(const float* x, const float* g, int d, float eps, float weight_offset) {
  RmsNormSteps s;
  s.squares.resize(d);
  s.normalized.resize(d);
  s.output.resize(d);
  float sum = 0.0f;
  for (int i = 0; i < d; ++i) {
    s.squares[i] = x[i] * x[i];
    sum += s.squares[i];
  }
  s.mean_square = sum / static_cast<float>(d);
  s.rms = std::sqrt(s.mean_square + eps);
  for (int i = 0; i < d; ++i) {
    s.normalized[i] = x[i] / s.rms;
    s.output[i] = s.normalized[i] * (weight_offset + (g == nullptr ? 1.0f : g[i]));
  }
  return s;
}

LayerNormSteps layernorm_steps(const float* x, const float* gamma, const float* beta, int d, float eps) {
  LayerNormSteps s;
  s.centered.resize(d);
  s.normalized.resize(d);
  s.output.resize(d);
  float sum = 0.0f;
  for (int i = 0; i < d; ++i) sum += x[i];
  s.mean = sum / static_cast<float>(d);
  float sum_sq = 0.0f;
  for (int i = 0; i < d; ++i) {
    s.centered[i] = x[i] - s.mean;
    sum_sq += s.centered[i] * s.centered[i];
  }
  s.variance = sum_sq / static_cast<float>(d);
  s.std = std::sqrt(s.variance + eps);
  for (int i = 0; i < d; ++i) {
    s.normalized[i] = s.centered[i] / s.std;
    s.output[i] = s.normalized[i] * (gamma == nullptr ? 1.0f : gamma[i]) + (beta == nullptr ? 0.0f : beta[i]);
  }
  return s;
}

}  // namespace rl
