#include "train/adamw.hpp"

#include <cmath>

namespace rl::train {

std::string validate(const AdamWConfig& c) {
  if (!(c.beta1 >= 0.0 && c.beta1 < 1.0)) return "AdamW beta1 must be in [0, 1)";
  if (!(c.beta2 >= 0.0 && c.beta2 < 1.0)) return "AdamW beta2 must be in [0, 1)";
  if (!(c.eps > 0.0 && std::isfinite(c.eps))) return "AdamW eps must be a positive finite number";
  if (!(c.weight_decay >= 0.0 && std::isfinite(c.weight_decay))) return "AdamW weight decay must be finite and >= 0";
  return {};
}

AdamW::AdamW(size_t n_params, const AdamWConfig& config) : config_(config), m_(n_params, 0.0f), v_(n_params, 0.0f) {}

bool AdamW::set_decay_mask(const std::vector<uint8_t>& mask) {
  if (mask.size() != m_.size()) return false;
  decay_mask_ = mask;
  return true;
}

void AdamW::step(float* params, const float* grads, double lr) {
  ++t_;
  const double b1 = config_.beta1, b2 = config_.beta2;
  const double step_size = lr / (1.0 - std::pow(b1, double(t_)));        // lr / (1 - beta1^t)
  const double inv_sqrt_bc2 = 1.0 / std::sqrt(1.0 - std::pow(b2, double(t_)));  // 1 / sqrt(1 - beta2^t)
  const double decay = 1.0 - lr * config_.weight_decay;
  const bool masked = !decay_mask_.empty();
  for (size_t i = 0; i < m_.size(); ++i) {
    const double g = grads[i];
    double p = params[i];
    if (!masked || decay_mask_[i]) p *= decay;  // decoupled weight decay
    const double m = b1 * m_[i] + (1.0 - b1) * g;
    const double v = b2 * v_[i] + (1.0 - b2) * g * g;
    m_[i] = float(m);
    v_[i] = float(v);
    p -= step_size * m / (std::sqrt(v) * inv_sqrt_bc2 + config_.eps);
    params[i] = float(p);
  }
}

double global_norm(const float* grads, size_t n) {
  double sum = 0.0;
  for (size_t i = 0; i < n; ++i) sum += double(grads[i]) * double(grads[i]);
  return std::sqrt(sum);
}

double clip_global_norm(float* grads, size_t n, double max_norm) {
  const double norm = global_norm(grads, n);
  if (max_norm > 0.0 && std::isfinite(norm) && norm > max_norm) {
    const float scale = float(max_norm / (norm + 1e-6));
    for (size_t i = 0; i < n; ++i) grads[i] *= scale;
  }
  return norm;
}

}  // namespace rl::train
