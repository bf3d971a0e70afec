// The linear layer with PyTorch's layout (torch.nn.Linear): W[N, K] row-major, an optional bias b[N]; the toy
// decoder's projections and head and every projection of a checkpoint layer run these.
//   forward   y[M, N]  = x[M, K] W^T + b
//   backward  dx[M, K] += dy[M, N] W          (term through x)
//             dW[N, K] += dy^T x              (term through W)
//             db[N]    += sum over rows of dy (term through b)
// Backward ACCUMULATES (+=) into dx, dW and db, like every backward kernel here (norms.hpp's rule); any of the three
// may be nullptr when that gradient is not wanted. The products run on matmul.hpp's register-tiled f32x4 kernels
// (forward: matmul_nt reading W as stored; backward: gemm); the bias's add and sum run four lanes at a time.
//
// ldy is the row stride of y (forward) and of dy (backward), 0 for N: a caller that widens W a few rows at a time
// (checkpoint/, weights kept in the file's dtype) runs one block of y's columns per call.
#pragma once

namespace rl {

void linear_forward(float* y, const float* x, const float* w, const float* bias, int M, int K, int N, int ldy = 0);
void linear_backward(float* dx, float* dw, float* dbias, const float* dy, const float* x, const float* w, int M, int K,
                     int N, int ldy = 0);

// y[M, N] += b for every row (row stride ldy, 0 for N): the bias alone, for a caller whose product was split.
void bias_forward(float* y, const float* bias, int M, int N, int ldy = 0);

// ||dW||_F^2 of the weight gradient dW = dy^T x without forming dW (its N x K floats can be far more than the
// activations):
//   ||dy^T x||_F^2 = sum_{s,t} (dy_s . dy_t)(x_s . x_t) = <dy dy^T, x x^T>_F
// two M x M Gram matrices, summed in double. dy[M, N] and x[M, K] with row strides N and K.
double linear_weight_grad_square(const float* dy, const float* x, int M, int K, int N);

// Scalar references in the same argument order (sums over k and over rows in ascending order, float accumulators):
// the version the tiled kernels are held to, as llm.c's dev/cuda files hold theirs.
void linear_forward_reference(float* y, const float* x, const float* w, const float* bias, int M, int K, int N);
void linear_backward_reference(float* dx, float* dw, float* dbias, const float* dy, const float* x, const float* w,
                               int M, int K, int N);

}  // namespace rl
