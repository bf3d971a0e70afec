#include "checkpoint/loss.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/activations.hpp"

namespace rl::checkpoint {

double cross_entropy_backward(float* dz, const float* z, int V, int token, float weight, float cap, float* scratch) {
  const float max = *std::max_element(z, z + V);
  double sum = 0;
  for (int j = 0; j < V; ++j) sum += std::exp(double(z[j]) - max);
  // dloss/dz after the cap, then through the cap
  float* dy = cap > 0 ? scratch : dz;
  for (int j = 0; j < V; ++j) dy[j] = float(weight * (std::exp(double(z[j]) - max) / sum - (j == token ? 1.0 : 0.0)));
  if (cap > 0) {
    std::fill(dz, dz + V, 0.0f);
    softcap_backward_from_output(dz, dy, z, V, cap);
  }
  return weight * (max + std::log(sum) - z[token]);
}

}  // namespace rl::checkpoint
