// 4-lane float32 SIMD written once with GCC/Clang vector extensions.
//   em++ -msimd128      -> WebAssembly f32x4 instructions
//   em++ (no -msimd128) -> the same code lowered to scalar ops (the "scalar WASM" build)
//   g++ -march=native   -> SSE/AVX on the host, for native tests and benchmarks
// Eigen 3.4 has no WebAssembly packet code, so hot loops use this type instead.
#pragma once
#include <cstring>

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
inline float horizontal_sum(f32x4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }

}  // namespace rl::simd
