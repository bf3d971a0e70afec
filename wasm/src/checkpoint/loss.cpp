#include "checkpoint/loss.hpp"

#include <algorithm>
#include <cmath>

#include "kernels/activations.hpp"
#include "kernels/vector_math.hpp"

namespace rl::checkpoint {

using simd::f32x4;

double cross_entropy_backward(float* dz, const float* z, int V, int token, float weight, float cap, float* scratch) {
  const float max = *std::max_element(z, z + V);
  // dloss/dz after the cap, then through the cap: e_j = exp(z_j - max) once, four lanes at a time (vmath::exp,
  // within a few float32 ulp), summed in double; dy_j = weight (e_j / sum - [j = token])
  float* dy = cap > 0 ? scratch : dz;
  vmath::for_lanes<1, 1>(V, {z}, {dy}, [max](const f32x4* in, f32x4* out) { out[0] = vmath::exp(in[0] - max); });
  double sum = 0;
  for (int j = 0; j < V; ++j) sum += dy[j];
  const double scale = weight / sum, at_token = dy[token] * scale - weight;
  for (int j = 0; j < V; ++j) dy[j] = float(dy[j] * scale);
  dy[token] = float(at_token);
  if (cap > 0) {
    std::fill(dz, dz + V, 0.0f);
    softcap_backward_from_output(dz, dy, z, V, cap);
  }
  return weight * (max + std::log(sum) - z[token]);
}

}  // namespace rl::checkpoint
