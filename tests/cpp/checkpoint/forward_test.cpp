// The checkpoint forward's own C++: the float formats widened to float32, and a layer that refuses what it
// cannot run instead of reading a null weight. (Its numbers against a float64 forward of each family are checked
// in tests/js/checkpoint.test.mjs, on checkpoints written by tests/fixtures/checkpoints/.)
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "checkpoint/forward.hpp"
#include "kernels/bf16.hpp"

using namespace rl::checkpoint;

namespace {
// IEEE 754 binary16: (-1)^s * 2^(e - 15) * (1 + m / 1024), subnormals 2^-14 * m / 1024
double half_value(std::uint16_t h) {
  const int s = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double sign = s ? -1.0 : 1.0;
  if (e == 0x1f) return m ? NAN : sign * INFINITY;
  if (e == 0) return sign * std::ldexp(m / 1024.0, -14);
  return sign * std::ldexp(1.0 + m / 1024.0, e - 15);
}
}  // namespace

TEST_CASE("every F16 bit pattern widens to its exact float32 value", "[checkpoint]") {
  std::vector<std::uint16_t> halves(65536);
  for (int i = 0; i < 65536; ++i) halves[i] = static_cast<std::uint16_t>(i);
  std::vector<float> out(65536);
  to_f32(out.data(), halves.data(), halves.size(), Dtype::f16);
  for (int i = 0; i < 65536; ++i) {
    const double want = half_value(static_cast<std::uint16_t>(i));
    if (std::isnan(want)) REQUIRE(std::isnan(out[i]));
    else REQUIRE(static_cast<double>(out[i]) == want);
    if (want == 0) REQUIRE(std::signbit(out[i]) == bool(i & 0x8000));
  }
}

TEST_CASE("BF16 widens to the float32 whose top half it is, at any alignment", "[checkpoint]") {
  const float values[] = {1.0f, -2.5f, 3.140625f, 1e-30f, -0.0f, 65504.0f, 0.1f};
  std::vector<unsigned char> bytes(1 + 2 * std::size(values));
  for (std::size_t i = 0; i < std::size(values); ++i) {
    const std::uint16_t h = rl::float_to_bf16_bits(values[i]);
    std::memcpy(bytes.data() + 1 + 2 * i, &h, 2);  // odd offset: tensors in a file need not be aligned
  }
  std::vector<float> out(std::size(values));
  to_f32(out.data(), bytes.data() + 1, out.size(), Dtype::bf16);
  for (std::size_t i = 0; i < std::size(values); ++i) REQUIRE(out[i] == rl::round_to_bf16(values[i]));
}

TEST_CASE("a layer refuses a bad spec or a missing weight instead of running", "[checkpoint]") {
  LayerSpec spec;
  spec.d = 8;
  spec.n_heads = 2;
  spec.n_kv_heads = 1;
  spec.head_dim = 4;
  spec.ffn = 8;
  spec.attn_scale = 0.5f;
  std::vector<float> x(8 * 3, 0.5f), norms(3), freq(2, 1.0f);
  Workspace ws;
  LayerWeights none;
  REQUIRE(layer_forward(x.data(), 3, spec, none, freq.data(), 0, norms.data(), norms.data(), ws)
              .starts_with("missing weight"));
  LayerSpec odd = spec;
  odd.n_kv_heads = 3;
  REQUIRE(check_spec(odd) == "num_attention_heads must be a multiple of num_key_value_heads");
  odd = spec;
  odd.head_dim = 3;
  REQUIRE_FALSE(check_spec(odd).empty());
  REQUIRE(check_spec(spec).empty());
  // with every weight present the layer runs; a zero output projection and MLP leave the stream as it was
  std::vector<std::vector<float>> storage(kSlotCount);
  LayerWeights w;
  for (int s = 0; s < kSlotCount; ++s) {
    storage[s].assign(slot_size(spec, Slot(s)), 0.0f);
    if (!storage[s].empty()) w.w[s] = storage[s].data();
  }
  storage[kAttnNormBefore].assign(8, 1.0f);
  storage[kMlpNormBefore].assign(8, 1.0f);
  std::vector<float> attn(3), mlp(3);
  REQUIRE(layer_forward(x.data(), 3, spec, w, freq.data(), 0, attn.data(), mlp.data(), ws).empty());
  for (float v : x) REQUIRE(v == 0.5f);
  for (int t = 0; t < 3; ++t) REQUIRE((attn[t] == 0.0f && mlp[t] == 0.0f));
  ws.release();
}
