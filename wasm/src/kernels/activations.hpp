// Soft-capping and softmax, forward and backward. Backward ACCUMULATES (+=) into dx (see norms.hpp).
#pragma once

namespace rl {

// y = cap * tanh(x / cap): about x for |x| << cap, smoothly bounded by +-cap (Gemma 2: 50 on attention logits,
// 30 on final logits). cap > 0.
void softcap_forward(float* y, const float* x, int n, float cap);
// dx += dy * (1 - tanh^2(x / cap))
void softcap_backward(float* dx, const float* dy, const float* x, int n, float cap);
// dx += dy * (1 - (y / cap)^2): the same derivative from the capped values y = cap tanh(x / cap), for a caller that
// keeps only those (a checkpoint's logits are capped in place)
void softcap_backward_from_output(float* dx, const float* dy, const float* y, int n, float cap);

// Row-wise over [rows, n]: y_j = exp(x_j - max(x)) / sum_k exp(x_k - max(x)); subtracting the row max keeps
// every exponent <= 0, so nothing overflows and the largest term is exactly 1.
void softmax_forward(float* y, const float* x, int rows, int n);
// dx_j += y_j * (dy_j - sum_k dy_k * y_k)
void softmax_backward(float* dx, const float* dy, const float* y, int rows, int n);

}  // namespace rl
