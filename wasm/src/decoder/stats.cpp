// Forward statistics, gradient statistics and the logit lens, all read from what forward and backward saved.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "decoder/model.hpp"
#include "decoder/model_state.hpp"
#include "decoder/ops.hpp"
#include "kernels/activations.hpp"
#include "kernels/linear.hpp"
#include "kernels/reductions.hpp"

namespace rl::decoder {
namespace {

float row_norm(const float* x, int d) { return std::sqrt(simd::sum_of_squares(x, d)); }

double squared_norm(const float* x, std::size_t n) {
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(x[i]) * x[i];
  return sum;
}

}  // namespace

ForwardStats Model::forward_stats() const {
  const ModelState& st = *state_;
  const Config& c = st.config;
  ForwardStats out;
  if (st.T == 0) return out;
  const int T = st.T, d = c.d_model, L = c.n_layers, H = c.n_heads, points = 2 * L + 1;
  out.n_layers = L, out.n_heads = H, out.seq_len = T;
  out.stream_norm.resize(static_cast<std::size_t>(points) * T);
  out.stream_norm_mean.resize(points);
  for (int p = 0; p < points; ++p) {
    double sum = 0.0;
    for (int t = 0; t < T; ++t) sum += out.stream_norm[p * T + t] = row_norm(st.streams[p] + t * d, d);
    out.stream_norm_mean[p] = static_cast<float>(sum / T);
  }
  out.increment_norm.resize(static_cast<std::size_t>(2 * L) * T);
  out.increment_norm_mean.resize(2 * L);
  out.increment_ratio.resize(2 * L);
  out.max_attn_logit.resize(static_cast<std::size_t>(L) * H);
  out.attn_entropy.resize(static_cast<std::size_t>(L) * H);
  for (int l = 0; l < L; ++l) {
    const LayerActs& la = st.layers[l];
    for (int sub = 0; sub < 2; ++sub) {
      const SublayerActs& a = sub == 0 ? la.attn_sub : la.mlp_sub;
      const int j = 2 * l + sub;
      double sum = 0.0, ratio = 0.0;
      for (int t = 0; t < T; ++t) {
        const float inc = out.increment_norm[j * T + t] = row_norm(a.increment + t * d, d);
        sum += inc;
        ratio += inc / std::max(out.stream_norm[j * T + t], 1e-30f);
      }
      out.increment_norm_mean[j] = static_cast<float>(sum / T);
      out.increment_ratio[j] = static_cast<float>(ratio / T);
    }
    for (int h = 0; h < H; ++h) {
      float max_logit = -INFINITY;
      double entropy = 0.0;
      for (int t = 0; t < T; ++t) {
        const float* s_row = la.attn.scores + (static_cast<long>(h) * T + t) * T;
        const float* p_row = la.attn.probs + (static_cast<long>(h) * T + t) * T;
        for (int k = 0; k <= t; ++k) {
          max_logit = std::max(max_logit, s_row[k]);
          if (p_row[k] > 0) entropy -= static_cast<double>(p_row[k]) * std::log(static_cast<double>(p_row[k]));
        }
      }
      out.max_attn_logit[l * H + h] = max_logit;
      out.attn_entropy[l * H + h] = static_cast<float>(entropy / T);
    }
  }
  return out;
}

GradStats Model::grad_stats() const {
  const ModelState& st = *state_;
  GradStats out;
  if (!st.has_backward) return out;
  double total = 0.0;
  for (const ParamTensor& t : st.layout.tensors) {
    const double sq = squared_norm(st.grads.data() + t.offset, t.size);
    total += sq;
    out.param_grad_norm.push_back(static_cast<float>(std::sqrt(sq)));
  }
  out.total_grad_norm = static_cast<float>(std::sqrt(total));
  const int T = st.T, points = 2 * st.config.n_layers + 1, ctx = st.config.context_length;
  out.stream_grad_norm.resize(points);
  out.stream_grad_norm_per_position.resize(static_cast<std::size_t>(points) * T);
  for (int p = 0; p < points; ++p) {
    double sq = 0.0;
    for (int t = 0; t < T; ++t) {
      const float v = st.stream_grad_norm[static_cast<long>(p) * ctx + t];
      out.stream_grad_norm_per_position[p * T + t] = v;
      sq += static_cast<double>(v) * v;
    }
    out.stream_grad_norm[p] = static_cast<float>(std::sqrt(sq));
  }
  return out;
}

LogitLens Model::logit_lens(int k) const {
  const ModelState& st = *state_;
  const Config& c = st.config;
  LogitLens out;
  if (st.T == 0) return out;
  const int T = st.T, d = c.d_model, V = c.vocab_size, points = 2 * c.n_layers + 1;
  k = std::clamp(k, 1, V);
  // top_tokens and top_probs [points, T, k]; normed [T, d]; norm_stats [kMaxNormStats, T]; logits and probs
  // [T, V]; order [V]
  const std::uint64_t bytes =
      std::uint64_t(points) * T * k * (sizeof(std::int32_t) + sizeof(float)) +
      (std::uint64_t(T) * d + std::uint64_t(kMaxNormStats) * T + 2 * std::uint64_t(T) * V) * sizeof(float) +
      std::uint64_t(V) * sizeof(int);
  out.error = reserve_memory(bytes, "the logit lens (k = " + std::to_string(k) + ")", &out.memory);
  if (!out.error.empty()) return out;
  out.points = points, out.seq_len = T, out.k = k;
  out.top_tokens.resize(static_cast<std::size_t>(points) * T * k);
  out.top_probs.resize(out.top_tokens.size());
  std::vector<float> normed(static_cast<std::size_t>(T) * d), norm_stats(std::size_t(kMaxNormStats) * T);
  std::vector<float> logits(static_cast<std::size_t>(T) * V), probs(logits.size());
  std::vector<int> order(V);
  for (int p = 0; p < points; ++p) {
    // through the final norm (when there is one), the unembedding and the final soft-cap
    const float* x = st.streams[p];
    if (st.final_norm.y) {
      NormActs lens_norm{normed.data()};
      for (int i = 0; i < kMaxNormStats; ++i) lens_norm.stats[i] = norm_stats.data() + std::size_t(i) * T;
      norm_forward(c, lens_norm, x, st.w.final_norm, T);
      x = normed.data();
    }
    linear_forward(logits.data(), x, st.w.lm_head, nullptr, T, d, V);
    if (c.final_softcap > 0) softcap_forward(logits.data(), logits.data(), T * V, c.final_softcap);
    softmax_forward(probs.data(), logits.data(), T, V);
    // top k per position, most probable first (ties: lower token id first)
    for (int t = 0; t < T; ++t) {
      const float* row = probs.data() + static_cast<long>(t) * V;
      std::iota(order.begin(), order.end(), 0);
      std::partial_sort(order.begin(), order.begin() + k, order.end(),
                        [row](int a, int b) { return row[a] > row[b] || (row[a] == row[b] && a < b); });
      for (int i = 0; i < k; ++i) {
        const std::size_t at = (static_cast<std::size_t>(p) * T + t) * k + i;
        out.top_tokens[at] = order[i];
        out.top_probs[at] = row[order[i]];
      }
    }
  }
  return out;
}

}  // namespace rl::decoder
