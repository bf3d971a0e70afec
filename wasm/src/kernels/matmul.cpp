#include "kernels/matmul.hpp"

#include "kernels/simd.hpp"

namespace rl {
namespace {

using simd::f32x4;

// The backward's column strip, in 4-lane vectors: 4 x 12 (12 accumulators + 3 of B + 1 broadcast); with relaxed
// SIMD's fused multiply-add, 4 x 8, which ran 25-35% faster at a checkpoint's 16 and 32 rows (4 x 12 leaves V8's
// register allocator no register spare; bench/decoder_bench.cpp's ckpt_bf16_backward).
#if defined(__wasm_relaxed_simd__)
inline constexpr int kStripVectors = 2;
#else
inline constexpr int kStripVectors = 3;
#endif

// C[MR rows, 4*NV columns] (=|+=) A[MR, K] B[K, 4*NV]; MR * NV accumulators stay in registers for the whole k loop.
template <int MR, int NV>
inline void tile(float* c, int ldc, const float* a, int a_row, int a_col, const float* b, int ldb, int K,
                 bool accumulate) {
  f32x4 acc[MR][NV];
  for (int r = 0; r < MR; ++r)
    for (int v = 0; v < NV; ++v) acc[r][v] = simd::splat(0.0f);
  for (int k = 0; k < K; ++k) {
    const float* b_row = b + static_cast<long>(k) * ldb;
    f32x4 bv[NV];
    for (int v = 0; v < NV; ++v) bv[v] = simd::load(b_row + 4 * v);
    const float* a_col_k = a + static_cast<long>(k) * a_col;
    for (int r = 0; r < MR; ++r) {
      const f32x4 ar = simd::splat(a_col_k[static_cast<long>(r) * a_row]);
      for (int v = 0; v < NV; ++v) acc[r][v] = simd::mul_add(ar, bv[v], acc[r][v]);
    }
  }
  for (int r = 0; r < MR; ++r) {
    float* c_row = c + static_cast<long>(r) * ldc;
    for (int v = 0; v < NV; ++v) {
      f32x4 out = acc[r][v];
      if (accumulate) out += simd::load(c_row + 4 * v);
      simd::store(c_row + 4 * v, out);
    }
  }
}

// One column strip of width 4*NV, all rows: 4-row tiles, then the 1 to 3 leftover rows.
template <int NV>
void column_strip(float* c, int ldc, const float* a, int a_row, int a_col, const float* b, int ldb, int M, int K,
                  bool accumulate) {
  int i = 0;
  for (; i + 4 <= M; i += 4)
    tile<4, NV>(c + static_cast<long>(i) * ldc, ldc, a + static_cast<long>(i) * a_row, a_row, a_col, b, ldb, K,
                accumulate);
  const long ci = static_cast<long>(i) * ldc, ai = static_cast<long>(i) * a_row;
  switch (M - i) {
    case 3: tile<3, NV>(c + ci, ldc, a + ai, a_row, a_col, b, ldb, K, accumulate); break;
    case 2: tile<2, NV>(c + ci, ldc, a + ai, a_row, a_col, b, ldb, K, accumulate); break;
    case 1: tile<1, NV>(c + ci, ldc, a + ai, a_row, a_col, b, ldb, K, accumulate); break;
    default: break;
  }
}

// y[MR rows, NR columns] = x[MR, K] . w[NR, K] row by row: the "dot" form, which reads PyTorch's W[out, in]
// as it is stored. MR * NR accumulators hold 4 partial sums each; the K % 4 tail is added in scalar.
// Row strides: ldy for y, ldx for x, ldw for w.
template <int MR, int NR>
inline void dot_tile(float* y, int ldy, const float* x, int ldx, const float* w, int ldw, int K) {
  f32x4 acc[MR][NR];
  for (int r = 0; r < MR; ++r)
    for (int n = 0; n < NR; ++n) acc[r][n] = simd::splat(0.0f);
  int k = 0;
  for (; k + 4 <= K; k += 4) {
    f32x4 xv[MR], wv[NR];
    for (int r = 0; r < MR; ++r) xv[r] = simd::load(x + static_cast<long>(r) * ldx + k);
    for (int n = 0; n < NR; ++n) wv[n] = simd::load(w + static_cast<long>(n) * ldw + k);
    for (int r = 0; r < MR; ++r)
      for (int n = 0; n < NR; ++n) acc[r][n] = simd::mul_add(xv[r], wv[n], acc[r][n]);
  }
  for (int r = 0; r < MR; ++r) {
    float sums[NR];
    if constexpr (NR == 4) {
      // four horizontal sums at once, with the unpack / movelh / movehl patterns every SIMD backend knows
      const f32x4 u0 = __builtin_shufflevector(acc[r][0], acc[r][1], 0, 4, 1, 5) +
                       __builtin_shufflevector(acc[r][0], acc[r][1], 2, 6, 3, 7);
      const f32x4 u1 = __builtin_shufflevector(acc[r][2], acc[r][3], 0, 4, 1, 5) +
                       __builtin_shufflevector(acc[r][2], acc[r][3], 2, 6, 3, 7);
      const f32x4 total = __builtin_shufflevector(u0, u1, 0, 1, 4, 5) + __builtin_shufflevector(u0, u1, 2, 3, 6, 7);
      simd::store(sums, total);
    } else {
      for (int n = 0; n < NR; ++n) sums[n] = simd::horizontal_sum(acc[r][n]);
    }
    for (int n = 0; n < NR; ++n) {
      for (int kk = k; kk < K; ++kk) sums[n] += x[static_cast<long>(r) * ldx + kk] * w[static_cast<long>(n) * ldw + kk];
      y[static_cast<long>(r) * ldy + n] = sums[n];
    }
  }
}

// All rows of x against NR rows of W: the W block (NR x K) stays in L1 while x streams past it, so every weight
// is read from memory once per call (the decoder's x has few rows, its W many).
template <int NR>
void dot_columns(float* y, int ldy, const float* x, int ldx, const float* w, int ldw, int M, int K) {
  int i = 0;
  for (; i + 2 <= M; i += 2)
    dot_tile<2, NR>(y + static_cast<long>(i) * ldy, ldy, x + static_cast<long>(i) * ldx, ldx, w, ldw, K);
  if (i < M) dot_tile<1, NR>(y + static_cast<long>(i) * ldy, ldy, x + static_cast<long>(i) * ldx, ldx, w, ldw, K);
}

}  // namespace

void matmul_nt(float* y, int ldy, const float* x, int ldx, const float* w, int ldw, int M, int K, int N) {
  int n = 0;
  for (; n + 4 <= N; n += 4) dot_columns<4>(y + n, ldy, x, ldx, w + static_cast<long>(n) * ldw, ldw, M, K);
  for (; n < N; ++n) dot_columns<1>(y + n, ldy, x, ldx, w + static_cast<long>(n) * ldw, ldw, M, K);
}

void gemm(float* c, int ldc, const float* a, int a_row, int a_col, const float* b, int ldb, int M, int N, int K,
          bool accumulate) {
  if (M <= 0 || N <= 0) return;
  int j = 0;
  constexpr int width = 4 * kStripVectors;
  for (; j + width <= N; j += width)
    column_strip<kStripVectors>(c + j, ldc, a, a_row, a_col, b + j, ldb, M, K, accumulate);
  if (kStripVectors > 2 && j + 8 <= N) {
    column_strip<2>(c + j, ldc, a, a_row, a_col, b + j, ldb, M, K, accumulate);
    j += 8;
  } else if (j + 4 <= N) {
    column_strip<1>(c + j, ldc, a, a_row, a_col, b + j, ldb, M, K, accumulate);
    j += 4;
  }
  // the last 1 to 3 columns, scalar
  for (; j < N; ++j) {
    for (int i = 0; i < M; ++i) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k)
        sum += a[static_cast<long>(i) * a_row + static_cast<long>(k) * a_col] * b[static_cast<long>(k) * ldb + j];
      float& out = c[static_cast<long>(i) * ldc + j];
      out = accumulate ? out + sum : sum;
    }
  }
}

}  // namespace rl
