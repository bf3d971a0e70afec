// erf and exp on four floats at once, for the MLP's activations (libm's erff and expf are scalar calls, and
// Emscripten's musl erff costs tens of ns each: 131,072 of them per forward of the 32-layer benchmark model).
// Both use only f32x4 arithmetic, so they run as WASM SIMD and as SSE/AVX natively.
#pragma once
#include <cstdint>
#include <cstring>

#include "kernels/simd.hpp"

namespace rl::vmath {

using simd::f32x4;
typedef std::int32_t i32x4 __attribute__((vector_size(16)));

inline f32x4 clamp(f32x4 x, float lo, float hi) {
  const f32x4 vlo = simd::splat(lo), vhi = simd::splat(hi);
  x = x < vlo ? vlo : x;
  return x > vhi ? vhi : x;
}

// erf(x): Eigen 3.4's generic_fast_erf_float, a 13/8-degree odd/even rational interpolant on [-4, 4] accurate to
// a couple of ulp; outside that range erf(x) rounds to +-1 in float32.
inline f32x4 erf(f32x4 x) {
  x = clamp(x, -4.0f, 4.0f);
  const f32x4 x2 = x * x;
  f32x4 p = x2 * -2.72614225801306e-10f + 2.77068142495902e-08f;
  p = x2 * p + -2.10102402082508e-06f;
  p = x2 * p + -5.69250639462346e-05f;
  p = x2 * p + -7.34990630326855e-04f;
  p = x2 * p + -2.95459980854025e-03f;
  p = x2 * p + -1.60960333262415e-02f;
  p = x * p;
  f32x4 q = x2 * -1.45660718464996e-05f + -2.13374055278905e-04f;
  q = x2 * q + -1.68282697438203e-03f;
  q = x2 * q + -7.37332916720468e-03f;
  q = x2 * q + -1.42647390514189e-02f;
  return p / q;
}

// exp(x), Cephes' expf as in Eigen: x = m ln2 + r with |r| <= ln2 / 2 (ln2 split in two for an exact product),
// exp(r) by a degree-6 polynomial, then 2^m put into the exponent bits. Inputs clamped to [-87.3, 88.37] so m
// stays a normal exponent.
inline f32x4 exp(f32x4 x) {
  x = clamp(x, -87.3f, 88.37f);
  // m = floor(x / ln2 + 1/2)
  const f32x4 t = x * 1.44269504088896341f + 0.5f;
  const f32x4 truncated = __builtin_convertvector(__builtin_convertvector(t, i32x4), f32x4);
  const f32x4 m = truncated - (truncated > t ? simd::splat(1.0f) : simd::splat(0.0f));
  // r = x - m ln2
  const f32x4 r = x - m * 0.693359375f - m * -2.12194440e-4f;
  // exp(r) = 1 + r + r^2 (1/2 + r/6 + ...)
  f32x4 y = r * 1.9875691500e-4f + 1.3981999507e-3f;
  y = y * r + 8.3334519073e-3f;
  y = y * r + 4.1665795894e-2f;
  y = y * r + 1.6666665459e-1f;
  y = y * r + 5.0000001201e-1f;
  y = y * (r * r) + r + 1.0f;
  // times 2^m: m + 127 in the exponent field
  const i32x4 bits = (__builtin_convertvector(m, i32x4) + 127) << 23;
  f32x4 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return y * scale;
}

// For n floats: f(in, out) on arrays of f32x4, one per input and output stream; whole vectors first, then the
// 1 to 3 leftover floats through zero-padded vectors.
template <int NI, int NO, class F>
inline void for_lanes(int n, const float* const (&in)[NI], float* const (&out)[NO], F f) {
  f32x4 x[NI], y[NO];
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    for (int k = 0; k < NI; ++k) x[k] = simd::load(in[k] + i);
    f(x, y);
    for (int k = 0; k < NO; ++k) simd::store(out[k] + i, y[k]);
  }
  if (i == n) return;
  for (int k = 0; k < NI; ++k) {
    x[k] = simd::splat(0.0f);
    for (int lane = 0; i + lane < n; ++lane) x[k][lane] = in[k][i + lane];
  }
  f(x, y);
  for (int k = 0; k < NO; ++k)
    for (int lane = 0; i + lane < n; ++lane) out[k][i + lane] = y[k][lane];
}

}  // namespace rl::vmath
