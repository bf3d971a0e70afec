// Reductions over float32 arrays, written once with rl::simd::f32x4.
// A float sum is not associative, so compilers will not vectorize it on their own; here the order is chosen
// by hand: four independent f32x4 accumulators (16 floats per step, which also hides the add latency), then
// single f32x4 steps, then a scalar tail for n not a multiple of 4. Any n >= 0 is fine.
//
// A vector term is called as term(i, k): the 4 terms at i + k .. i + k + 3, where i is the start of the step
// and k a constant lane offset (0, 4, 8, 12), and it loads p + i + k. Keeping k apart matters in WASM: clang
// turns p + (i + 4) into p + ((i * 4) | 16), which V8 computes with three integer instructions per load, while
// (p + i) + 4 becomes one address per step and loads with a constant offset (v128.load offset=16).
#pragma once
#include "kernels/simd.hpp"

namespace rl::simd {

// sum over i of term(i), where vector_term(i, k) gives the 4 terms at i + k.. and scalar_term(i) the one at i.
template <class VectorTerm, class ScalarTerm>
inline float reduce_sum(int n, VectorTerm vector_term, ScalarTerm scalar_term) {
  f32x4 acc0 = splat(0.0f), acc1 = splat(0.0f), acc2 = splat(0.0f), acc3 = splat(0.0f);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    acc0 += vector_term(i, 0);
    acc1 += vector_term(i, 4);
    acc2 += vector_term(i, 8);
    acc3 += vector_term(i, 12);
  }
  for (; i + 4 <= n; i += 4) acc0 += vector_term(i, 0);
  float sum = horizontal_sum((acc0 + acc1) + (acc2 + acc3));
  for (; i < n; ++i) sum += scalar_term(i);
  return sum;
}

// Two sums in one pass over the data (the backward passes need two dot products at once).
struct Sums2 {
  float first, second;
};
template <class VectorTerms, class ScalarTerms>
inline Sums2 reduce_sum2(int n, VectorTerms vector_terms, ScalarTerms scalar_terms) {
  f32x4 a0 = splat(0.0f), a1 = splat(0.0f), b0 = splat(0.0f), b1 = splat(0.0f);
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    vector_terms(i, 0, a0, b0);
    vector_terms(i, 4, a1, b1);
  }
  for (; i + 4 <= n; i += 4) vector_terms(i, 0, a0, b0);
  Sums2 sums{horizontal_sum(a0 + a1), horizontal_sum(b0 + b1)};
  for (; i < n; ++i) scalar_terms(i, sums.first, sums.second);
  return sums;
}

// sum_i x_i
inline float sum(const float* x, int n) {
  return reduce_sum(
      n, [x](int i, int k) { return load(x + i + k); }, [x](int i) { return x[i]; });
}

// sum_i x_i^2
inline float sum_of_squares(const float* x, int n) {
  return reduce_sum(
      n,
      [x](int i, int k) {
        f32x4 v = load(x + i + k);
        return v * v;
      },
      [x](int i) { return x[i] * x[i]; });
}

// sum_i (x_i - c)^2, the second pass of a two-pass variance (more accurate than E[x^2] - E[x]^2).
inline float sum_of_squared_deviations(const float* x, float c, int n) {
  const f32x4 cv = splat(c);
  return reduce_sum(
      n,
      [x, cv](int i, int k) {
        f32x4 v = load(x + i + k) - cv;
        return v * v;
      },
      [x, c](int i) {
        float v = x[i] - c;
        return v * v;
      });
}

// sum_i a_i^2 and sum_i b_i^2, in one pass over both, four accumulators each
inline Sums2 sums_of_squares(const float* a, const float* b, int n) {
  f32x4 a0 = splat(0.0f), a1 = splat(0.0f), a2 = splat(0.0f), a3 = splat(0.0f);
  f32x4 b0 = splat(0.0f), b1 = splat(0.0f), b2 = splat(0.0f), b3 = splat(0.0f);
  int i = 0;
  for (; i + 16 <= n; i += 16) {
    f32x4 v0 = load(a + i), v1 = load(a + i + 4), v2 = load(a + i + 8), v3 = load(a + i + 12);
    a0 += v0 * v0;
    a1 += v1 * v1;
    a2 += v2 * v2;
    a3 += v3 * v3;
    v0 = load(b + i), v1 = load(b + i + 4), v2 = load(b + i + 8), v3 = load(b + i + 12);
    b0 += v0 * v0;
    b1 += v1 * v1;
    b2 += v2 * v2;
    b3 += v3 * v3;
  }
  for (; i + 4 <= n; i += 4) {
    const f32x4 va = load(a + i), vb = load(b + i);
    a0 += va * va;
    b0 += vb * vb;
  }
  Sums2 sums{horizontal_sum((a0 + a1) + (a2 + a3)), horizontal_sum((b0 + b1) + (b2 + b3))};
  for (; i < n; ++i) {
    sums.first += a[i] * a[i];
    sums.second += b[i] * b[i];
  }
  return sums;
}

// sum_i a_i * b_i
inline float dot(const float* a, const float* b, int n) {
  return reduce_sum(
      n, [a, b](int i, int k) { return load(a + i + k) * load(b + i + k); }, [a, b](int i) { return a[i] * b[i]; });
}

// True iff no x_i is NaN or +-inf: x * 0 is 0 for every finite x and NaN otherwise, and NaN survives the sum.
// (Valid because we never build with -ffast-math.)
inline bool all_finite(const float* x, int n) {
  const f32x4 zero = splat(0.0f);
  float s = reduce_sum(
      n, [x, zero](int i, int k) { return load(x + i + k) * zero; }, [x](int i) { return x[i] * 0.0f; });
  return s == 0.0f;
}

}  // namespace rl::simd
