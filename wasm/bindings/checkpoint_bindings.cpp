// Raw C exports of wasm/src/checkpoint/ for web/lib/checkpoint/runner.js, in the style of kernel_exports.cpp:
// pointers into the WASM heap and sizes, a status (0 ok, else kernel_exports.cpp's rl_error_message / rl_error_code
// say why: one error record, common.hpp). Buffers JS asks for are reserved against the memory budget; nothing here
// aborts on a refusal.
#include <emscripten/emscripten.h>

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "common.hpp"
#include "core/memory_budget.hpp"
#include "checkpoint/backward.hpp"
#include "checkpoint/forward.hpp"
#include "checkpoint/layout.hpp"
#include "checkpoint/loss.hpp"
#include "kernels/linear.hpp"
#include "kernels/norms.hpp"

namespace {

using rl::bindings::fail;

std::map<void*, rl::MemoryReservation> buffers;
rl::checkpoint::Workspace workspace;
rl::checkpoint::BackwardWorkspace backward_workspace;

bool read_weights(const std::uint32_t* weights, rl::checkpoint::LayerWeights* w) {
  for (int i = 0; i < rl::checkpoint::kSlotCount; ++i) {
    w->w[i] = reinterpret_cast<const void*>(std::uintptr_t(weights[i]));
    const std::uint32_t code = weights[rl::checkpoint::kSlotCount + i];
    if (code >= std::uint32_t(rl::checkpoint::kDtypeCount)) return false;
    w->dtype[i] = rl::checkpoint::Dtype(code);
  }
  return true;
}

}  // namespace

extern "C" {

// A 16-byte aligned block of `bytes` held against the budget (a double: any size arrives unwrapped), or 0.
EMSCRIPTEN_KEEPALIVE void* rl_ckpt_alloc(double bytes, const char* what) {
  if (!(bytes > 0) || bytes > 4294967295.0) {
    fail(std::string(rl::kOutOfMemoryPrefix) + what + " is larger than the WASM heap can hold");
    return nullptr;
  }
  const auto size = static_cast<std::uint64_t>(bytes);
  rl::MemoryReservation memory;
  if (std::string e = rl::reserve_memory(size, what, &memory); !e.empty()) {
    fail(e);
    return nullptr;
  }
  void* p = std::aligned_alloc(16, (size + 15) / 16 * 16);
  if (!p) {
    fail(std::string(rl::kOutOfMemoryPrefix) + "the WASM heap could not grow by " + rl::megabytes(size));
    return nullptr;
  }
  buffers.emplace(p, std::move(memory));
  return p;
}

EMSCRIPTEN_KEEPALIVE void rl_ckpt_free(void* p) {
  const auto it = buffers.find(p);
  if (it == buffers.end()) return;
  std::free(p);
  buffers.erase(it);
}

// Gives back the layer activations' block (a checkpoint's dispose).
EMSCRIPTEN_KEEPALIVE void rl_ckpt_release_workspace() {
  workspace.release();
  backward_workspace.release();
}

// The values and bytes of one block of dtype `code` (checkpoint/quant.hpp), 0 for a code that names no type.
EMSCRIPTEN_KEEPALIVE int rl_ckpt_dtype_block_values(int code) {
  return rl::checkpoint::dtype_layout(code).block_values;
}
EMSCRIPTEN_KEEPALIVE int rl_ckpt_dtype_block_bytes(int code) { return rl::checkpoint::dtype_layout(code).block_bytes; }

EMSCRIPTEN_KEEPALIVE int rl_ckpt_to_f32(float* out, const void* in, double n, int dtype) {
  if (dtype < 0 || dtype >= rl::checkpoint::kDtypeCount) return fail("unknown dtype code");
  rl::checkpoint::to_f32(out, in, static_cast<std::size_t>(n), rl::checkpoint::Dtype(dtype));
  return 0;
}

// weights: kSlotCount heap addresses (0 for none), then kSlotCount dtype codes. head_stats, norm_inputs,
// mid_norms: LayerObservations' blocks, 0 for those not asked.
EMSCRIPTEN_KEEPALIVE int rl_ckpt_layer(float* x, int T, const float* spec, const std::uint32_t* weights,
                                       const float* inv_freq, int window, float* attn_norms, float* mlp_norms,
                                       float* head_stats, float* norm_inputs, float* mid_norms) {
  rl::checkpoint::LayerWeights w;
  if (!read_weights(weights, &w)) return fail("unknown dtype code");
  const std::string e =
      rl::checkpoint::layer_forward(x, T, rl::checkpoint::read_layer_spec(spec), w, inv_freq, window, attn_norms,
                                    mlp_norms, workspace, {head_stats, norm_inputs, mid_norms});
  return e.empty() ? 0 : fail(e);
}

EMSCRIPTEN_KEEPALIVE void rl_ckpt_rmsnorm(float* y, const float* x, const float* g, int rows, int d, float eps,
                                          float weight_offset) {
  rl::rmsnorm_forward(y, nullptr, x, g, rows, d, eps, weight_offset);
}

// out[r] = ||x[r, :]||_2: a row's magnitude (the normalization is rl_ckpt_rmsnorm).
EMSCRIPTEN_KEEPALIVE void rl_ckpt_row_norms(float* out, const float* x, int rows, int d) {
  rl::checkpoint::row_norms(out, x, rows, d);
}

EMSCRIPTEN_KEEPALIVE void rl_ckpt_row_mean_squares(float* out, const float* x, int rows, int d) {
  rl::checkpoint::row_mean_squares(out, x, rows, d);
}

// Each row of x[rows, d] through RMSNorm with every step rounded to bfloat16 (rmsnorm_forward_bf16), and each
// row's mean square as that path computes it (ms: rows floats).
EMSCRIPTEN_KEEPALIVE void rl_ckpt_rmsnorm_bf16(float* y, float* ms, const float* x, const float* g, int rows, int d,
                                               float eps, float weight_offset) {
  for (int r = 0; r < rows; ++r) {
    const float* row = x + std::size_t(r) * d;
    rl::rmsnorm_forward_bf16(y + std::size_t(r) * d, row, g, d, eps, weight_offset);
    ms[r] = rl::rmsnorm_mean_square_bf16(row, d);
  }
}

// logits[n] soft-capped in place (cap 0: unchanged); stats: 0, or kHeadStats floats (softcap_observed).
EMSCRIPTEN_KEEPALIVE void rl_ckpt_softcap(float* x, double n, float cap, float* stats) {
  rl::checkpoint::softcap_observed(x, static_cast<std::size_t>(n), cap, stats);
}

// One position's loss against token, and its gradient at the logits before the cap into dz (checkpoint/loss.hpp).
EMSCRIPTEN_KEEPALIVE double rl_ckpt_cross_entropy_backward(float* dz, const float* z, int V, int token, float weight,
                                                           float cap, float* scratch) {
  return rl::checkpoint::cross_entropy_backward(dz, z, V, token, weight, cap, scratch);
}

// panel: kPanelRows * d floats.
EMSCRIPTEN_KEEPALIVE int rl_ckpt_head(float* logits, int ld, const float* h, int rows, int d, const void* w, int dtype,
                                      int n, float softcap, float* panel) {
  if (dtype < 0 || dtype >= rl::checkpoint::kDtypeCount) return fail("unknown dtype code");
  rl::checkpoint::head_chunk(logits, ld, h, rows, d, w, rl::checkpoint::Dtype(dtype), n, softcap, panel);
  return 0;
}

// The pieces of a layer split over workers (web/lib/checkpoint/shards.js): rows of a projection, the attention
// between the projections, the gated activation.
EMSCRIPTEN_KEEPALIVE int rl_ckpt_linear(float* y, const float* x, const void* w, int dtype, int M, int K, int N,
                                        float* panel) {
  if (dtype < 0 || dtype >= rl::checkpoint::kDtypeCount) return fail("unknown dtype code");
  rl::checkpoint::linear(y, x, w, rl::checkpoint::Dtype(dtype), M, K, N, panel);
  return 0;
}

// weights as for rl_ckpt_layer (the biases and q/k norms are read); scores: 2 * T * T floats; head_stats: 0 or
// kHeadStats * H floats; qk_norm_inputs: 0 or 2 * T floats (attention_core).
EMSCRIPTEN_KEEPALIVE int rl_ckpt_attention_core(float* y, float* q, float* k, float* v, int T, const float* spec,
                                                const std::uint32_t* weights, const float* inv_freq, int window,
                                                float* scores, float* head_stats, float* qk_norm_inputs) {
  rl::checkpoint::LayerWeights w;
  if (!read_weights(weights, &w)) return fail("unknown dtype code");
  const rl::checkpoint::LayerSpec s = rl::checkpoint::read_layer_spec(spec);
  if (std::string e = rl::checkpoint::check_spec(s); !e.empty()) return fail(e);
  rl::checkpoint::attention_core(y, q, k, v, T, s, w, inv_freq, window, scores, head_stats, qk_norm_inputs);
  return 0;
}

EMSCRIPTEN_KEEPALIVE void rl_ckpt_gated_activation(float* gate, const float* up, double n, int activation) {
  rl::checkpoint::gated_activation(gate, up, static_cast<std::size_t>(n), rl::checkpoint::Activation(activation));
}

// The backward (checkpoint/backward.hpp). g, branch_only (0: none): T x d, in place; x: the layer's input;
// mid_grads: T floats; gains: 4 doubles; param_squares: kSlotCount doubles; saved: what rl_ckpt_layer_saved kept of
// this layer, or 0 (recomputed from x).
EMSCRIPTEN_KEEPALIVE int rl_ckpt_layer_backward(float* g, float* branch_only, const float* x, int T, const float* spec,
                                                const std::uint32_t* weights, const float* inv_freq, int window,
                                                float* mid_grads, double* gains, double* param_squares,
                                                const float* saved) {
  rl::checkpoint::LayerWeights w;
  if (!read_weights(weights, &w)) return fail("unknown dtype code");
  const std::string e =
      rl::checkpoint::layer_backward(g, branch_only, x, T, rl::checkpoint::read_layer_spec(spec), w, inv_freq, window,
                                     {mid_grads, gains, param_squares}, backward_workspace, saved);
  return e.empty() ? 0 : fail(e);
}

// rl_ckpt_layer with every activation kept in saved (rl_ckpt_saved_floats floats) for rl_ckpt_layer_backward.
EMSCRIPTEN_KEEPALIVE int rl_ckpt_layer_saved(float* x, int T, const float* spec, const std::uint32_t* weights,
                                             const float* inv_freq, int window, float* saved, float* attn_norms,
                                             float* mlp_norms) {
  rl::checkpoint::LayerWeights w;
  if (!read_weights(weights, &w)) return fail("unknown dtype code");
  const std::string e = rl::checkpoint::layer_forward_saved(x, T, rl::checkpoint::read_layer_spec(spec), w, inv_freq,
                                                            window, saved, attn_norms, mlp_norms, backward_workspace);
  return e.empty() ? 0 : fail(e);
}

// One stage of a layer whose projections run elsewhere (checkpoint/backward.hpp's LayerStage): x, g, branch_only
// (0: none) as for rl_ckpt_layer_backward (the forward's add writes the layer's output over x); saved:
// rl_ckpt_saved_floats floats; attn_norms, mlp_norms, mid_grads: T floats or 0; gains: 4 doubles; squares:
// kSlotCount doubles. next: 16 words, the projection to run before the next stage: backward, count, rows, K,
// slots[3], N[3], in[3], out[3] (addresses).
EMSCRIPTEN_KEEPALIVE int rl_ckpt_layer_stage(int stage, float* x, float* g, float* branch_only, int T,
                                             const float* spec, const std::uint32_t* weights, const float* inv_freq,
                                             int window, float* saved, float* attn_norms, float* mlp_norms,
                                             float* mid_grads, double* gains, double* squares, std::uint32_t* next) {
  using rl::checkpoint::LayerStage;
  if (stage < int(LayerStage::norm1) || stage > int(LayerStage::d_norm1)) return fail("unknown layer stage");
  rl::checkpoint::LayerWeights w;
  if (!read_weights(weights, &w)) return fail("unknown dtype code");
  rl::checkpoint::StageProjection p;
  const std::string e = rl::checkpoint::layer_stage(
      LayerStage(stage), x, g, branch_only, T, rl::checkpoint::read_layer_spec(spec), w, inv_freq, window, saved,
      {attn_norms, mlp_norms, true, mid_grads, gains, squares}, backward_workspace, &p);
  if (!e.empty()) return fail(e);
  const auto address = [](const void* ptr) { return std::uint32_t(std::uintptr_t(ptr)); };
  next[0] = p.backward, next[1] = p.count, next[2] = p.rows, next[3] = p.K;
  for (int j = 0; j < 3; ++j) {
    next[4 + j] = p.slots[j], next[7 + j] = p.N[j];
    next[10 + j] = address(p.in[j]), next[13 + j] = address(p.out[j]);
  }
  return 0;
}

EMSCRIPTEN_KEEPALIVE double rl_ckpt_saved_floats(const float* spec, int T) {
  return double(rl::checkpoint::saved_floats(rl::checkpoint::read_layer_spec(spec), T));
}

// dh[rows, d] += dz[rows, n] W[n, d] (dz's row stride ld); panel: kBackwardPanelRows * d floats (the layout's
// backwardPanelRows).
EMSCRIPTEN_KEEPALIVE int rl_ckpt_head_backward(float* dh, const float* dz, int ld, int rows, int d, const void* w,
                                               int dtype, int n, float* panel) {
  if (dtype < 0 || dtype >= rl::checkpoint::kDtypeCount) return fail("unknown dtype code");
  rl::checkpoint::linear_backward_input(dh, dz, w, rl::checkpoint::Dtype(dtype), rows, d, n, panel, ld);
  return 0;
}

// dx += J^T dy and dg += the weight's gradient of y = RMSNorm(x) (rl_ckpt_rmsnorm's), rows of d.
EMSCRIPTEN_KEEPALIVE void rl_ckpt_rmsnorm_backward(float* dx, float* dg, const float* dy, const float* x,
                                                   const float* g, int rows, int d, float eps, float weight_offset) {
  std::vector<float> y(std::size_t(rows) * d), rstd(rows);
  rl::rmsnorm_forward(y.data(), rstd.data(), x, g, rows, d, eps, weight_offset);
  rl::rmsnorm_backward(dx, dg, dy, x, rstd.data(), g, rows, d, weight_offset);
}

// ||a^T b||_F^2 for a[T, na], b[T, nb] (a weight gradient's squared norm from its output gradient and input).
EMSCRIPTEN_KEEPALIVE double rl_ckpt_gram_product(const float* a, int na, const float* b, int nb, int T) {
  return rl::linear_weight_grad_square(a, b, T, nb, na);
}

}  // extern "C"
