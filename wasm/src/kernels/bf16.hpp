// bfloat16: the top 16 bits of a float32 (1 sign, 8 exponent, 7 mantissa bits), so it has float32's range but
// only 8 significant bits (about 2-3 decimal digits). Conversion rounds to nearest, ties to even, as PyTorch's
// `tensor.to(torch.bfloat16)` does; NaN stays NaN, and values past the largest bfloat16 become +-inf.
#pragma once
#include <cstdint>
#include <cstring>

namespace rl {

inline std::uint16_t float_to_bf16_bits(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);  // quiet NaN
  // round to nearest even: add 0x7fff plus the lowest kept bit, then truncate
  const std::uint32_t lowest_kept_bit = (bits >> 16) & 1u;
  bits += 0x7fffu + lowest_kept_bit;
  return static_cast<std::uint16_t>(bits >> 16);
}

inline float bf16_bits_to_float(std::uint16_t h) {
  const std::uint32_t bits = static_cast<std::uint32_t>(h) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// The float32 value nearest to f that bfloat16 can hold.
inline float round_to_bf16(float f) { return bf16_bits_to_float(float_to_bf16_bits(f)); }

}  // namespace rl
