// Every intermediate value of one RMSNorm or LayerNorm of a single vector, in the order the chapter computes
// them by hand, so a page can step through the worked example. Plain float32 arithmetic in index order;
// the outputs agree with rmsnorm_forward / layernorm_forward to float32 rounding.
#pragma once
#include <vector>

namespace rl {

struct RmsNormSteps {
  std::vector<float> squares;     // x_i^2
  float mean_square = 0.0f;       // mean(x^2)
  float rms = 0.0f;               // sqrt(mean_square + eps)
  std::vector<float> normalized;  // x_i / rms
  std::vector<float> output;      // normalized_i * (weight_offset + g_i): the chapter's "scaled" values
};

struct LayerNormSteps {
  float mean = 0.0f;              // mean(x)
  std::vector<float> centered;    // x_i - mean
  float variance = 0.0f;          // mean(centered^2), biased (divides by d)
  float std = 0.0f;               // sqrt(variance + eps)
  std::vector<float> normalized;  // centered_i / std
  std::vector<float> output;      // normalized_i * gamma_i + beta_i
};

// g, gamma, beta may be nullptr (ones, ones, zeros). d >= 1.
RmsNormSteps rmsnorm_steps(const float* x, const float* g, int d, float eps, float weight_offset);
LayerNormSteps layernorm_steps(const float* x, const float* gamma, const float* beta, int d, float eps);

}  // namespace rl
