// The matrix products under the linear layer (linear.hpp: y = x W^T + b, dx = dy W, dW = dy^T x, with PyTorch's
// weight layout W[out, in]) and under attention's scores.
//
// Two register-tiled f32x4 kernels, both reading the operands in place (no packing, no scratch):
//   forward, the "dot" form: 2 rows of x times 4 rows of W, 8 accumulators of 4 partial sums along K, reduced
//     at the end (both operands are contiguous along K, as PyTorch stores them);
//   backward, the "outer product" form C[M,N] += A[M,K] B[K,N] with B row-major: 4 rows x 12 columns of C in
//     12 accumulators, one broadcast element of A times three 4-wide rows of B per step (12 + 3 + 1 of the 16
//     x86-64 vector registers V8 allocates; 4 x 12 ran 5 to 10% faster than 4 x 8 at the decoder's sizes). The
//     relaxed build fuses each multiply and add (simd::mul_add) and runs 4 x 8 (matmul.cpp's kStripVectors).
// Measured in node 20 (WASM SIMD) on this machine: 38 to 45 GFLOP/s for both at 256 x 256. A 4 x 16 outer tile
// runs out of WASM registers; packing W^T for the forward cost more than it saved at 16 rows.
#pragma once

namespace rl {

// y[M,N] = x[M,K] w[N,K]^T on strided views, row strides ldy, ldx and ldw (attention reads one head's columns of
// q and k where they lie).
void matmul_nt(float* y, int ldy, const float* x, int ldx, const float* w, int ldw, int M, int K, int N);

// C[M,N] = A B (accumulate: C += A B). A's element (i, k) is a[i * a_row_stride + k * a_col_stride], so A may be a
// transposed view; B is row-major with row stride ldb; C has row stride ldc.
void gemm(float* c, int ldc, const float* a, int a_row_stride, int a_col_stride, const float* b, int ldb, int M, int N,
          int K, bool accumulate);

}  // namespace rl
