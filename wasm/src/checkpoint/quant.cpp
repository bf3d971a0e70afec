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

// y[i] = scale[i / sub] * q[i] - min[i / sub], four lanes at a time.
void apply(float* y, const Unpacked& u, int values) {
  using simd::f32x4;
  typedef int i32x4 __attribute__((vector_size(16)));
  for (int s = 0; s * u.sub < values; ++s) {
    const f32x4 scale = simd::splat(u.scale[s]), min = simd::splat(u.min[s]);
    for (int i = s * u.sub; i < (s + 1) * u.sub; i += 4) {
      const i32x4 q = {u.q[i], u.q[i + 1], u.q[i + 2], u.q[i + 3]};
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

void to_f32(float* out, const void* in, std::size_t n, Dtype dtype) {
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
    unpack(dtype, bytes, u);
    apply(out + i, u, l.block_values);
  }
}

}  // namespace rl::checkpoint
