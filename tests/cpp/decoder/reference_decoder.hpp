// An independent, deliberately naive implementation of the decoder's forward pass, templated on the scalar type
// (double for finite differences, float to compare against the fast path). It shares only Config and
// ParamLayout with the engine: no kernels, no saved activations, every formula spelled out once.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#include "decoder/config.hpp"
#include "decoder/layout.hpp"

namespace rl::test {

template <class S>
class ReferenceDecoder {
 public:
  using Mat = std::vector<S>;  // row-major [rows, cols]

  ReferenceDecoder(const decoder::Config& config, const decoder::ParamLayout& layout, const std::vector<S>& params)
      : c_(config), layout_(layout), p_(params) {}

  // Finite differences of dL/dh: bump_point >= 0 adds `bump` to entry bump_index of that stream point.
  int bump_point = -1;
  std::size_t bump_index = 0;
  S bump = 0;

  // Mean cross-entropy over all positions; logits [T, V] (after the final soft-cap) written when asked.
  S loss(const std::vector<std::int32_t>& tokens, const std::vector<std::int32_t>& targets, Mat* logits_out = nullptr,
         std::vector<Mat>* streams_out = nullptr) const {
    using decoder::Placement;
    const int T = static_cast<int>(tokens.size()), d = c_.d_model, V = c_.vocab_size;
    Mat h(static_cast<std::size_t>(T) * d);
    for (int t = 0; t < T; ++t)
      for (int i = 0; i < d; ++i)
        h[t * d + i] =
            p_[layout_.embed + tokens[t] * d + i] + (c_.pos_embed ? p_[layout_.pos_embed + t * d + i] : S(0));
    bump_stream(h, 0);
    if (streams_out) streams_out->push_back(h);
    const S skip = !c_.residual                          ? S(0)
                   : c_.placement == Placement::deepnorm ? std::sqrt(std::sqrt(S(2) * c_.n_layers))
                                                         : S(1);
    for (int l = 0; l < c_.n_layers; ++l) {
      const decoder::LayerOffsets& L = layout_.layers[l];
      for (int sub = 0; sub < 2; ++sub) {
        const decoder::NormOffsets& n = sub == 0 ? L.attn_norm : L.mlp_norm;
        const decoder::NormOffsets& n_out = sub == 0 ? L.attn_out_norm : L.mlp_out_norm;
        auto F = [&](const Mat& x) { return sub == 0 ? attention(x, L, T) : mlp(x, L, T); };
        switch (c_.placement) {
          case Placement::pre: h = add(h, skip, F(norm(h, n, T))); break;
          case Placement::sandwich: h = add(h, skip, norm(F(norm(h, n, T)), n_out, T)); break;
          case Placement::olmo2: h = add(h, skip, norm(F(h), n, T)); break;
          case Placement::post:
          case Placement::deepnorm: h = norm(add(h, skip, F(h)), n, T); break;
        }
        bump_stream(h, 2 * l + sub + 1);
        if (streams_out) streams_out->push_back(h);
      }
    }
    Mat logits = read_out(h, T);
    S total = 0;
    for (int t = 0; t < T && !targets.empty(); ++t) {
      S m = logits[t * V];
      for (int j = 1; j < V; ++j) m = std::max(m, logits[t * V + j]);
      S sum = 0;
      for (int j = 0; j < V; ++j) sum += std::exp(logits[t * V + j] - m);
      total += std::log(sum) + m - logits[t * V + targets[t]];
    }
    if (logits_out) *logits_out = logits;
    return total / T;
  }

  // Logits of a stream [T, d]: final norm (if the model has one), lm_head, final soft-cap.
  Mat read_out(Mat h, int T) const {
    if (c_.has_final_norm()) h = norm(h, layout_.final_norm, T);
    Mat logits = linear(h, T, c_.d_model, layout_.lm_head, c_.vocab_size);
    if (c_.final_softcap > 0)
      for (S& z : logits) z = S(c_.final_softcap) * std::tanh(z / S(c_.final_softcap));
    return logits;
  }

  // RoPE as transformers' apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, rotate_half(x) = cat(-x2, x1),
  // cos and sin of cat(freqs, freqs), freqs_i = t * theta^(-2i/dh) for the head's first half i < dh/2.
  static void rope(Mat& x, int T, int H, int dh, S theta) {
    const int half = dh / 2;
    for (int t = 0; t < T; ++t)
      for (int h = 0; h < H; ++h) {
        S* r = x.data() + static_cast<long>(t) * H * dh + h * dh;
        std::vector<S> rotated(dh);
        for (int i = 0; i < dh; ++i) rotated[i] = i < half ? -r[i + half] : r[i - half];
        for (int i = 0; i < dh; ++i) {
          const S freq = S(t) * std::pow(theta, -S(2 * (i % half)) / S(dh));
          r[i] = r[i] * std::cos(freq) + rotated[i] * std::sin(freq);
        }
      }
  }

 private:
  void bump_stream(Mat& h, int point) const {
    if (point == bump_point) h[bump_index] += bump;
  }

  S param(long offset, long i) const { return p_[offset + i]; }

  // y = x W^T, W [out, in]
  Mat linear(const Mat& x, int T, int in, long w, int out) const {
    Mat y(static_cast<std::size_t>(T) * out, S(0));
    for (int t = 0; t < T; ++t)
      for (int o = 0; o < out; ++o) {
        S sum = 0;
        for (int i = 0; i < in; ++i) sum += x[t * in + i] * param(w, static_cast<long>(o) * in + i);
        y[t * out + o] = sum;
      }
    return y;
  }

  static Mat add(const Mat& x, S skip, const Mat& f) {
    Mat y(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) y[i] = skip * x[i] + f[i];
    return y;
  }

  // Row-wise norm over groups of `width` values; weight (size width) optional.
  Mat norm_rows(const Mat& x, int rows, int width, decoder::NormKind kind, long weight, long bias) const {
    Mat y(x.size());
    const S eps = S(c_.eps);
    for (int r = 0; r < rows; ++r) {
      const S* xr = x.data() + static_cast<long>(r) * width;
      S mean = 0, sq = 0;
      for (int i = 0; i < width; ++i) mean += xr[i];
      mean /= width;
      const bool centred = kind == decoder::NormKind::layernorm;
      for (int i = 0; i < width; ++i) sq += centred ? (xr[i] - mean) * (xr[i] - mean) : xr[i] * xr[i];
      const S inv = S(1) / std::sqrt(sq / width + eps);
      for (int i = 0; i < width; ++i) {
        S v = (centred ? xr[i] - mean : xr[i]) * inv;
        if (kind == decoder::NormKind::rmsnorm_gemma) v *= S(1) + param(weight, i);
        else if (weight != decoder::kAbsent) v *= param(weight, i);
        if (bias != decoder::kAbsent) v += param(bias, i);
        y[static_cast<long>(r) * width + i] = v;
      }
    }
    return y;
  }

  // Dynamic Tanh (Zhu et al. 2025), elementwise: y = weight * tanh(alpha * x) + bias, alpha one scalar.
  Mat dyt(const Mat& x, long alpha, long weight, long bias) const {
    const int d = c_.d_model;
    Mat y(x.size());
    for (std::size_t j = 0; j < x.size(); ++j) {
      const long i = static_cast<long>(j % d);
      y[j] = param(weight, i) * std::tanh(param(alpha, 0) * x[j]) + param(bias, i);
    }
    return y;
  }

  Mat norm(const Mat& x, const decoder::NormOffsets& n, int T) const {
    if (c_.norm == decoder::NormKind::none) return x;
    if (c_.norm == decoder::NormKind::dyt) return dyt(x, n.find("alpha"), n.find("weight"), n.find("bias"));
    return norm_rows(x, T, c_.d_model, c_.norm, n.find("weight"), n.find("bias"));
  }

  Mat attention(const Mat& x, const decoder::LayerOffsets& L, int T) const {
    const int d = c_.d_model, H = c_.n_heads, dh = c_.d_head();
    Mat q = linear(x, T, d, L.q, d), k = linear(x, T, d, L.k, d), v = linear(x, T, d, L.v, d);
    if (c_.qk_norm) {
      const bool whole = c_.qk_norm_shape == decoder::QkNormShape::projection;
      q = norm_rows(q, whole ? T : T * H, whole ? d : dh, decoder::NormKind::rmsnorm, L.q_norm, decoder::kAbsent);
      k = norm_rows(k, whole ? T : T * H, whole ? d : dh, decoder::NormKind::rmsnorm, L.k_norm, decoder::kAbsent);
    }
    if (c_.rope) {
      rope(q, T, H, dh, S(c_.rope_theta));
      rope(k, T, H, dh, S(c_.rope_theta));
    }
    Mat y(static_cast<std::size_t>(T) * d, S(0));
    for (int h = 0; h < H; ++h)
      for (int t = 0; t < T; ++t) {
        std::vector<S> s(t + 1);
        S m = -INFINITY;
        for (int j = 0; j <= t; ++j) {
          S dot = 0;
          for (int i = 0; i < dh; ++i) dot += q[t * d + h * dh + i] * k[j * d + h * dh + i];
          s[j] = dot / std::sqrt(S(dh));
          if (c_.attn_softcap > 0) s[j] = S(c_.attn_softcap) * std::tanh(s[j] / S(c_.attn_softcap));
          m = std::max(m, s[j]);
        }
        S sum = 0;
        for (int j = 0; j <= t; ++j) sum += s[j] = std::exp(s[j] - m);
        for (int j = 0; j <= t; ++j)
          for (int i = 0; i < dh; ++i) y[t * d + h * dh + i] += s[j] / sum * v[j * d + h * dh + i];
      }
    return linear(y, T, d, L.o, d);
  }

  Mat mlp(const Mat& x, const decoder::LayerOffsets& L, int T) const {
    const int d = c_.d_model, f = c_.ffn_width();
    Mat up = linear(x, T, d, L.up, f);
    if (c_.mlp == decoder::MlpKind::gelu) {
      for (S& u : up) u = S(0.5) * u * (S(1) + std::erf(u / std::sqrt(S(2))));
    } else {
      const Mat gate = linear(x, T, d, L.gate, f);
      for (std::size_t i = 0; i < up.size(); ++i) up[i] *= gate[i] / (S(1) + std::exp(-gate[i]));
    }
    return linear(up, T, f, L.down, d);
  }

  const decoder::Config& c_;
  const decoder::ParamLayout& layout_;
  const std::vector<S>& p_;
};

}  // namespace rl::test
