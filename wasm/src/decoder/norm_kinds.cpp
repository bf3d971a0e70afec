#include "decoder/norm_kinds.hpp"

#include "kernels/norms.hpp"

namespace rl::decoder {
namespace {

// Each kind's forward and backward read the tensors and statistics in the order its table entry lists them.

// LayerNorm: y = (x - mean) * rstd * weight + bias, weight from 1, bias from 0.
constexpr NormParamSpec kLayerNormParams[] = {{"weight", true, 1.0f}, {"bias", true, 0.0f}};
constexpr std::string_view kLayerNormStats[] = {"mean", "rstd"};
void layernorm_fwd(float* y, const NormStats& s, const float* x, const NormTensors& w, int rows, int d, float eps) {
  layernorm_forward(y, s[0], s[1], x, w[0], w[1], rows, d, eps);
}
void layernorm_bwd(float* dx, const NormTensors& dw, const float* dy, const float* x, const NormStats& s,
                   const NormTensors& w, int rows, int d) {
  layernorm_backward(dx, dw[0], dw[1], dy, x, s[0], s[1], w[0], rows, d);
}

// Llama: y = x / rms * w, w from 1. Gemma 2/3: y = x / rms * (1 + w), w from 0 (the same multiplier at init).
constexpr NormParamSpec kRmsNormParams[] = {{"weight", true, 1.0f}};
constexpr NormParamSpec kRmsNormGemmaParams[] = {{"weight", true, 0.0f}};
constexpr std::string_view kRmsNormStats[] = {"rstd"};
template <int Offset>
void rmsnorm_fwd(float* y, const NormStats& s, const float* x, const NormTensors& w, int rows, int d, float eps) {
  rmsnorm_forward(y, s[0], x, w[0], rows, d, eps, static_cast<float>(Offset));
}
template <int Offset>
void rmsnorm_bwd(float* dx, const NormTensors& dw, const float* dy, const float* x, const NormStats& s,
                 const NormTensors& w, int rows, int d) {
  rmsnorm_backward(dx, dw[0], dy, x, s[0], w[0], rows, d, static_cast<float>(Offset));
}

// Dynamic Tanh (Zhu et al. 2025): y = weight * tanh(alpha * x) + bias, alpha one scalar per norm from 0.5; no
// statistics (eps unused). The tensors in the order of the paper's module: alpha, weight, bias.
constexpr NormParamSpec kDytParams[] = {{"alpha", false, 0.5f}, {"weight", true, 1.0f}, {"bias", true, 0.0f}};
void dyt_fwd(float* y, const NormStats&, const float* x, const NormTensors& w, int rows, int d, float) {
  dyt_forward(y, x, *w[0], w[1], w[2], rows, d);
}
void dyt_bwd(float* dx, const NormTensors& dw, const float* dy, const float* x, const NormStats&, const NormTensors& w,
             int rows, int d) {
  dyt_backward(dx, dw[0], dw[1], dw[2], dy, x, *w[0], w[1], rows, d);
}

constexpr NormKindSpec kNormKinds[] = {
    {NormKind::layernorm, "layernorm", kLayerNormParams, kLayerNormStats, layernorm_fwd, layernorm_bwd},
    {NormKind::rmsnorm, "rmsnorm", kRmsNormParams, kRmsNormStats, rmsnorm_fwd<0>, rmsnorm_bwd<0>},
    {NormKind::rmsnorm_gemma, "rmsnorm_gemma", kRmsNormGemmaParams, kRmsNormStats, rmsnorm_fwd<1>, rmsnorm_bwd<1>},
    {NormKind::dyt, "dyt", kDytParams, {}, dyt_fwd, dyt_bwd},
    {NormKind::none, "none", {}, {}, nullptr, nullptr},  // the identity
};

}  // namespace

std::span<const NormKindSpec> norm_kinds() { return kNormKinds; }

const NormKindSpec* find_norm_kind(NormKind kind) {
  for (const NormKindSpec& k : kNormKinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

const NormKindSpec& norm_spec(NormKind kind) {
  const NormKindSpec* k = find_norm_kind(kind);
  return k ? *k : *find_norm_kind(NormKind::none);
}

}  // namespace rl::decoder
