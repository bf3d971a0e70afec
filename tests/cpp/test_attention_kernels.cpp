// kernels/attention.hpp (attention, RoPE) and kernels/gated.hpp against float64 references written from their
// formulas, and each backward against central differences of that reference (in double, so the differences are
// exact to ~1e-9).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "kernels/attention.hpp"
#include "kernels/gated.hpp"

namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = normal(rng);
  return v;
}

// The attention of kernels/attention.hpp's comment, in double.
std::vector<double> attention_reference(const std::vector<double>& q, const std::vector<double>& k,
                                        const std::vector<double>& v, const rl::AttentionShape& s) {
  std::vector<double> y(std::size_t(s.T) * s.ldq, 0.0);
  const int group = s.H / s.KV;
  for (int h = 0; h < s.H; ++h)
    for (int t = 0; t < s.T; ++t) {
      const int first = s.window > 0 ? std::max(0, t - s.window + 1) : 0;
      std::vector<double> c(t + 1 - first);
      for (int j = first; j <= t; ++j) {
        double dot = 0;
        for (int i = 0; i < s.dh; ++i) dot += q[t * s.ldq + h * s.dh + i] * k[j * s.ldkv + (h / group) * s.dh + i];
        const double score = s.scale * dot;
        c[j - first] = s.softcap > 0 ? s.softcap * std::tanh(score / s.softcap) : score;
      }
      const double max = *std::max_element(c.begin(), c.end());
      double sum = 0;
      for (double& x : c) sum += (x = std::exp(x - max));
      for (int j = first; j <= t; ++j)
        for (int i = 0; i < s.dh; ++i)
          y[t * s.ldq + h * s.dh + i] += c[j - first] / sum * v[j * s.ldkv + (h / group) * s.dh + i];
    }
  return y;
}

// RoPE of kernels/attention.hpp's comment, in double: per head, the pair (i, i + dh/2) at position t turned by
// t * inv_freq[i].
std::vector<double> rope_reference(const std::vector<double>& x, int T, int heads, int dh,
                                   const std::vector<float>& inv_freq) {
  std::vector<double> y(x.size());
  const int half = dh / 2;
  for (int t = 0; t < T; ++t)
    for (int h = 0; h < heads; ++h)
      for (int i = 0; i < half; ++i) {
        const std::size_t at = std::size_t(t) * heads * dh + h * dh + i;
        const double angle = t * double(inv_freq[i]), a = x[at], b = x[at + half];
        y[at] = a * std::cos(angle) - b * std::sin(angle);
        y[at + half] = b * std::cos(angle) + a * std::sin(angle);
      }
  return y;
}

std::vector<double> widen(const std::vector<float>& x) { return {x.begin(), x.end()}; }

// d <r, f(x)> / dx_i for every i, central differences in double
std::vector<double> fd_gradient(std::vector<double> x, const std::function<double(const std::vector<double>&)>& f) {
  const double h = 1e-6;
  std::vector<double> g(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = f(x);
    x[i] = keep - h;
    const double down = f(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

double dot(const std::vector<float>& r, const std::vector<double>& y) {
  double s = 0;
  for (std::size_t i = 0; i < r.size(); ++i) s += r[i] * y[i];
  return s;
}

void require_close(const std::vector<float>& got, const std::vector<double>& want, double rtol) {
  double scale = 0;
  for (double w : want) scale = std::max(scale, std::fabs(w));
  REQUIRE(scale > 0);
  for (std::size_t i = 0; i < want.size(); ++i) REQUIRE(std::fabs(got[i] - want[i]) <= rtol * scale);
}

void check_attention(const rl::AttentionShape& s) {
  const std::size_t nq = std::size_t(s.T) * s.ldq, nk = std::size_t(s.T) * s.ldkv, tt = std::size_t(s.T) * s.T;
  const auto q = random_floats(nq, 1), k = random_floats(nk, 2), v = random_floats(nk, 3), r = random_floats(nq, 4);
  std::vector<float> y(nq), scores(s.H * tt), probs(s.H * tt);
  rl::attention_forward(y.data(), scores.data(), probs.data(), q.data(), k.data(), v.data(), s);
  require_close(y, attention_reference(widen(q), widen(k), widen(v), s), 1e-5);
  std::vector<float> dq(nq, 0.0f), dk(nk, 0.0f), dv(nk, 0.0f), dP(tt), G(tt), d_raw(s.T);
  rl::attention_backward(dq.data(), dk.data(), dv.data(), dP.data(), G.data(), d_raw.data(), r.data(), q.data(),
                         k.data(), v.data(), scores.data(), probs.data(), s);
  const auto Q = widen(q), K = widen(k), Vv = widen(v);
  require_close(dq, fd_gradient(Q, [&](const auto& x) { return dot(r, attention_reference(x, K, Vv, s)); }), 1e-5);
  require_close(dk, fd_gradient(K, [&](const auto& x) { return dot(r, attention_reference(Q, x, Vv, s)); }), 1e-5);
  require_close(dv, fd_gradient(Vv, [&](const auto& x) { return dot(r, attention_reference(Q, K, x, s)); }), 1e-5);
}

}  // namespace

TEST_CASE("attention: causal multi-head, grouped-query with a soft-cap and a sliding window", "[kernels]") {
  check_attention({9, 2, 2, 4, 8, 8, 0.5f, 0.0f, 0});    // the toy's heads
  check_attention({9, 4, 2, 4, 16, 8, 0.5f, 1.5f, 3});   // two query heads per key/value head, capped, window 3
  check_attention({11, 3, 1, 4, 12, 4, 0.7f, 0.0f, 0});  // one key/value head (multi-query); a block of 8 and 3
}

TEST_CASE("RoPE's inverse is its transpose and undoes it", "[kernels]") {
  const int T = 5, heads = 2, dh = 6;
  const std::vector<float> inv_freq = {1.0f, 0.3f, 0.01f};
  const auto x = random_floats(T * heads * dh, 5), y = random_floats(T * heads * dh, 6);
  std::vector<float> rx(x.size()), rty(y.size()), back(x.size());
  rl::rope_rotate(rx.data(), x.data(), T, heads, dh, inv_freq.data(), false);
  rl::rope_rotate(rty.data(), y.data(), T, heads, dh, inv_freq.data(), true);
  rl::rope_rotate(back.data(), rx.data(), T, heads, dh, inv_freq.data(), true);
  double a = 0, b = 0;
  for (std::size_t i = 0; i < x.size(); ++i) a += double(rx[i]) * y[i], b += double(x[i]) * rty[i];
  REQUIRE(a == Approx(b).epsilon(1e-6));
  for (std::size_t i = 0; i < x.size(); ++i) REQUIRE(back[i] == Approx(x[i]).margin(1e-6));
  // position 1, pair 0 turns by 1 radian: (a, b) -> (a cos 1 - b sin 1, b cos 1 + a sin 1)
  const int at = heads * dh;
  REQUIRE(rx[at] == Approx(x[at] * std::cos(1.0) - x[at + 3] * std::sin(1.0)).epsilon(1e-6));
  REQUIRE(rx[at + 3] == Approx(x[at + 3] * std::cos(1.0) + x[at] * std::sin(1.0)).epsilon(1e-6));
}

TEST_CASE("RoPE against float64, and its backward (the inverse rotation) against finite differences", "[kernels]") {
  const int T = 7, heads = 3, dh = 6;
  // the kernel turns by the frequencies it is given (a scaled set such as Llama 3's included), fast to slow
  const std::vector<float> inv_freq = {1.0f, 0.07f, 0.0003f / 8};
  const auto x = random_floats(T * heads * dh, 10), r = random_floats(T * heads * dh, 11);
  std::vector<float> rx(x.size()), dx(x.size());
  rl::rope_rotate(rx.data(), x.data(), T, heads, dh, inv_freq.data(), false);
  require_close(rx, rope_reference(widen(x), T, heads, dh, inv_freq), 1e-6);
  // d <r, R x> / dx = R^T r
  rl::rope_rotate(dx.data(), r.data(), T, heads, dh, inv_freq.data(), true);
  const auto loss = [&](const std::vector<double>& v) { return dot(r, rope_reference(v, T, heads, dh, inv_freq)); };
  require_close(dx, fd_gradient(widen(x), loss), 1e-5);
}

TEST_CASE("RoPE's inverse frequencies in float32 steps, against float64", "[kernels]") {
  // dh 16, theta 1e4: entries 3, 5 and 7 are 1 ulp above float(10000^(-2i/16)) computed in double
  const std::vector<float> want = {0x1p+0f,        0x1.43d136p-2f, 0x1.99999ap-4f,  0x1.030dc6p-5f,
                                   0x1.47ae14p-7f, 0x1.9e7c70p-9f, 0x1.0624dep-10f, 0x1.4b96c0p-12f};
  REQUIRE(rl::rope_inverse_frequencies(16, 10000.0) == want);
  for (const int i : {3, 5, 7})
    REQUIRE(want[i] == std::nextafter(static_cast<float>(1.0 / std::pow(10000.0, 2.0 * i / 16)), 1.0f));
  // the exponent's float32 rounding (half an ulp of e < 1: 2^-25) moves theta^e by up to ln(theta) 2^-25 relative
  // (4.1e-7 at theta 1e6), the two roundings after it by 2^-24 each
  for (const int dh : {4, 64, 128, 256})
    for (const double theta : {10000.0, 500000.0, 1000000.0}) {
      const std::vector<float> inv_freq = rl::rope_inverse_frequencies(dh, theta);
      REQUIRE(inv_freq.size() == std::size_t(dh / 2));
      for (int i = 0; i < dh / 2; ++i)
        REQUIRE(inv_freq[i] == Approx(std::pow(theta, -2.0 * i / dh)).epsilon(std::log(theta) * 0x1p-25 + 0x1p-23));
    }
}

TEST_CASE("SwiGLU and GeGLU (tanh) against float64, and their backward against finite differences", "[kernels]") {
  const int n = 23;  // five vectors of four and three left over
  const auto gate = random_floats(n, 7, 2.0f), up = random_floats(n, 8), d_act = random_floats(n, 9);
  for (rl::Gate kind : {rl::Gate::silu, rl::Gate::gelu_tanh}) {
    const auto fn = [kind](double g) {
      return kind == rl::Gate::silu ? g / (1 + std::exp(-g))
                                    : 0.5 * g * (1 + std::tanh(std::sqrt(2 / M_PI) * (g + 0.044715 * g * g * g)));
    };
    std::vector<float> act(n), d_gate(n), d_up(n);
    rl::glu_forward(act.data(), gate.data(), up.data(), n, kind);
    std::vector<double> want(n);
    for (int i = 0; i < n; ++i) want[i] = fn(gate[i]) * up[i];
    require_close(act, want, 1e-6);
    rl::glu_backward(d_gate.data(), d_up.data(), d_act.data(), gate.data(), up.data(), n, kind);
    const auto G = widen(gate), U = widen(up);
    const auto loss = [&](const std::vector<double>& g, const std::vector<double>& u) {
      double s = 0;
      for (int i = 0; i < n; ++i) s += d_act[i] * fn(g[i]) * u[i];
      return s;
    };
    require_close(d_gate, fd_gradient(G, [&](const auto& g) { return loss(g, U); }), 1e-5);
    require_close(d_up, fd_gradient(U, [&](const auto& u) { return loss(G, u); }), 1e-5);
  }
}
