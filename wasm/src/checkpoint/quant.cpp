#include "checkpoint/quant.hpp"

#include <cstring>
#include <iterator>

#include "kernels/simd.hpp"

namespace rl::checkpoint {

namespace {

constexpr DtypeLayout kLayouts[] = {
#define RL_DTYPE_LAYOUT(name, code, values, bytes) {values, bytes},
    RL_CHECKPOINT_DTYPES(RL_DTYPE_LAYOUT)
#undef RL_DTYPE_LAYOUT
};
static_assert(std::size(kLayouts) == kDtypeCount);

constexpr int kMaxBlock = 256;

// One block unpacked: q[block] small integers, scale[] and min[] per sub-block of `sub` values.
struct Unpacked {
  std::int8_t q[kMaxBlock];
  float scale[kMaxBlock / 16], min[kMaxBlock / 16];
  int sub = 32;
};

float half(const unsigned char* p) {
  std::uint16_t h;
  std::memcpy(&h, p, 2);
  return f16_bits_to_float(h);
}

// y[i] = scale[i / sub] * q[i] - min[i / sub], four lanes at a time (four int8 widened to float32 by one
// convertvector: i16x8 / i32x4 extends and a convert in WASM SIMD).
void apply(float* y, const Unpacked& u, int values) {
  using simd::f32x4;
  typedef std::int8_t i8x4 __attribute__((vector_size(4)));
  for (int s = 0; s * u.sub < values; ++s) {
    const f32x4 scale = simd::splat(u.scale[s]), min = simd::splat(u.min[s]);
    for (int i = s * u.sub; i < (s + 1) * u.sub; i += 4) {
      i8x4 q;
      std::memcpy(&q, u.q + i, sizeof q);
      simd::store(y + i, scale * __builtin_convertvector(q, f32x4) - min);
    }
  }
}

// K-quants' 6-bit sub-scales and mins, 8 of each packed in 12 bytes (get_scale_min_k4 in ggml-quants.c).
void scale_min_k4(int j, const unsigned char* q, int* sc, int* m) {
  if (j < 4) {
    *sc = q[j] & 63;
    *m = q[j + 4] & 63;
  } else {
    *sc = (q[j + 4] & 0xF) | ((q[j - 4] >> 6) << 4);
    *m = (q[j + 4] >> 4) | ((q[j] >> 6) << 4);
  }
}

// The common types (those of Q8_0 and Q4_K_M files) unpacked 16 values at a time in byte vectors instead:
// nibbles masked and shifted, the fifth or sixth bits spread from their bytes by a compare against one bit per
// lane, then widened and scaled as apply() does.
typedef std::uint8_t u8x16 __attribute__((vector_size(16)));
typedef std::int8_t i8x16 __attribute__((vector_size(16)));
typedef float f32x16 __attribute__((vector_size(64)));

u8x16 load16(const unsigned char* p) {
  u8x16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// y[0..16) = scale * q - min. In WASM SIMD the lanes are widened by explicit extends (int8 -> int16 -> int32) and
// turned into floats by the exponent trick, float(i) = bits(0x4B400000 + i) - 1.5 * 2^23 for |i| < 2^22 (the
// float whose ulp is 1 holds i in its mantissa; the subtraction is exact): clang 14 folds a sign extension
// followed by a convert (or a 16-lane convertvector) into one value at a time (an extract, a scalar convert and a
// replace per lane).
void scale16(float* y, i8x16 q, float scale, float min) {
#if defined(__wasm_simd128__)
  const v128_t lo = wasm_i16x8_extend_low_i8x16(v128_t(q)), hi = wasm_i16x8_extend_high_i8x16(v128_t(q));
  const v128_t quarters[4] = {wasm_i32x4_extend_low_i16x8(lo), wasm_i32x4_extend_high_i16x8(lo),
                              wasm_i32x4_extend_low_i16x8(hi), wasm_i32x4_extend_high_i16x8(hi)};
  const v128_t magic = wasm_i32x4_splat(0x4B400000);
  const simd::f32x4 s = simd::splat(scale), m = simd::splat(min), shift = simd::splat(12582912.0f);
  for (int k = 0; k < 4; ++k) simd::store(y + 4 * k, (simd::f32x4(wasm_i32x4_add(quarters[k], magic)) - shift) * s - m);
#else
  const f32x16 f = __builtin_convertvector(q, f32x16) * scale - min;
  std::memcpy(y, &f, sizeof f);
#endif
}

// 0x10 in lane j where bit j of the 16 bits (qh[0], qh[1]) is set (qh[0] spread over lanes 0-7, qh[1] over 8-15
// by one shuffle, then one bit per lane tested)
u8x16 bit4(const unsigned char* qh) {
  u8x16 h{};
  std::memcpy(&h, qh, 2);
  const u8x16 bytes = __builtin_shufflevector(h, h, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
  const u8x16 mask = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
  return u8x16((bytes & mask) == mask) & 0x10;
}

void unpack(Dtype t, const unsigned char* b, Unpacked& u);

// Returns false for a type it does not cover (unpack() and apply() then run).
bool widen_block(Dtype t, const unsigned char* b, float* y) {
  switch (t) {
    case Dtype::q2_k:
    case Dtype::q3_k: {  // their 2- and 3-bit fields unpacked value by value, then widened 16 (a sub-block) at a time
      Unpacked u;
      unpack(t, b, u);
      for (int s = 0; s < 16; ++s) {
        i8x16 q;
        std::memcpy(&q, u.q + 16 * s, sizeof q);
        scale16(y + 16 * s, q, u.scale[s], u.min[s]);
      }
      return true;
    }
    case Dtype::q8_0: {
      const float d = half(b);
      scale16(y, i8x16(load16(b + 2)), d, 0);
      scale16(y + 16, i8x16(load16(b + 18)), d, 0);
      return true;
    }
    case Dtype::q4_0:
    case Dtype::q4_1: {
      const bool one = t == Dtype::q4_1;
      const u8x16 qs = load16(b + (one ? 4 : 2));
      const float d = half(b), min = one ? -half(b + 2) : 0;
      const std::int8_t bias = one ? 0 : 8;
      scale16(y, i8x16(qs & 0xF) - bias, d, min);
      scale16(y + 16, i8x16(qs >> 4) - bias, d, min);
      return true;
    }
    case Dtype::q5_0:
    case Dtype::q5_1: {
      const bool one = t == Dtype::q5_1;
      const unsigned char* qh = b + (one ? 4 : 2);
      const u8x16 qs = load16(qh + 4);
      const float d = half(b), min = one ? -half(b + 2) : 0;
      const std::int8_t bias = one ? 0 : 16;
      scale16(y, i8x16((qs & 0xF) | bit4(qh)) - bias, d, min);
      scale16(y + 16, i8x16((qs >> 4) | bit4(qh + 2)) - bias, d, min);
      return true;
    }
    case Dtype::q4_k:
    case Dtype::q5_k: {
      const bool five = t == Dtype::q5_k;
      const float d = half(b), dmin = half(b + 2);
      const unsigned char *scales = b + 4, *qh = b + 16, *qs = b + (five ? 48 : 16);
      const u8x16 h0 = load16(qh), h1 = load16(qh + 16);
      for (int j = 0; j < 4; ++j) {  // 64 values: sub-block 2j from the low nibbles, 2j + 1 from the high
        int sc[2], m[2];
        scale_min_k4(2 * j, scales, &sc[0], &m[0]);
        scale_min_k4(2 * j + 1, scales, &sc[1], &m[1]);
        for (int part = 0; part < 2; ++part) {
          const u8x16 q = load16(qs + 32 * j + 16 * part), h = part ? h1 : h0;
          const u8x16 lo = q & 0xF, hi = q >> 4;
          const std::uint8_t u1 = std::uint8_t(1 << (2 * j)), u2 = std::uint8_t(2 << (2 * j));
          const u8x16 add_lo = five ? u8x16((h & u1) != 0) & 0x10 : u8x16{};
          const u8x16 add_hi = five ? u8x16((h & u2) != 0) & 0x10 : u8x16{};
          scale16(y + 64 * j + 16 * part, i8x16(lo | add_lo), d * float(sc[0]), dmin * float(m[0]));
          scale16(y + 64 * j + 32 + 16 * part, i8x16(hi | add_hi), d * float(sc[1]), dmin * float(m[1]));
        }
      }
      return true;
    }
    case Dtype::q6_k: {
      const float d = half(b + 208);
      const auto* sc = reinterpret_cast<const std::int8_t*>(b + 192);
      for (int n = 0; n < 2; ++n)
        for (int part = 0; part < 2; ++part) {  // values 128 n + 32 k + 16 part + l, l < 16
          const int l = 16 * part;
          const u8x16 ql0 = load16(b + 64 * n + l), ql1 = load16(b + 64 * n + 32 + l), h = load16(b + 128 + 32 * n + l);
          const u8x16 q[4] = {(ql0 & 0xF) | ((h & 3) << 4), (ql1 & 0xF) | (((h >> 2) & 3) << 4),
                              (ql0 >> 4) | (((h >> 4) & 3) << 4), (ql1 >> 4) | ((h >> 6) << 4)};
          for (int k = 0; k < 4; ++k) {
            const float scale = d * float(sc[8 * n + part + 2 * k]);
            scale16(y + 128 * n + 32 * k + l, i8x16(q[k]) - std::int8_t(32), scale, 0);
          }
        }
      return true;
    }
    default: return false;
  }
}

// Each type's block -> q, scale, min, in the order of llama.cpp's dequantize_row_*.
void unpack(Dtype t, const unsigned char* b, Unpacked& u) {
  switch (t) {
    case Dtype::q8_0: {  // d, int8 qs[32]
      u.sub = 32;
      u.scale[0] = half(b);
      u.min[0] = 0;
      std::memcpy(u.q, b + 2, 32);
      return;
    }
    case Dtype::q4_0:
    case Dtype::q4_1: {  // d (, m), qs[16]: low nibbles are values 0-15, high nibbles 16-31
      const bool one = t == Dtype::q4_1;
      const unsigned char* qs = b + (one ? 4 : 2);
      u.sub = 32;
      u.scale[0] = half(b);
      u.min[0] = one ? -half(b + 2) : 0;
      const int bias = one ? 0 : 8;
      for (int j = 0; j < 16; ++j) {
        u.q[j] = std::int8_t((qs[j] & 0xF) - bias);
        u.q[j + 16] = std::int8_t((qs[j] >> 4) - bias);
      }
      return;
    }
    case Dtype::q5_0:
    case Dtype::q5_1: {  // d (, m), qh (32 fifth bits), qs[16]
      const bool one = t == Dtype::q5_1;
      const unsigned char* p = b + (one ? 4 : 2);
      std::uint32_t qh;
      std::memcpy(&qh, p, 4);
      const unsigned char* qs = p + 4;
      u.sub = 32;
      u.scale[0] = half(b);
      u.min[0] = one ? -half(b + 2) : 0;
      const int bias = one ? 0 : 16;
      for (int j = 0; j < 16; ++j) {
        const int h0 = ((qh >> j) << 4) & 0x10, h1 = (qh >> (j + 12)) & 0x10;
        u.q[j] = std::int8_t(((qs[j] & 0xF) | h0) - bias);
        u.q[j + 16] = std::int8_t(((qs[j] >> 4) | h1) - bias);
      }
      return;
    }
    case Dtype::q2_k: {  // scales[16] (4-bit scale | 4-bit min), qs[64] (2 bits), d, dmin
      const unsigned char *scales = b, *qs = b + 16;
      const float d = half(b + 80), dmin = half(b + 82);
      u.sub = 16;
      for (int s = 0; s < 16; ++s) {
        u.scale[s] = d * float(scales[s] & 0xF);
        u.min[s] = dmin * float(scales[s] >> 4);
      }
      for (int i = 0; i < 256; ++i) {  // i = n + 32 j + 16 half + l: byte n / 4 + 16 half + l, bits 2 j
        const int n = i / 128, j = (i / 32) % 4, rest = i % 32;
        u.q[i] = std::int8_t((qs[32 * n + rest] >> (2 * j)) & 3);
      }
      return;
    }
    case Dtype::q3_k: {  // hmask[32], qs[64] (2 low bits), scales[12] (16 6-bit scales), d
      const unsigned char *hmask = b, *qs = b + 32, *packed = b + 96;
      const float d = half(b + 108);
      u.sub = 16;
      for (int s = 0; s < 16; ++s) {
        // scale s: low 4 bits from byte s % 8 (nibble s / 8), high 2 bits from byte 8 + s % 4 (bits 2 (s / 4))
        const int low = (packed[s % 8] >> (4 * (s / 8))) & 0xF, high = (packed[8 + s % 4] >> (2 * (s / 4))) & 3;
        u.scale[s] = d * float((low | (high << 4)) - 32);
        u.min[s] = 0;
      }
      for (int i = 0; i < 256; ++i) {  // as Q2_K, and the third bit (set: +0, clear: -4) in hmask bit 4 n + j
        const int n = i / 128, j = (i / 32) % 4, rest = i % 32;
        const int low = (qs[32 * n + rest] >> (2 * j)) & 3;
        u.q[i] = std::int8_t(low - ((hmask[rest] >> (4 * n + j)) & 1 ? 0 : 4));
      }
      return;
    }
    case Dtype::q4_k:
    case Dtype::q5_k: {  // d, dmin, scales[12] (8 6-bit scales and mins), (qh[32],) qs[128]
      const bool five = t == Dtype::q5_k;
      const float d = half(b), dmin = half(b + 2);
      const unsigned char *scales = b + 4, *qh = b + 16, *qs = b + (five ? 48 : 16);
      u.sub = 32;
      for (int s = 0; s < 8; ++s) {
        int sc, m;
        scale_min_k4(s, scales, &sc, &m);
        u.scale[s] = d * float(sc);
        u.min[s] = dmin * float(m);
      }
      for (int i = 0; i < 256;
           ++i) {  // sub-block s = i / 32: nibble s % 2 of byte 32 (s / 2) + l; fifth bit s of qh[l]
        const int s = i / 32, l = i % 32;
        const int nibble = (qs[32 * (s / 2) + l] >> (4 * (s % 2))) & 0xF;
        u.q[i] = std::int8_t(nibble | (five ? ((qh[l] >> s) & 1) << 4 : 0));
      }
      return;
    }
    case Dtype::q6_k: {  // ql[128] (low 4 bits), qh[64] (high 2 bits), int8 scales[16], d
      const unsigned char *ql = b, *qh = b + 128;
      const float d = half(b + 208);
      u.sub = 16;
      for (int s = 0; s < 16; ++s) {
        u.scale[s] = d * float(std::int8_t(b[192 + s]));
        u.min[s] = 0;
      }
      for (int i = 0; i < 256;
           ++i) {  // i = 128 n + 32 k + l: ql[64 n + l + 32 (k % 2)] nibble k / 2, qh[32 n + l] bits 2 k
        const int n = i / 128, k = (i / 32) % 4, l = i % 32;
        const int low = (ql[64 * n + l + 32 * (k % 2)] >> (4 * (k / 2))) & 0xF;
        const int high = (qh[32 * n + l] >> (2 * k)) & 3;
        u.q[i] = std::int8_t((low | (high << 4)) - 32);
      }
      return;
    }
    default: return;
  }
}

}  // namespace

DtypeLayout dtype_layout(int code) { return code >= 0 && code < kDtypeCount ? kLayouts[code] : DtypeLayout{0, 0}; }

std::size_t row_bytes(Dtype dtype, std::size_t n) {
  const DtypeLayout l = kLayouts[int(dtype)];
  return n / std::size_t(l.block_values) * std::size_t(l.block_bytes);
}

float f16_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);  // inf, NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 -> 127
  } else {
    // zero or subnormal: mantissa * 2^-24, exact in float32
    const float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    std::memcpy(&bits, &magnitude, sizeof bits);
    bits |= sign;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

namespace {
void widen(float* out, const void* in, std::size_t n, Dtype dtype, bool vectorized) {
  const auto* bytes = static_cast<const unsigned char*>(in);
  if (dtype == Dtype::f32) {
    std::memcpy(out, in, n * sizeof(float));
    return;
  }
  if (dtype == Dtype::bf16) {
    // bfloat16 is float32's top half: widen and shift (a loop the compiler turns into SIMD widen-and-shift).
    auto* out_bits = reinterpret_cast<std::uint32_t*>(out);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, bytes + 2 * i, 2);
      out_bits[i] = static_cast<std::uint32_t>(h) << 16;
    }
    return;
  }
  if (dtype == Dtype::f16) {
    for (std::size_t i = 0; i < n; ++i) {
      std::uint16_t h;
      std::memcpy(&h, bytes + 2 * i, 2);
      out[i] = f16_bits_to_float(h);
    }
    return;
  }
  const DtypeLayout l = kLayouts[int(dtype)];
  Unpacked u;
  for (std::size_t i = 0; i < n; i += l.block_values, bytes += l.block_bytes) {
    if (vectorized && widen_block(dtype, bytes, out + i)) continue;
    unpack(dtype, bytes, u);
    apply(out + i, u, l.block_values);
  }
}

}  // namespace

void to_f32(float* out, const void* in, std::size_t n, Dtype dtype) { widen(out, in, n, dtype, true); }
void to_f32_reference(float* out, const void* in, std::size_t n, Dtype dtype) { widen(out, in, n, dtype, false); }

}  // namespace rl::checkpoint
