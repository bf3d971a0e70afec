// AdamW (Loshchilov and Hutter 2019) over one flat parameter array and its gradient array, as PyTorch's
// torch.optim.AdamW computes it, plus global-norm gradient clipping (torch.nn.utils.clip_grad_norm_).
//
// One step t = 1, 2, ... for each parameter p with gradient g:
//   p <- p * (1 - lr * weight_decay)              // decoupled decay: not part of the gradient, so Adam's
//                                                  // per-parameter scaling does not shrink it
//   m <- beta1 m + (1 - beta1) g                   // first moment
//   v <- beta2 v + (1 - beta2) g^2                 // second moment
//   p <- p - lr / (1 - beta1^t) * m / (sqrt(v) / sqrt(1 - beta2^t) + eps)   // bias-corrected update
// The per-step factors are computed in double, the per-parameter update in float32 four lanes at a time (as
// PyTorch's float32 AdamW does), in one pass over p, g, m and v.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace rl::train {

struct AdamWConfig {
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0.01;  // PyTorch's default
};

// Empty when the configuration is usable, else a message naming the bad field.
std::string validate(const AdamWConfig& config);

class AdamW {
 public:
  AdamW(size_t n_params, const AdamWConfig& config);

  // Which parameters weight decay applies to (1) or not (0), one byte each; by default all decay.
  // Usual practice decays only the matrices, not norm gains or biases. Returns false on a size mismatch.
  bool set_decay_mask(const std::vector<uint8_t>& mask);

  // One update with learning rate lr; params and grads hold n_params floats each. The update uses
  // grads[i] * grad_scale (the float32 product clip_global_norm would have stored), so clipping needs no pass of
  // its own over the gradients.
  void step(float* params, const float* grads, double lr, float grad_scale = 1.0f);

  long long steps_taken() const { return t_; }
  size_t size() const { return m_.size(); }
  const AdamWConfig& config() const { return config_; }

 private:
  AdamWConfig config_;
  std::vector<float> m_, v_;
  // The decay mask as runs of equal bytes, so the update loop applies one decay factor per run.
  struct DecayRun {
    size_t begin, end;
    bool decays;
  };
  std::vector<DecayRun> decay_runs_;  // empty mask: one run over every parameter, decaying
  long long t_ = 0;
};

// sqrt(sum g^2), accumulated in double. Infinite or NaN when any gradient is.
double global_norm(const float* grads, size_t n);

// The factor clipping applies to gradients of global norm `norm`: max_norm / (norm + 1e-6) (PyTorch's formula)
// if max_norm > 0 and the norm exceeds it, else 1 (also for a non-finite norm: the caller reports it instead).
float clip_scale(double norm, double max_norm);

// Scales grads by clip_scale(their global norm, max_norm); returns the norm before clipping.
double clip_global_norm(float* grads, size_t n, double max_norm);

}  // namespace rl::train
