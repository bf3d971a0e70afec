// 4-lane float32 SIMD written once with GCC/Clang vector extensions.
//   em++ -msimd128      -> WebAssembly f32x4 instructions
//   em++ (no -msimd128) -> the same code lowered to scalar ops (the "scalar WASM" build)
//   em++ -msimd128 -mrelaxed-simd -> the same, with mul_add as f32x4.relaxed_madd (the "relaxed" build)
//   g++ -march=native   -> SSE/AVX on the host, for native tests and benchmarks
// Eigen 3.4 has no WebAssembly packet code, so hot loops use this type instead.
#pragma once
#include <cmath>
#include <cstring>

#if defined(__wasm_simd128__)
#include <wasm_simd128.h>
#elif defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace rl::simd {

typedef float f32x4 __attribute__((vector_size(16)));

inline constexpr int kLanes = 4;

// Unaligned load/store: memcpy compiles to one v128.load / v128.store.
inline f32x4 load(const float* p) {
  f32x4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store(float* p, f32x4 v) { std::memcpy(p, &v, sizeof v); }
inline f32x4 splat(float s) { return f32x4{s, s, s, s}; }
// a * b + c, fused into one rounding where the build has relaxed SIMD's f32x4.relaxed_madd (which the engine may
// also run unfused: the spec lets it choose); elsewhere two roundings, as the native builds (-ffp-contract=off).
inline f32x4 mul_add(f32x4 a, f32x4 b, f32x4 c) {
#if defined(__wasm_relaxed_simd__)
  // clang 14 encodes this with the proposal's early opcode; scripts/relaxed-simd.mjs rewrites it after linking
  return f32x4(__builtin_wasm_fma_f32x4(v128_t(a), v128_t(b), v128_t(c)));
#else
  return a * b + c;
#endif
}
inline float horizontal_sum(f32x4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

// Lane-wise square root, correctly rounded like std::sqrt (one f32x4.sqrt / sqrtps where the target has it).
inline f32x4 sqrt(f32x4 v) {
#if defined(__wasm_simd128__)
  return f32x4(wasm_f32x4_sqrt(v128_t(v)));
#elif defined(__SSE__)
  return f32x4(_mm_sqrt_ps(__m128(v)));
#else
  return f32x4{std::sqrt(v[0]), std::sqrt(v[1]), std::sqrt(v[2]), std::sqrt(v[3])};
#endif
}

}  // namespace rl::simd
