#include "checkpoint/forward.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "kernels/activations.hpp"
#include "kernels/attention.hpp"
#include "kernels/gated.hpp"
#include "kernels/linear.hpp"
#include "kernels/norms.hpp"

namespace rl::checkpoint {

std::string check_spec(const LayerSpec& s) {
  if (s.d <= 0 || s.n_heads <= 0 || s.n_kv_heads <= 0 || s.head_dim <= 0 || s.ffn <= 0)
    return "layer sizes must be positive";
  if (s.head_dim % 2 != 0) return "head_dim must be even for RoPE";
  if (s.n_heads % s.n_kv_heads != 0) return "num_attention_heads must be a multiple of num_key_value_heads";
  if (!(s.eps > 0) || !std::isfinite(s.eps)) return "the norm eps must be positive";
  if (!(s.attn_scale > 0) || !std::isfinite(s.attn_scale)) return "the attention scale must be positive";
  if (!(s.attn_softcap >= 0) || !std::isfinite(s.attn_softcap)) return "the attention soft-cap must be >= 0";
  return "";
}

std::size_t slot_size(const LayerSpec& s, Slot slot) {
  const std::size_t d = s.d, q = std::size_t(s.n_heads) * s.head_dim, kv = std::size_t(s.n_kv_heads) * s.head_dim;
  switch (slot) {
    case kAttnNormBefore: return s.placement == HfPlacement::olmo2 ? 0 : d;
    case kMlpNormBefore: return s.placement == HfPlacement::olmo2 ? 0 : d;
    case kAttnNormAfter:
    case kMlpNormAfter: return s.placement == HfPlacement::pre ? 0 : d;
    case kQNorm: return s.qk_norm == QkNorm::none ? 0 : s.qk_norm == QkNorm::per_head ? s.head_dim : q;
    case kKNorm: return s.qk_norm == QkNorm::none ? 0 : s.qk_norm == QkNorm::per_head ? s.head_dim : kv;
    case kQ: return q * d;
    case kK:
    case kV: return kv * d;
    case kO: return d * q;
    case kQBias: return q;
    case kKBias:
    case kVBias: return kv;
    case kOBias: return d;
    case kGate:
    case kUp:
    case kDown: return d * s.ffn;
    default: return 0;
  }
}

std::size_t panel_floats(const LayerSpec& s) {
  return std::size_t(kPanelRows) * std::max({s.d, s.n_heads * s.head_dim, s.ffn});
}

void linear(float* y, const float* x, const void* w, Dtype dtype, int M, int K, int N, float* panel,
            const float* bias) {
  if (dtype == Dtype::f32) {
    linear_forward(y, x, static_cast<const float*>(w), bias, M, K, N);
    return;
  }
  const auto* bytes = static_cast<const unsigned char*>(w);
  for (int n = 0; n < N; n += kPanelRows) {
    const int rows = std::min(kPanelRows, N - n);
    to_f32(panel, bytes + std::size_t(n) * row_bytes(dtype, K), std::size_t(rows) * K, dtype);
    linear_forward(y + n, x, panel, bias ? bias + n : nullptr, M, K, rows, N);
  }
}

std::string Workspace::reserve(const LayerSpec& s, int T) {
  const std::size_t t = T, q_cols = std::size_t(s.n_heads) * s.head_dim,
                    kv_cols = std::size_t(s.n_kv_heads) * s.head_dim;
  const std::size_t sizes[] = {t * s.d,   t * q_cols, t * kv_cols, t * kv_cols, t * q_cols,
                               2 * t * t, t * s.ffn,  t * s.ffn,   t * s.d,     panel_floats(s)};
  std::size_t total = 0;
  for (std::size_t n : sizes) total += n;
  if (total > data_.size()) {
    release();
    if (std::string e = reserve_memory(total * sizeof(float), "a checkpoint layer's activations", &memory_); !e.empty())
      return e;
    data_.resize(total);
  }
  float* p = data_.data();
  float** slots[] = {&h, &q, &k, &v, &y, &scores, &gate, &up, &branch, &panel};
  for (int i = 0; i < 10; ++i) {
    *slots[i] = p;
    p += sizes[i];
  }
  return "";
}

void Workspace::release() {
  std::vector<float>().swap(data_);
  memory_.reset();
}

void attention_core(float* y, float* q, float* k, float* v, int T, const LayerSpec& s, const LayerWeights& w,
                    const float* inv_freq, int window, float* scores, float* head_stats, float* qk_norm_inputs) {
  const int H = s.n_heads, KV = s.n_kv_heads, hd = s.head_dim, q_cols = H * hd, kv_cols = KV * hd;
  bias_forward(q, w.f32(kQBias), T, q_cols);
  bias_forward(k, w.f32(kKBias), T, kv_cols);
  bias_forward(v, w.f32(kVBias), T, kv_cols);
  if (qk_norm_inputs) {
    // per position, min over its normalized rows of mean(h^2): `rows` rows of `n` values each
    const auto smallest = [&](float* out, const float* x, int rows, int n) {
      for (int t = 0; t < T; ++t) {
        double least = std::numeric_limits<double>::infinity();
        for (int r = 0; r < rows; ++r) {
          const float* row = x + (std::size_t(t) * rows + r) * n;
          double sum = 0;
          for (int j = 0; j < n; ++j) sum += double(row[j]) * row[j];
          least = std::min(least, sum / n);
        }
        out[t] = s.qk_norm == QkNorm::none ? 0.0f : static_cast<float>(least);
      }
    };
    const bool per_head = s.qk_norm == QkNorm::per_head;
    smallest(qk_norm_inputs, q, per_head ? H : 1, per_head ? hd : q_cols);
    smallest(qk_norm_inputs + T, k, per_head ? KV : 1, per_head ? hd : kv_cols);
  }
  if (s.qk_norm == QkNorm::per_head) {
    rmsnorm_forward(q, nullptr, q, w.f32(kQNorm), T * H, hd, s.eps, s.norm_offset);
    rmsnorm_forward(k, nullptr, k, w.f32(kKNorm), T * KV, hd, s.eps, s.norm_offset);
  } else if (s.qk_norm == QkNorm::whole) {
    rmsnorm_forward(q, nullptr, q, w.f32(kQNorm), T, q_cols, s.eps, s.norm_offset);
    rmsnorm_forward(k, nullptr, k, w.f32(kKNorm), T, kv_cols, s.eps, s.norm_offset);
  }
  rope_rotate(q, q, T, H, hd, inv_freq, false);
  rope_rotate(k, k, T, KV, hd, inv_freq, false);
  // one head at a time (kernels/attention.hpp): scores then probabilities, T * T each
  const int group = H / KV;
  float* probs = scores + std::size_t(T) * T;
  for (int h = 0; h < H; ++h) {
    const int kv = (h / group) * hd;
    attention_forward(y + h * hd, scores, probs, q + h * hd, k + kv, v + kv,
                      {T, 1, 1, hd, q_cols, kv_cols, s.attn_scale, s.attn_softcap, window});
    if (!head_stats) continue;
    // the scores a query sees, after the scale and before the cap (kept by the kernel; 0 at the keys not seen)
    float* stats = head_stats + std::size_t(h) * kHeadStats;
    std::fill(stats, stats + kHeadStats, 0.0f);
    for (int t = 0; t < T; ++t) {
      const int first = window > 0 ? std::max(0, t - window + 1) : 0;
      for (int j = first; j <= t; ++j) {
        const float score = scores[std::size_t(t) * T + j];
        stats[0] = std::max(stats[0], std::fabs(score));
        if (s.attn_softcap > 0 && std::fabs(score) > 0.5f * s.attn_softcap) stats[2] += 1;
        float capped = score;
        if (s.attn_softcap > 0) softcap_forward(&capped, &score, 1, s.attn_softcap);
        stats[1] = std::max(stats[1], std::fabs(capped));
      }
      stats[3] += float(t + 1 - first);
    }
  }
}

void gated_activation(float* gate, const float* up, std::size_t n, Activation activation) {
  glu_forward(gate, gate, up, static_cast<int>(n), activation == Activation::gelu_tanh ? Gate::gelu_tanh : Gate::silu);
}

namespace {

void attention(float* out, const float* x, int T, const LayerSpec& s, const LayerWeights& w, const float* inv_freq,
               int window, Workspace& ws, float* head_stats, float* qk_norm_inputs) {
  const int d = s.d, q_cols = s.n_heads * s.head_dim, kv_cols = s.n_kv_heads * s.head_dim;
  linear(ws.q, x, w.w[kQ], w.dtype[kQ], T, d, q_cols, ws.panel);
  linear(ws.k, x, w.w[kK], w.dtype[kK], T, d, kv_cols, ws.panel);
  linear(ws.v, x, w.w[kV], w.dtype[kV], T, d, kv_cols, ws.panel);
  attention_core(ws.y, ws.q, ws.k, ws.v, T, s, w, inv_freq, window, ws.scores, head_stats, qk_norm_inputs);
  linear(out, ws.y, w.w[kO], w.dtype[kO], T, q_cols, d, ws.panel, w.f32(kOBias));
}

void mlp(float* out, const float* x, int T, const LayerSpec& s, const LayerWeights& w, Workspace& ws) {
  linear(ws.gate, x, w.w[kGate], w.dtype[kGate], T, s.d, s.ffn, ws.panel);
  linear(ws.up, x, w.w[kUp], w.dtype[kUp], T, s.d, s.ffn, ws.panel);
  gated_activation(ws.gate, ws.up, std::size_t(T) * s.ffn, s.activation);
  linear(out, ws.gate, w.w[kDown], w.dtype[kDown], T, s.ffn, s.d, ws.panel);
}

const char* slot_name(int slot) {
  static const char* names[kSlotCount] = {"attention norm (before)",
                                          "attention norm (after)",
                                          "MLP norm (before)",
                                          "MLP norm (after)",
                                          "q norm",
                                          "k norm",
                                          "q_proj",
                                          "k_proj",
                                          "v_proj",
                                          "o_proj",
                                          "q bias",
                                          "k bias",
                                          "v bias",
                                          "o bias",
                                          "gate_proj",
                                          "up_proj",
                                          "down_proj"};
  return names[slot];
}

}  // namespace

void row_norms(float* out, const float* x, int rows, int d) {
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int j = 0; j < d; ++j) sum += double(x[std::size_t(r) * d + j]) * x[std::size_t(r) * d + j];
    out[r] = static_cast<float>(std::sqrt(sum));
  }
}

void row_mean_squares(float* out, const float* x, int rows, int d) {
  for (int r = 0; r < rows; ++r) {
    double sum = 0;
    for (int j = 0; j < d; ++j) sum += double(x[std::size_t(r) * d + j]) * x[std::size_t(r) * d + j];
    out[r] = static_cast<float>(sum / d);
  }
}

std::string layer_forward(float* x, int T, const LayerSpec& s, const LayerWeights& w, const float* inv_freq, int window,
                          float* attn_norms, float* mlp_norms, Workspace& ws, const LayerObservations& observe) {
  if (std::string e = check_spec(s); !e.empty()) return e;
  // Biases are optional; every other slot the spec has is required. Only the projections may be F16 / BF16.
  for (int slot = 0; slot < kSlotCount; ++slot) {
    const bool optional = slot >= kQBias && slot <= kOBias;
    if (!optional && slot_size(s, Slot(slot)) > 0 && !w.w[slot])
      return std::string("missing weight: ") + slot_name(slot);
    const bool projection = (slot >= kQ && slot <= kO) || slot >= kGate;
    if (!projection && w.dtype[slot] != Dtype::f32) return std::string(slot_name(slot)) + " must be float32";
  }
  if (T <= 0) return "a run needs at least one position";
  if (std::string e = ws.reserve(s, T); !e.empty()) return e;
  const int d = s.d;
  const std::size_t n = std::size_t(T) * d;
  // the mean square at norm `which`'s input (0 N1, 1 N2, 2 N3, 3 N4), when asked
  const auto observe_norm_input = [&](int which, const float* input) {
    if (observe.norm_inputs) row_mean_squares(observe.norm_inputs + std::size_t(which) * T, input, T, d);
  };
  if (observe.norm_inputs) std::fill(observe.norm_inputs, observe.norm_inputs + 6 * std::size_t(T), 0.0f);
  const float* attn_in = x;
  if (s.placement != HfPlacement::olmo2) {
    observe_norm_input(0, x);
    rmsnorm_forward(ws.h, nullptr, x, w.f32(kAttnNormBefore), T, d, s.eps, s.norm_offset);
    attn_in = ws.h;
  }
  attention(ws.branch, attn_in, T, s, w, inv_freq, window, ws, observe.head_stats,
            observe.norm_inputs ? observe.norm_inputs + 4 * std::size_t(T) : nullptr);
  if (s.placement != HfPlacement::pre) {
    observe_norm_input(1, ws.branch);
    rmsnorm_forward(ws.branch, nullptr, ws.branch, w.f32(kAttnNormAfter), T, d, s.eps, s.norm_offset);
  }
  row_norms(attn_norms, ws.branch, T, d);
  // the residual add: the stream accumulates (+=), the branch was assigned (=)
  for (std::size_t i = 0; i < n; ++i) x[i] += ws.branch[i];
  if (observe.mid_norms) row_norms(observe.mid_norms, x, T, d);

  const float* mlp_in = x;
  if (s.placement != HfPlacement::olmo2) {
    observe_norm_input(2, x);
    rmsnorm_forward(ws.h, nullptr, x, w.f32(kMlpNormBefore), T, d, s.eps, s.norm_offset);
    mlp_in = ws.h;
  }
  mlp(ws.branch, mlp_in, T, s, w, ws);
  if (s.placement != HfPlacement::pre) {
    observe_norm_input(3, ws.branch);
    rmsnorm_forward(ws.branch, nullptr, ws.branch, w.f32(kMlpNormAfter), T, d, s.eps, s.norm_offset);
  }
  row_norms(mlp_norms, ws.branch, T, d);
  for (std::size_t i = 0; i < n; ++i) x[i] += ws.branch[i];
  return "";
}

void head_chunk(float* logits, int ld, const float* h, int rows, int d, const void* w, Dtype dtype, int n,
                float softcap, float* panel) {
  if (dtype == Dtype::f32) {
    linear_forward(logits, h, static_cast<const float*>(w), nullptr, rows, d, n, ld);
  } else {
    const auto* bytes = static_cast<const unsigned char*>(w);
    for (int j = 0; j < n; j += kPanelRows) {
      const int panel_rows = std::min(kPanelRows, n - j);
      to_f32(panel, bytes + std::size_t(j) * row_bytes(dtype, d), std::size_t(panel_rows) * d, dtype);
      linear_forward(logits + j, h, panel, nullptr, rows, d, panel_rows, ld);
    }
  }
  if (softcap > 0)
    for (int r = 0; r < rows; ++r)
      softcap_forward(logits + std::size_t(r) * ld, logits + std::size_t(r) * ld, n, softcap);
}

void softcap_observed(float* x, std::size_t n, float cap, float* stats) {
  if (stats) {
    std::fill(stats, stats + kHeadStats, 0.0f);
    for (std::size_t i = 0; i < n; ++i) {
      stats[0] = std::max(stats[0], std::fabs(x[i]));
      if (cap > 0 && std::fabs(x[i]) > 0.5f * cap) stats[2] += 1;
    }
    stats[3] = float(n);
  }
  if (cap > 0)
    for (std::size_t i = 0; i < n; i += 1 << 20)
      softcap_forward(x + i, x + i, int(std::min<std::size_t>(n - i, 1 << 20)), cap);
  if (stats)
    for (std::size_t i = 0; i < n; ++i) stats[1] = std::max(stats[1], std::fabs(x[i]));
}

}  // namespace rl::checkpoint
