// The weight formats a checkpoint's tensors may be stored in, and their widening to float32. F32, F16 and BF16
// are safetensors' (and GGUF's) plain floats; the others are llama.cpp's block quantizations (ggml-common.h,
// ggml-quants.c): a row of n values is n / block blocks of `bytes` bytes each, and a block's value i is
//   y[i] = scale[s] * q[i] - min[s],   s = i / sub (its sub-block)
// with q a small integer unpacked from the block's bits and scale, min float16 numbers or products of a float16
// super-scale with a 4-, 6- or 8-bit sub-scale. Each type's code unpacks q, scale and min; one f32x4 loop applies
// the formula.
#pragma once
#include <cstddef>
#include <cstdint>

namespace rl::checkpoint {

// X(name, code, values per block, bytes per block); the codes are the lab's (web/lib/checkpoint/gguf-types.js
// maps GGUF's type ids to them, and tests/js/gguf-dequant.test.mjs checks its copy of this table against it).
#define RL_CHECKPOINT_DTYPES(X) \
  X(f32, 0, 1, 4)               \
  X(f16, 1, 1, 2)               \
  X(bf16, 2, 1, 2)              \
  X(q8_0, 3, 32, 34)            \
  X(q4_0, 4, 32, 18)            \
  X(q4_1, 5, 32, 20)            \
  X(q5_0, 6, 32, 22)            \
  X(q5_1, 7, 32, 24)            \
  X(q2_k, 8, 256, 84)           \
  X(q3_k, 9, 256, 110)          \
  X(q4_k, 10, 256, 144)         \
  X(q5_k, 11, 256, 176)         \
  X(q6_k, 12, 256, 210)

enum class Dtype : int {
#define RL_DTYPE_ENUM(name, code, values, bytes) name = code,
  RL_CHECKPOINT_DTYPES(RL_DTYPE_ENUM)
#undef RL_DTYPE_ENUM
};
inline constexpr int kDtypeCount = 13;

struct DtypeLayout {
  int block_values, block_bytes;
};
// The layout of `code`, or {0, 0} for a code that names no type.
DtypeLayout dtype_layout(int code);
// Bytes of n values (n a multiple of the block size).
std::size_t row_bytes(Dtype dtype, std::size_t n);

// n values of `dtype` at `in` (any alignment; n a multiple of the block size) widened to float32.
void to_f32(float* out, const void* in, std::size_t n, Dtype dtype);
// The same by the plain per-value unpacking of every type: the reference the vectorized blocks are tested against.
void to_f32_reference(float* out, const void* in, std::size_t n, Dtype dtype);
float f16_bits_to_float(std::uint16_t h);

}  // namespace rl::checkpoint
