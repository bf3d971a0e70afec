// RMSNorm, LayerNorm and Dynamic Tanh, forward and backward (see norms.hpp for the contract and the residual rule).
// The hot loops use rl::simd::f32x4: reductions from reductions.hpp, elementwise passes below, each with a
// scalar tail for d not a multiple of 4.
#include "kernels/norms.hpp"

#include <cmath>
#include <cstddef>

#include "kernels/bf16.hpp"
#include "kernels/reductions.hpp"

namespace rl {

using simd::f32x4;
using simd::load;
using simd::splat;
using simd::store;

namespace {

inline std::size_t row_offset(int row, int d) { return static_cast<std::size_t>(row) * static_cast<std::size_t>(d); }

// y_i = x_i * scale * (offset + g_i); with g == nullptr, y_i = x_i * (scale * (offset + 1)).
// 16 floats per step: in WASM SIMD (V8) RMSNorm forward at d = 4096 ran ~8% faster than with 8 (the loop's own
// instructions, among them V8's stack check in every iteration, are spread over more data).
void scale_row(float* y, const float* x, const float* g, float scale, float offset, int d) {
  int i = 0;
  if (g == nullptr) {
    const float multiplier = scale * (offset + 1.0f);
    const f32x4 m = splat(multiplier);
    for (; i + 16 <= d; i += 16) {
      store(y + i, load(x + i) * m);
      store(y + i + 4, load(x + i + 4) * m);
      store(y + i + 8, load(x + i + 8) * m);
      store(y + i + 12, load(x + i + 12) * m);
    }
    for (; i + 4 <= d; i += 4) store(y + i, load(x + i) * m);
    for (; i < d; ++i) y[i] = x[i] * multiplier;
    return;
  }
  const f32x4 s = splat(scale), o = splat(offset);
  for (; i + 16 <= d; i += 16) {
    store(y + i, load(x + i) * s * (o + load(g + i)));
    store(y + i + 4, load(x + i + 4) * s * (o + load(g + i + 4)));
    store(y + i + 8, load(x + i + 8) * s * (o + load(g + i + 8)));
    store(y + i + 12, load(x + i + 12) * s * (o + load(g + i + 12)));
  }
  for (; i + 4 <= d; i += 4) store(y + i, load(x + i) * s * (o + load(g + i)));
  for (; i < d; ++i) y[i] = x[i] * scale * (offset + g[i]);
}

}  // namespace

float rmsnorm_rstd(const float* x, int d, float eps) { return rmsnorm_rstd_given(simd::sum_of_squares(x, d), d, eps); }

float rmsnorm_rstd_given(float sum_of_squares, int d, float eps) {
  // mean of squares, in float32
  const float mean_square = sum_of_squares / static_cast<float>(d);
  // reciprocal root mean square
  return 1.0f / std::sqrt(mean_square + eps);
}

void rmsnorm_forward_row(float* y, const float* x, const float* g, int d, float rstd, float weight_offset) {
  scale_row(y, x, g, rstd, weight_offset, d);
}

LayerNormStats layernorm_stats(const float* x, int d, float eps) {
  const float inv_d = 1.0f / static_cast<float>(d);
  const float mean = simd::sum(x, d) * inv_d;
  // variance (biased), two-pass
  const float variance = simd::sum_of_squared_deviations(x, mean, d) * inv_d;
  return {mean, variance, 1.0f / std::sqrt(variance + eps)};
}

void rmsnorm_forward(float* y, float* rstd, const float* x, const float* g, int rows, int d, float eps,
                     float weight_offset) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + row_offset(r, d);
    const float s = rmsnorm_rstd(xr, d, eps);
    // normalize and scale
    scale_row(y + row_offset(r, d), xr, g, s, weight_offset, d);
    if (rstd != nullptr) rstd[r] = s;
  }
}

// With w_i = offset + g_i, n_i = x_i * rstd and y_i = n_i * w_i, and the mean of squares ms = mean(x^2):
//   d rstd / d x_j = -rstd^3 * x_j / d, so
//   dx_i = rstd * w_i * dy_i - rstd^3 / d * x_i * sum_j(w_j * dy_j * x_j)
//   dg_i = dy_i * n_i
void rmsnorm_backward(float* dx, float* dg, const float* dy, const float* x, const float* rstd, const float* g,
                      int rows, int d, float weight_offset) {
  const float inv_d = 1.0f / static_cast<float>(d);
  for (int r = 0; r < rows; ++r) {
    const std::size_t off = row_offset(r, d);
    const float* xr = x + off;
    const float* dyr = dy + off;
    float* dxr = dx + off;
    const float s = rstd[r];
    // sum_j w_j * dy_j * x_j
    const float wdy_dot_x =
        g == nullptr ? (weight_offset + 1.0f) * simd::dot(dyr, xr, d)
                     : simd::reduce_sum(
                           d,
                           [&](int i, int k) {
                             return (splat(weight_offset) + load(g + i + k)) * load(dyr + i + k) * load(xr + i + k);
                           },
                           [&](int i) { return (weight_offset + g[i]) * dyr[i] * xr[i]; });
    const float c = s * s * s * wdy_dot_x * inv_d;
    const f32x4 sv = splat(s), cv = splat(c), ov = splat(weight_offset);
    const f32x4 one = splat(1.0f);
    int i = 0;
    for (; i + 4 <= d; i += 4) {
      const f32x4 xv = load(xr + i), dyv = load(dyr + i);
      const f32x4 w = g == nullptr ? ov + one : ov + load(g + i);
      // term 1: through n_i directly; term 2: through rstd, shared by the whole row
      store(dxr + i, load(dxr + i) + (sv * w * dyv - cv * xv));
      if (dg != nullptr) store(dg + i, load(dg + i) + dyv * xv * sv);
    }
    for (; i < d; ++i) {
      const float w = weight_offset + (g == nullptr ? 1.0f : g[i]);
      dxr[i] += s * w * dyr[i] - c * xr[i];
      if (dg != nullptr) dg[i] += dyr[i] * xr[i] * s;
    }
  }
}

void layernorm_forward(float* y, float* mean, float* rstd, const float* x, const float* gamma, const float* beta,
                       int rows, int d, float eps) {
  for (int r = 0; r < rows; ++r) {
    const float* xr = x + row_offset(r, d);
    float* yr = y + row_offset(r, d);
    const LayerNormStats stats = layernorm_stats(xr, d, eps);
    const float m = stats.mean, s = stats.rstd;
    // normalize, then scale and shift
    const f32x4 mv = splat(m), sv = splat(s);
    int i = 0;
    for (; i + 4 <= d; i += 4) {
      f32x4 n = (load(xr + i) - mv) * sv;
      if (gamma != nullptr) n *= load(gamma + i);
      if (beta != nullptr) n += load(beta + i);
      store(yr + i, n);
    }
    for (; i < d; ++i) {
      float n = (xr[i] - m) * s;
      if (gamma != nullptr) n *= gamma[i];
      if (beta != nullptr) n += beta[i];
      yr[i] = n;
    }
    if (mean != nullptr) mean[r] = m;
    if (rstd != nullptr) rstd[r] = s;
  }
}

// With n_i = (x_i - mean) * rstd and dn_i = gamma_i * dy_i (llm.c's derivation):
//   dx_i = rstd * (dn_i - mean_j(dn_j) - n_i * mean_j(dn_j * n_j))
void layernorm_backward(float* dx, float* dgamma, float* dbeta, const float* dy, const float* x, const float* mean,
                        const float* rstd, const float* gamma, int rows, int d) {
  const float inv_d = 1.0f / static_cast<float>(d);
  for (int r = 0; r < rows; ++r) {
    const std::size_t off = row_offset(r, d);
    const float* xr = x + off;
    const float* dyr = dy + off;
    float* dxr = dx + off;
    const float m = mean[r], s = rstd[r];
    const f32x4 mv = splat(m), sv = splat(s);
    // sum_j dn_j and sum_j dn_j * n_j, in one pass
    const simd::Sums2 sums = simd::reduce_sum2(
        d,
        [&](int i, int k, f32x4& sum_dn, f32x4& sum_dn_n) {
          const f32x4 dn = gamma == nullptr ? load(dyr + i + k) : load(gamma + i + k) * load(dyr + i + k);
          sum_dn += dn;
          sum_dn_n += dn * ((load(xr + i + k) - mv) * sv);
        },
        [&](int i, float& sum_dn, float& sum_dn_n) {
          const float dn = gamma == nullptr ? dyr[i] : gamma[i] * dyr[i];
          sum_dn += dn;
          sum_dn_n += dn * ((xr[i] - m) * s);
        });
    const float mean_dn = sums.first * inv_d, mean_dn_n = sums.second * inv_d;
    const f32x4 mean_dn_v = splat(mean_dn), mean_dn_n_v = splat(mean_dn_n);
    int i = 0;
    for (; i + 4 <= d; i += 4) {
      const f32x4 dyv = load(dyr + i);
      const f32x4 n = (load(xr + i) - mv) * sv;
      const f32x4 dn = gamma == nullptr ? dyv : load(gamma + i) * dyv;
      // term 1: dn; term 2: through the mean; term 3: through rstd
      store(dxr + i, load(dxr + i) + sv * (dn - mean_dn_v - n * mean_dn_n_v));
      if (dgamma != nullptr) store(dgamma + i, load(dgamma + i) + n * dyv);
      if (dbeta != nullptr) store(dbeta + i, load(dbeta + i) + dyv);
    }
    for (; i < d; ++i) {
      const float n = (xr[i] - m) * s;
      const float dn = gamma == nullptr ? dyr[i] : gamma[i] * dyr[i];
      dxr[i] += s * (dn - mean_dn - n * mean_dn_n);
      if (dgamma != nullptr) dgamma[i] += n * dyr[i];
      if (dbeta != nullptr) dbeta[i] += dyr[i];
    }
  }
}

// tanh is libm's, one element at a time (kernels/ has no 4-lane tanh): correct to an ulp, and in the lab's decoder
// DyT costs little beside the matmuls.
void dyt_forward(float* y, const float* x, float alpha, const float* gamma, const float* beta, int rows, int d) {
  for (int r = 0; r < rows; ++r) {
    const std::size_t off = row_offset(r, d);
    const float* xr = x + off;
    float* yr = y + off;
    for (int i = 0; i < d; ++i) {
      const float t = std::tanh(alpha * xr[i]);
      yr[i] = (gamma == nullptr ? t : gamma[i] * t) + (beta == nullptr ? 0.0f : beta[i]);
    }
  }
}

void dyt_backward(float* dx, float* dalpha, float* dgamma, float* dbeta, const float* dy, const float* x, float alpha,
                  const float* gamma, int rows, int d) {
  double sum_dalpha = 0.0;
  for (int r = 0; r < rows; ++r) {
    const std::size_t off = row_offset(r, d);
    const float* xr = x + off;
    const float* dyr = dy + off;
    float* dxr = dx + off;
    for (int i = 0; i < d; ++i) {
      const float t = std::tanh(alpha * xr[i]);
      // dy_i * gamma_i * (1 - t_i^2): the gradient reaching alpha * x_i
      const float dz = (gamma == nullptr ? dyr[i] : dyr[i] * gamma[i]) * (1.0f - t * t);
      dxr[i] += dz * alpha;
      sum_dalpha += static_cast<double>(dz * xr[i]);
      if (dgamma != nullptr) dgamma[i] += dyr[i] * t;
      if (dbeta != nullptr) dbeta[i] += dyr[i];
    }
  }
  if (dalpha != nullptr) *dalpha += static_cast<float>(sum_dalpha);
}

float rmsnorm_mean_square_bf16(const float* x, int d) {
  // the squares, summed one by one in bf16
  float acc = 0.0f;
  for (int i = 0; i < d; ++i) {
    const float xb = round_to_bf16(x[i]);
    acc = round_to_bf16(acc + round_to_bf16(xb * xb));
  }
  return round_to_bf16(acc / static_cast<float>(d));
}

void rmsnorm_forward_bf16(float* y, const float* x, const float* g, int d, float eps, float weight_offset) {
  // mean of squares, then the reciprocal root mean square
  const float mean_square = rmsnorm_mean_square_bf16(x, d);
  const float s = round_to_bf16(1.0f / std::sqrt(round_to_bf16(mean_square + eps)));
  // normalize, then scale
  for (int i = 0; i < d; ++i) {
    const float w = round_to_bf16(weight_offset + (g == nullptr ? 1.0f : round_to_bf16(g[i])));
    y[i] = round_to_bf16(round_to_bf16(round_to_bf16(x[i]) * s) * w);
  }
}

}  // namespace rl
