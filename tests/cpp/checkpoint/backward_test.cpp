// The checkpoint layer's backward against central finite differences of its own forward (layer_forward), for
// each layout (pre, sandwich, OLMo 2), with grouped-query heads, q/k norms of both shapes, biases, the attention
// soft-cap, a sliding window, both activations and both norm conventions. The loss is <R, layer(x)> for a fixed
// random R, so its gradient at the output is R.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "checkpoint/backward.hpp"
#include "checkpoint/forward.hpp"
#include "kernels/bf16.hpp"

using namespace rl::checkpoint;

namespace {

struct Layer {
  LayerSpec spec;
  int window = 0;
  std::vector<std::vector<float>> storage = std::vector<std::vector<float>>(kSlotCount);
  std::vector<float> freq;
  LayerWeights weights() {
    LayerWeights w;
    for (int s = 0; s < kSlotCount; ++s)
      if (!storage[s].empty()) w.w[s] = storage[s].data();
    return w;
  }
};

Layer make_layer(HfPlacement placement, QkNorm qk, Activation act, float offset, float softcap, int window, bool biases,
                 unsigned seed) {
  Layer l;
  LayerSpec& s = l.spec;
  s.d = 8, s.n_heads = 4, s.n_kv_heads = 2, s.head_dim = 4, s.ffn = 12;
  s.eps = 1e-5f, s.norm_offset = offset, s.placement = placement, s.qk_norm = qk, s.activation = act;
  s.attn_scale = 0.5f, s.attn_softcap = softcap;
  l.window = window;
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int slot = 0; slot < kSlotCount; ++slot) {
    const bool bias = slot >= kQBias && slot <= kOBias;
    if (bias && !biases) continue;
    const std::size_t n = slot_size(s, Slot(slot));
    const bool norm = slot <= kKNorm;
    const float scale = norm ? 0.3f : bias ? 0.2f : 0.45f;
    l.storage[slot].resize(n);
    for (float& v : l.storage[slot]) v = (norm && offset == 0 ? 1.0f : 0.0f) + scale * normal(rng);
  }
  l.freq = {1.0f, 0.1f};
  return l;
}

std::vector<float> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

constexpr int T = 5;

// <r, layer(x)> in double
double project(Layer& l, std::vector<float> x, const std::vector<float>& r) {
  Workspace ws;
  std::vector<float> a(T), m(T);
  REQUIRE(layer_forward(x.data(), T, l.spec, l.weights(), l.freq.data(), l.window, a.data(), m.data(), ws).empty());
  double sum = 0;
  for (std::size_t i = 0; i < x.size(); ++i) sum += double(r[i]) * x[i];
  return sum;
}

// d <r, layer(x)> / d x by central differences
std::vector<double> fd_input(Layer& l, const std::vector<float>& x, const std::vector<float>& r) {
  const float h = 1e-2f;
  std::vector<double> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    std::vector<float> xp = x, xm = x;
    xp[i] += h, xm[i] -= h;
    g[i] = (project(l, xp, r) - project(l, xm, r)) / (double(xp[i]) - xm[i]);
  }
  return g;
}

// sum over a slot's weights of (d <r, layer(x)> / d w)^2 by central differences
double fd_param_square(Layer& l, int slot, const std::vector<float>& x, const std::vector<float>& r) {
  const float h = 1e-2f;
  double sum = 0;
  for (float& w : l.storage[slot]) {
    const float keep = w;
    const float up = keep + h, down = keep - h;
    w = up;
    const double p = project(l, x, r);
    w = down;
    const double q = project(l, x, r);
    w = keep;
    const double g = (p - q) / (double(up) - down);
    sum += g * g;
  }
  return sum;
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

// J_f^T r for one sublayer alone: the layer with the other branch switched off (its output projection zero), whose
// output is x + f(x); the gradient of <r, .> minus r.
std::vector<double> fd_branch(Layer l, bool attention, const std::vector<float>& x, const std::vector<float>& r) {
  std::fill(l.storage[attention ? kDown : kO].begin(), l.storage[attention ? kDown : kO].end(), 0.0f);
  if (!attention && !l.storage[kOBias].empty()) std::fill(l.storage[kOBias].begin(), l.storage[kOBias].end(), 0.0f);
  std::vector<double> g = fd_input(l, x, r);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] -= r[i];
  return g;
}

std::vector<float> attention_only(Layer l, const std::vector<float>& x) {
  std::fill(l.storage[kDown].begin(), l.storage[kDown].end(), 0.0f);
  std::vector<float> y = x, a(T), m(T);
  Workspace ws;
  REQUIRE(layer_forward(y.data(), T, l.spec, l.weights(), l.freq.data(), l.window, a.data(), m.data(), ws).empty());
  return y;
}

void check_layer(Layer l) {
  const int d = l.spec.d;
  const std::vector<float> x = random_vector(std::size_t(T) * d, 7), r = random_vector(std::size_t(T) * d, 8);
  std::vector<float> g = r, branch = r, mid(T);
  double gains[4], sq[kSlotCount];
  BackwardWorkspace ws;
  REQUIRE(layer_backward(g.data(), branch.data(), x.data(), T, l.spec, l.weights(), l.freq.data(), l.window,
                         {mid.data(), gains, sq}, ws)
              .empty());
  const double tol = 2e-3;
  // the whole layer: I + f' twice
  const std::vector<double> want = fd_input(l, x, r);
  const double scale = max_abs(want);
  for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(std::fabs(g[i] - want[i]) <= tol * scale);
  // the MLP's share at the output: ||J_mlp^T r||^2 against ||r||^2
  const std::vector<float> xm = attention_only(l, x);
  const std::vector<double> jm = fd_branch(l, false, xm, r);
  double jm2 = 0, r2 = 0;
  for (std::size_t i = 0; i < jm.size(); ++i) jm2 += jm[i] * jm[i], r2 += double(r[i]) * r[i];
  REQUIRE(gains[2] == Approx(jm2).epsilon(5 * tol));
  REQUIRE(gains[3] == Approx(r2).epsilon(1e-6));
  // the gradient between the adds, r + J_mlp^T r, and its norm per position
  std::vector<float> g_mid(r.size());
  for (std::size_t i = 0; i < r.size(); ++i) g_mid[i] = float(r[i] + jm[i]);
  for (int t = 0; t < T; ++t) {
    double n = 0;
    for (int j = 0; j < d; ++j) n += double(g_mid[t * d + j]) * g_mid[t * d + j];
    REQUIRE(mid[t] == Approx(std::sqrt(n)).epsilon(5 * tol));
  }
  // the attention's share at the mid point
  const std::vector<double> ja = fd_branch(l, true, x, g_mid);
  double ja2 = 0, gm2 = 0;
  for (std::size_t i = 0; i < ja.size(); ++i) ja2 += ja[i] * ja[i], gm2 += double(g_mid[i]) * g_mid[i];
  REQUIRE(gains[0] == Approx(ja2).epsilon(5 * tol));
  REQUIRE(gains[1] == Approx(gm2).epsilon(5 * tol));
  // no skip: J_attn^T J_mlp^T r
  std::vector<float> u(jm.begin(), jm.end());
  const std::vector<double> chained = fd_branch(l, true, x, u);
  const double chained_scale = max_abs(chained);
  REQUIRE(chained_scale > 0);
  for (std::size_t i = 0; i < chained.size(); ++i)
    REQUIRE(std::fabs(branch[i] - chained[i]) <= 5 * tol * chained_scale);
  // the forward that keeps its activations gives the layer's output and, from them, the same backward
  {
    std::vector<float> out = x, a(T), m(T), saved(saved_floats(l.spec, T));
    REQUIRE(layer_forward_saved(out.data(), T, l.spec, l.weights(), l.freq.data(), l.window, saved.data(), a.data(),
                                m.data(), ws)
                .empty());
    Workspace fw;
    std::vector<float> plain = x, a2(T), m2(T);
    REQUIRE(
        layer_forward(plain.data(), T, l.spec, l.weights(), l.freq.data(), l.window, a2.data(), m2.data(), fw).empty());
    for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(out[i] == Approx(plain[i]).margin(1e-5));
    for (int t = 0; t < T; ++t) REQUIRE((a[t] == Approx(a2[t]).margin(1e-5) && m[t] == Approx(m2[t]).margin(1e-5)));
    std::vector<float> g2 = r, branch2 = r, mid2(T);
    double gains2[4], sq2[kSlotCount];
    REQUIRE(layer_backward(g2.data(), branch2.data(), x.data(), T, l.spec, l.weights(), l.freq.data(), l.window,
                           {mid2.data(), gains2, sq2}, ws, saved.data())
                .empty());
    REQUIRE(g2 == g);
    REQUIRE(branch2 == branch);
    for (int k = 0; k < 4; ++k) REQUIRE(gains2[k] == gains[k]);
    fw.release();
  }
  // every weight's ||dloss/dW||^2
  for (int slot = 0; slot < kSlotCount; ++slot) {
    if (l.storage[slot].empty()) {
      REQUIRE(sq[slot] == 0.0);
      continue;
    }
    INFO("slot " << slot);
    REQUIRE(sq[slot] == Approx(fd_param_square(l, slot, x, r)).epsilon(5 * tol).margin(1e-6));
  }
  ws.release();
}

}  // namespace

TEST_CASE("a pre-norm layer's backward (Llama, Qwen2 with biases) matches finite differences", "[checkpoint]") {
  check_layer(make_layer(HfPlacement::pre, QkNorm::none, Activation::silu, 0.0f, 0.0f, 0, true, 1));
}

TEST_CASE("a sandwich layer's backward (Gemma 2: 1 + w, soft-cap, window, GeGLU) matches finite differences",
          "[checkpoint]") {
  check_layer(make_layer(HfPlacement::sandwich, QkNorm::none, Activation::gelu_tanh, 1.0f, 1.5f, 3, false, 2));
}

TEST_CASE("per-head q/k norms (Qwen3, Gemma 3) in the backward match finite differences", "[checkpoint]") {
  check_layer(make_layer(HfPlacement::pre, QkNorm::per_head, Activation::silu, 0.0f, 0.0f, 0, false, 3));
  check_layer(make_layer(HfPlacement::sandwich, QkNorm::per_head, Activation::gelu_tanh, 1.0f, 0.0f, 2, false, 4));
}

TEST_CASE(
    "an OLMo 2 layer's backward (norms after each branch, whole-projection q/k norms) matches finite "
    "differences",
    "[checkpoint]") {
  check_layer(make_layer(HfPlacement::olmo2, QkNorm::whole, Activation::silu, 0.0f, 0.0f, 0, false, 5));
}

TEST_CASE("the backward reads BF16 and F16 projections as their float32 values", "[checkpoint]") {
  Layer l = make_layer(HfPlacement::pre, QkNorm::none, Activation::silu, 0.0f, 0.0f, 0, false, 6);
  l.spec.ffn = 40;  // more rows than one widening panel
  l.storage[kGate] = random_vector(std::size_t(l.spec.ffn) * l.spec.d, 11);
  l.storage[kUp] = random_vector(std::size_t(l.spec.ffn) * l.spec.d, 12);
  l.storage[kDown] = random_vector(std::size_t(l.spec.ffn) * l.spec.d, 13);
  for (int slot : {int(kQ), int(kK), int(kV), int(kO), int(kGate), int(kUp), int(kDown)})
    for (float& v : l.storage[slot]) v = rl::round_to_bf16(v);
  const std::vector<float> x = random_vector(std::size_t(T) * l.spec.d, 9), r = random_vector(x.size(), 10);
  std::vector<float> g32 = r, g16 = r;
  double sq32[kSlotCount], sq16[kSlotCount];
  BackwardWorkspace ws;
  REQUIRE(layer_backward(g32.data(), nullptr, x.data(), T, l.spec, l.weights(), l.freq.data(), 0,
                         {nullptr, nullptr, sq32}, ws)
              .empty());
  std::vector<std::vector<std::uint16_t>> bits(kSlotCount);
  LayerWeights w = l.weights();
  for (int slot : {int(kQ), int(kK), int(kV), int(kO), int(kGate), int(kUp), int(kDown)}) {
    for (float v : l.storage[slot]) bits[slot].push_back(rl::float_to_bf16_bits(v));
    w.w[slot] = bits[slot].data();
    w.dtype[slot] = Dtype::bf16;
  }
  REQUIRE(layer_backward(g16.data(), nullptr, x.data(), T, l.spec, w, l.freq.data(), 0, {nullptr, nullptr, sq16}, ws)
              .empty());
  // the same products summed in another order (32 widened rows at a time): equal to float32 rounding
  float scale = 0;
  for (float v : g32) scale = std::max(scale, std::fabs(v));
  for (std::size_t i = 0; i < g32.size(); ++i) REQUIRE(std::fabs(g16[i] - g32[i]) <= 1e-5f * scale);
  for (int slot = 0; slot < kSlotCount; ++slot) REQUIRE(sq16[slot] == Approx(sq32[slot]).epsilon(1e-5));
  ws.release();
}
