#include "train/adamw.hpp"

#include <cmath>

#include "kernels/simd.hpp"

namespace rl::train {
namespace {
inline float simd_sqrt(float x) { return std::sqrt(x); }
inline simd::f32x4 simd_sqrt(simd::f32x4 x) { return simd::sqrt(x); }
}  // namespace

std::string validate(const AdamWConfig& c) {
  if (!(c.beta1 >= 0.0 && c.beta1 < 1.0)) return "AdamW beta1 must be in [0, 1)";
  if (!(c.beta2 >= 0.0 && c.beta2 < 1.0)) return "AdamW beta2 must be in [0, 1)";
  if (!(c.eps > 0.0 && std::isfinite(c.eps))) return "AdamW eps must be a positive finite number";
  if (!(c.weight_decay >= 0.0 && std::isfinite(c.weight_decay))) return "AdamW weight decay must be finite and >= 0";
  return {};
}

AdamW::AdamW(size_t n_params, const AdamWConfig& config) : config_(config), m_(n_params, 0.0f), v_(n_params, 0.0f) {
  decay_runs_.push_back({0, n_params, true});
}

bool AdamW::set_decay_mask(const std::vector<uint8_t>& mask) {
  if (mask.size() != m_.size()) return false;
  decay_runs_.clear();
  for (size_t i = 0; i < mask.size();) {
    size_t j = i + 1;
    while (j < mask.size() && (mask[j] != 0) == (mask[i] != 0)) ++j;
    decay_runs_.push_back({i, j, mask[i] != 0});
    i = j;
  }
  return true;
}

namespace {

struct StepFactors {
  float decay, beta1, one_minus_beta1, beta2, one_minus_beta2, step_size, inv_sqrt_bc2, eps;
};

// The update of one parameter; the vector loop below computes the same expression four lanes at a time.
template <class T>
inline void update(T& p, T g, T& m, T& v, const StepFactors& f, float decay) {
  p = p * decay;  // decoupled weight decay
  m = f.beta1 * m + f.one_minus_beta1 * g;
  v = f.beta2 * v + f.one_minus_beta2 * (g * g);
  p = p - f.step_size * m / (simd_sqrt(v) * f.inv_sqrt_bc2 + f.eps);
}

}  // namespace

void AdamW::step(float* params, const float* grads, double lr, float grad_scale) {
  ++t_;
  const double b1 = config_.beta1, b2 = config_.beta2;
  const StepFactors f{
      float(1.0 - lr * config_.weight_decay),
      float(b1),
      float(1.0 - b1),
      float(b2),
      float(1.0 - b2),
      float(lr / (1.0 - std::pow(b1, double(t_)))),            // lr / (1 - beta1^t)
      float(1.0 / std::sqrt(1.0 - std::pow(b2, double(t_)))),  // 1 / sqrt(1 - beta2^t)
      float(config_.eps),
  };
  using simd::f32x4;
  for (const DecayRun& run : decay_runs_) {
    const float decay = run.decays ? f.decay : 1.0f;
    size_t i = run.begin;
    for (; i + simd::kLanes <= run.end; i += simd::kLanes) {
      f32x4 p = simd::load(params + i), m = simd::load(m_.data() + i), v = simd::load(v_.data() + i);
      update(p, simd::load(grads + i) * grad_scale, m, v, f, decay);
      simd::store(params + i, p);
      simd::store(m_.data() + i, m);
      simd::store(v_.data() + i, v);
    }
    for (; i < run.end; ++i) update(params[i], grads[i] * grad_scale, m_[i], v_[i], f, decay);
  }
}

double global_norm(const float* grads, size_t n) {
  // Squares summed in double, two lanes at a time in four accumulators (a dependency chain of one add each).
  typedef double f64x2 __attribute__((vector_size(16)));
  f64x2 acc[4] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int k = 0; k < 2; ++k) {
      const simd::f32x4 g = simd::load(grads + i + 4 * k);
      const f64x2 lo = __builtin_convertvector(__builtin_shufflevector(g, g, 0, 1), f64x2);
      const f64x2 hi = __builtin_convertvector(__builtin_shufflevector(g, g, 2, 3), f64x2);
      acc[2 * k] += lo * lo;
      acc[2 * k + 1] += hi * hi;
    }
  }
  const f64x2 total = (acc[0] + acc[1]) + (acc[2] + acc[3]);
  double sum = total[0] + total[1];
  for (; i < n; ++i) sum += double(grads[i]) * double(grads[i]);
  return std::sqrt(sum);
}

float clip_scale(double norm, double max_norm) {
  return max_norm > 0.0 && std::isfinite(norm) && norm > max_norm ? float(max_norm / (norm + 1e-6)) : 1.0f;
}

double clip_global_norm(float* grads, size_t n, double max_norm) {
  const double norm = global_norm(grads, n);
  const float scale = clip_scale(norm, max_norm);
  if (scale != 1.0f)
    for (size_t i = 0; i < n; ++i) grads[i] *= scale;
  return norm;
}

}  // namespace rl::train
