#include "kernels/linear.hpp"

#include <vector>

#include "kernels/matmul.hpp"
#include "kernels/vector_math.hpp"

namespace rl {

using simd::f32x4;

void bias_forward(float* y, const float* bias, int M, int N, int ldy) {
  if (!bias) return;
  if (ldy == 0) ldy = N;
  for (int i = 0; i < M; ++i) {
    float* row = y + static_cast<long>(i) * ldy;
    // y_i += b
    vmath::for_lanes<2, 1>(N, {row, bias}, {row}, [](const f32x4* in, f32x4* out) { out[0] = in[0] + in[1]; });
  }
}

void linear_forward(float* y, const float* x, const float* w, const float* bias, int M, int K, int N, int ldy) {
  if (ldy == 0) ldy = N;
  // y = x W^T
  matmul_nt(y, ldy, x, K, w, K, M, K, N);
  // + b
  bias_forward(y, bias, M, N, ldy);
}

void linear_backward(float* dx, float* dw, float* dbias, const float* dy, const float* x, const float* w, int M, int K,
                     int N, int ldy) {
  if (ldy == 0) ldy = N;
  // term through x: dx[M,K] += dy[M,N] W[N,K]
  if (dx) gemm(dx, K, dy, ldy, 1, w, K, M, K, N, /*accumulate=*/true);
  // term through W: dW[N,K] += dy^T[N,M] x[M,K], dy read transposed
  if (dw) gemm(dw, K, dy, 1, ldy, x, K, N, K, M, /*accumulate=*/true);
  // term through b: db += sum_i dy_i
  if (dbias)
    for (int i = 0; i < M; ++i)
      vmath::for_lanes<2, 1>(N, {dbias, dy + static_cast<long>(i) * ldy}, {dbias},
                             [](const f32x4* in, f32x4* out) { out[0] = in[0] + in[1]; });
}

double linear_weight_grad_square(const float* dy, const float* x, int M, int K, int N) {
  // the two Gram matrices dy dy^T and x x^T, M x M each
  std::vector<float> g_dy(static_cast<std::size_t>(M) * M), g_x(static_cast<std::size_t>(M) * M);
  matmul_nt(g_dy.data(), M, dy, N, dy, N, M, N, M);
  matmul_nt(g_x.data(), M, x, K, x, K, M, K, M);
  // their Frobenius inner product
  double sum = 0;
  for (std::size_t i = 0; i < g_dy.size(); ++i) sum += double(g_dy[i]) * g_x[i];
  return sum;
}

void linear_forward_reference(float* y, const float* x, const float* w, const float* bias, int M, int K, int N) {
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k) sum += x[static_cast<long>(i) * K + k] * w[static_cast<long>(n) * K + k];
      y[static_cast<long>(i) * N + n] = bias ? sum + bias[n] : sum;
    }
}

void linear_backward_reference(float* dx, float* dw, float* dbias, const float* dy, const float* x, const float* w,
                               int M, int K, int N) {
  for (int i = 0; i < M; ++i)
    for (int n = 0; n < N; ++n) {
      const float g = dy[static_cast<long>(i) * N + n];
      if (dbias) dbias[n] += g;
      for (int k = 0; k < K; ++k) {
        if (dx) dx[static_cast<long>(i) * K + k] += g * w[static_cast<long>(n) * K + k];
        if (dw) dw[static_cast<long>(n) * K + k] += g * x[static_cast<long>(i) * K + k];
      }
    }
}

}  // namespace rl
