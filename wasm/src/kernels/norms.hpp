// Normalization kernels: RMSNorm (Llama and Gemma conventions), LayerNorm and Dynamic Tanh, forward and backward.
//
// Layout: row-major [rows, d]; each row is normalized on its own. Arguments: what is written, then what is read,
// then sizes and options. Forward: outputs, saved statistics, input x, parameters, rows, d, options (llm.c's
// forward order). Backward: the gradients added into (dx, then the parameters'), dy, x, the saved statistics,
// the parameters, rows, d, options (llm.c's backward takes the weight before mean and rstd instead). Weight
// pointers may be nullptr (g / gamma = ones, beta = zeros); saved-statistic outputs (rstd, mean: one float per
// row) may be nullptr.
//
// The residual rule: in backward, a layer's output gradient is read and the gradients of its input and of its
// parameters are ACCUMULATED (+=), never assigned. The norm's input x is the residual stream, which also flows
// around the sublayer; its gradient is the sum of both paths, so dx must be added to, not overwritten. Zero
// dx / dg / dgamma / dbeta yourself before the first contribution.
#pragma once

namespace rl {

// The statistics of one row of d floats, exactly as the forwards below compute them (the validated API's
// backwards and checks use these instead of running a whole forward).
float rmsnorm_rstd(const float* x, int d, float eps);  // 1 / sqrt(mean(x^2) + eps), the sum of squares in float32
// The same from the sum of squares the caller already took with simd::sum_of_squares(x, d): bit for bit equal.
float rmsnorm_rstd_given(float sum_of_squares, int d, float eps);
struct LayerNormStats {
  float mean, variance, rstd;  // variance biased and two-pass; rstd = 1 / sqrt(variance + eps)
};
LayerNormStats layernorm_stats(const float* x, int d, float eps);

// y = x * rstd * (weight_offset + g),  rstd = 1 / sqrt(mean(x^2) + eps); the sum of squares is in float32.
// weight_offset 0 is the Llama convention (y = x / rms * g), 1 is Gemma 2/3 (y = x / rms * (1 + g)).
void rmsnorm_forward(float* y, float* rstd, const float* x, const float* g, int rows, int d, float eps,
                     float weight_offset);
// One row of rmsnorm_forward given its rstd (from rmsnorm_rstd_given): the pass over x for the statistics saved.
void rmsnorm_forward_row(float* y, const float* x, const float* g, int d, float rstd, float weight_offset);

// rstd as saved by the forward (must not be nullptr). ACCUMULATES into dx and dg (dg may be nullptr).
void rmsnorm_backward(float* dx, float* dg, const float* dy, const float* x, const float* rstd, const float* g,
                      int rows, int d, float weight_offset);

// y = (x - mean) * rstd * gamma + beta,  rstd = 1 / sqrt(var + eps), var = mean((x - mean)^2) (biased).
void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma, const float* beta,
                       int rows, int d, float eps);

// mean and rstd as saved by the forward (must not be nullptr). ACCUMULATES into dx, dgamma and dbeta
// (dgamma and dbeta may be nullptr). beta does not enter the gradients.
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x, const float* mean,
                        const float* rstd, const float* gamma, int rows, int d);

// Dynamic Tanh (Zhu et al. 2025, "Transformers without Normalization"), the elementwise stand-in for a norm:
//   y = gamma * tanh(alpha * x) + beta,  alpha one learnable scalar per layer (initialised to 0.5).
// No row statistics: every element is independent. gamma / beta may be nullptr (ones / zeros).
void dyt_forward(float* y, const float* x, float alpha, const float* gamma, const float* beta, int rows, int d);

// With t_i = tanh(alpha * x_i) and dtanh = 1 - t^2, ACCUMULATES:
//   dx_i     += dy_i * gamma_i * (1 - t_i^2) * alpha
//   dalpha   += sum over rows and i of dy_i * gamma_i * (1 - t_i^2) * x_i   (one float, summed in double)
//   dgamma_i += sum over rows of dy_i * t_i
//   dbeta_i  += sum over rows of dy_i
// dalpha, dgamma and dbeta may be nullptr; gamma may be nullptr (ones). beta does not enter the gradients.
void dyt_backward(float* dx, float* dalpha, float* dgamma, float* dbeta, const float* dy, const float* x, float alpha,
                  const float* gamma, int rows, int d);

// One RMSNorm row computed the way a pipeline without float32 upcasting would: every value is a bfloat16
// (round to nearest even after each operation) and the squares are summed one by one in bfloat16:
//   xb_i  = bf16(x_i)                       the input, as stored in bf16
//   w_i   = bf16(weight_offset + bf16(g_i)) the multiplier (g = ones when nullptr)
//   sq_i  = bf16(xb_i * xb_i)               every square
//   acc   = bf16(acc + sq_i), i = 0..d-1    every partial sum, sequential, starting from 0
//   ms    = bf16(acc / d)                   the mean of the squares
//   rstd  = bf16(1 / sqrt(bf16(ms + eps)))  the eps sum, then the reciprocal square root
//   y_i   = bf16(bf16(xb_i * rstd) * w_i)   normalize, then scale
// Each operation itself is exact in float32 before its rounding (bf16 products have at most 16 significant
// bits) except the sum, the division and the square root, which are float32-rounded first; for a value that is
// then rounded to 8 bits this double rounding changes the result only in rare ties. Once acc is large, a small
// square is less than half a bf16 step of acc and vanishes: the sum stalls (d ones sum to 256, not d), which
// is why Llama's RMSNorm upcasts to float32 before squaring.
void rmsnorm_forward_bf16(float* y, const float* x, const float* g, int d, float eps, float weight_offset);
// ms above, as rmsnorm_forward_bf16 computes it.
float rmsnorm_mean_square_bf16(const float* x, int d);

}  // namespace rl
