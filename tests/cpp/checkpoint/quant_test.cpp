// The block formats of checkpoint/quant.hpp on hand-built blocks whose values follow from llama.cpp's
// dequantize_row_* by hand; every type against a float64 dequantizer on random blocks is in
// tests/js/gguf.test.mjs.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <vector>

#include "checkpoint/quant.hpp"

using namespace rl::checkpoint;

namespace {
constexpr std::uint8_t kOneLo = 0x00, kOneHi = 0x3c;  // float16 1.0 = 0x3c00, little-endian

std::vector<float> widen(const std::vector<std::uint8_t>& block, Dtype t) {
  std::vector<float> out(dtype_layout(int(t)).block_values);
  to_f32(out.data(), block.data(), out.size(), t);
  return out;
}
}  // namespace

TEST_CASE("the layout table gives each type's block and row bytes", "[checkpoint]") {
  REQUIRE(dtype_layout(int(Dtype::q8_0)).block_bytes == 34);
  REQUIRE(dtype_layout(int(Dtype::q4_k)).block_values == 256);
  REQUIRE(dtype_layout(kDtypeCount).block_bytes == 0);
  REQUIRE(row_bytes(Dtype::q6_k, 4096) == 16 * 210);
  REQUIRE(row_bytes(Dtype::bf16, 896) == 1792);
}

TEST_CASE("Q4_0: (nibble - 8) * d, low nibbles first", "[checkpoint]") {
  std::vector<std::uint8_t> b(18);
  b[0] = kOneLo, b[1] = kOneHi;
  for (int j = 0; j < 16; ++j) b[2 + j] = std::uint8_t(j | ((15 - j) << 4));
  const auto y = widen(b, Dtype::q4_0);
  for (int j = 0; j < 16; ++j) {
    REQUIRE(y[j] == float(j - 8));
    REQUIRE(y[j + 16] == float(7 - j));
  }
}

TEST_CASE("Q3_K: all-zero bits are scale -32 and q = -4 (the high bit clear subtracts 4)", "[checkpoint]") {
  std::vector<std::uint8_t> b(110);
  b[108] = kOneLo, b[109] = kOneHi;
  for (float v : widen(b, Dtype::q3_k)) REQUIRE(v == 128.0f);
}

TEST_CASE("Q4_K: the first sub-block's 6-bit scale and min", "[checkpoint]") {
  std::vector<std::uint8_t> b(144);
  b[0] = kOneLo, b[1] = kOneHi, b[2] = kOneLo, b[3] = kOneHi;  // d = dmin = 1
  b[4] = 2;                                                    // scale of sub-block 0
  b[8] = 1;                                                    // min of sub-block 0
  for (int l = 0; l < 32; ++l) b[16 + l] = std::uint8_t(l % 16);
  const auto y = widen(b, Dtype::q4_k);
  for (int l = 0; l < 32; ++l) REQUIRE(y[l] == 2.0f * float(l % 16) - 1.0f);
  for (int i = 32; i < 256; ++i) REQUIRE(y[i] == 0.0f);
}

TEST_CASE("Q6_K: zero bits are q = -32, times the sub-block's int8 scale", "[checkpoint]") {
  std::vector<std::uint8_t> b(210);
  b[208] = kOneLo, b[209] = kOneHi;
  b[192] = 3;
  b[192 + 15] = std::uint8_t(-1);
  const auto y = widen(b, Dtype::q6_k);
  for (int i = 0; i < 16; ++i) REQUIRE(y[i] == -96.0f);
  for (int i = 16; i < 240; ++i) REQUIRE(y[i] == 0.0f);
  for (int i = 240; i < 256; ++i) REQUIRE(y[i] == 32.0f);
}

TEST_CASE("the vectorized blocks equal the plain unpacking, bit for bit, on random blocks of every type",
          "[checkpoint]") {
  std::uint32_t state = 12345;
  const auto next = [&] { return state = state * 1664525u + 1013904223u; };
  for (int code = 3; code < kDtypeCount; ++code) {
    const Dtype t = Dtype(code);
    const DtypeLayout l = dtype_layout(code);
    std::vector<std::uint8_t> bytes(std::size_t(l.block_bytes) * 8);
    for (auto& b : bytes) b = std::uint8_t(next() >> 24);
    // every float16 field a finite number: exponent bits below 31 (the fields' places differ by type; clearing bit 6
    // of every odd byte's top is enough for the scales, and leaves the quants random)
    for (std::size_t i = 1; i < bytes.size(); i += 2) bytes[i] &= 0xbf;
    std::vector<float> fast(std::size_t(l.block_values) * 8), plain(fast.size());
    to_f32(fast.data(), bytes.data(), fast.size(), t);
    to_f32_reference(plain.data(), bytes.data(), plain.size(), t);
    for (std::size_t i = 0; i < fast.size(); ++i) {
      INFO("type " << code << " value " << i);
      REQUIRE(std::memcmp(&fast[i], &plain[i], sizeof(float)) == 0);
    }
  }
}
