#include "checkpoint/backward.hpp"
#include "checkpoint/backward_buffers.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/attention.hpp"
#include "kernels/gated.hpp"
#include "kernels/linear.hpp"
#include "kernels/norms.hpp"

namespace rl::checkpoint {

void linear_backward_input(float* dx, const float* dy, const void* w, Dtype dtype, int M, int K, int N, float* panel,
                           int ldy) {
  if (ldy == 0) ldy = N;
  if (dtype == Dtype::f32) {
    linear_backward(dx, nullptr, nullptr, dy, nullptr, static_cast<const float*>(w), M, K, N, ldy);
    return;
  }
  const auto* bytes = static_cast<const unsigned char*>(w);
  for (int n = 0; n < N; n += kBackwardPanelRows) {
    const int rows = std::min(kBackwardPanelRows, N - n);
    to_f32(panel, bytes + std::size_t(n) * row_bytes(dtype, K), std::size_t(rows) * K, dtype);
    linear_backward(dx, nullptr, nullptr, dy + n, nullptr, panel, M, K, rows, ldy);
  }
}

namespace {

using detail::Buffers;
using detail::heads;
using detail::kVectors;
using detail::sum_squares;

// ||dloss/db||^2 of a bias from its output's gradient dy[rows, n] (linear_backward's db, into scratch).
double bias_square(const float* dy, int rows, int n, float* scratch) {
  std::fill(scratch, scratch + n, 0.0f);
  linear_backward(nullptr, nullptr, scratch, dy, nullptr, nullptr, rows, 0, n);
  return sum_squares(scratch, n);
}

// dnorm_in[rows, width] += J^T dy of an RMSNorm for each of nv stacked vectors; the weight's ||dg||^2 (from
// vector 0) into *param.
void norm_backward(float* dx, const float* dy, const float* x, const float* rstd, const float* g, int rows, int width,
                   int nv, float off, float* dparam, double* param) {
  const std::size_t n = std::size_t(rows) * width;
  std::fill(dparam, dparam + width, 0.0f);
  for (int j = 0; j < nv; ++j)
    rmsnorm_backward(dx + j * n, j == 0 ? dparam : nullptr, dy + j * n, x, rstd, g, rows, width, off);
  *param += sum_squares(dparam, width);
}

// The widths of a slot's projection: N output rows of W[N, K].
int rows_of(const Buffers& b, int slot) {
  switch (slot) {
    case kQ: return b.qc;
    case kK:
    case kV: return b.kvc;
    case kGate:
    case kUp: return b.ffn;
    default: return b.d;  // o, down
  }
}

// The projection after each stage (LayerStage's comments), on this layer's buffers; x: the layer's input.
StageProjection projection_after(Buffers& b, const LayerSpec& s, LayerStage stage, int nv, const float* x) {
  const bool olmo2 = s.placement == HfPlacement::olmo2, pre = s.placement == HfPlacement::pre;
  StageProjection p;
  const auto forward = [&](const float* in, int K, std::initializer_list<std::pair<int, float*>> outs) {
    p.rows = b.T, p.K = K, p.in[0] = in;
    for (auto [slot, out] : outs) p.slots[p.count] = slot, p.N[p.count] = rows_of(b, slot), p.out[p.count++] = out;
  };
  const auto backward = [&](float* out, int K, std::initializer_list<std::pair<int, const float*>> ins) {
    p.backward = true, p.rows = nv * b.T, p.K = K, p.out[0] = out;
    for (auto [slot, in] : ins) p.slots[p.count] = slot, p.N[p.count] = rows_of(b, slot), p.in[p.count++] = in;
  };
  switch (stage) {
    case LayerStage::norm1: forward(olmo2 ? x : b.n1, b.d, {{kQ, b.q0}, {kK, b.k0}, {kV, b.v}}); break;
    case LayerStage::heads: forward(b.y, b.qc, {{kO, b.a0}}); break;
    case LayerStage::norm3: forward(olmo2 ? b.xm : b.n3, b.d, {{kGate, b.gate}, {kUp, b.up}}); break;
    case LayerStage::glu: forward(b.act, b.ffn, {{kDown, b.m0}}); break;
    case LayerStage::d_norm4: backward(b.dAct, b.ffn, {{kDown, pre ? b.G : b.dA}}); break;
    case LayerStage::d_glu: backward(olmo2 ? b.J : b.dIn, b.d, {{kGate, b.dGate}, {kUp, b.dUp}}); break;
    case LayerStage::d_norm2: backward(b.dY, b.qc, {{kO, pre ? b.G : b.dA}}); break;
    case LayerStage::d_heads:
      backward(
          olmo2 ? b.J : b.dIn, b.d,
          {{kQ, s.qk_norm != QkNorm::none ? b.dQ0 : b.dQ}, {kK, s.qk_norm != QkNorm::none ? b.dK0 : b.dK}, {kV, b.dV}});
      break;
    default: break;  // add, d_norm1: the layer's last stages
  }
  return p;
}

// The state a layer's stages share: its buffers, the two vectors, the reports.
struct StageRun {
  Buffers& b;
  const LayerSpec& s;
  const LayerWeights& w;
  float* x;  // the layer's input (the forward's output is written over it at `add`)
  float* g;
  float* branch_only;
  const float* inv_freq;
  int window;
  LayerStageOutputs out;
  int nv() const { return branch_only ? 2 : 1; }
  std::size_t td() const { return std::size_t(b.T) * b.d; }
  // the gradient and the branch-only vector stacked into G
  void stack() const {
    std::memcpy(b.G, g, sizeof(float) * td());
    if (branch_only) std::memcpy(b.G + td(), branch_only, sizeof(float) * td());
  }
  // the gradient through a sublayer: g += J^T g (the skip's g kept, the branch's product added); the branch-only
  // vector takes the product alone; gain: ||J^T g||^2, ||g||^2
  void through(double* gain) const {
    gain[0] = sum_squares(b.J, td());
    gain[1] = sum_squares(g, td());
    for (std::size_t i = 0; i < td(); ++i) g[i] += b.J[i];
    if (branch_only) std::memcpy(branch_only, b.J + td(), sizeof(float) * td());
  }
};

// The forward's stages: every activation kept in b (forward.cpp computes the same with nothing kept).
void forward_stage(const StageRun& r, LayerStage stage) {
  Buffers& b = r.b;
  const LayerSpec& s = r.s;
  const LayerWeights& w = r.w;
  const int T = b.T, d = b.d, H = b.H, KV = b.KV, hd = b.hd;
  const float off = s.norm_offset;
  const std::size_t n = r.td();
  switch (stage) {
    case LayerStage::norm1:
      if (s.placement != HfPlacement::olmo2)
        rmsnorm_forward(b.n1, b.rstd1, r.x, w.f32(kAttnNormBefore), T, d, s.eps, off);
      break;
    case LayerStage::heads:
      bias_forward(b.q0, w.f32(kQBias), T, b.qc);
      bias_forward(b.k0, w.f32(kKBias), T, b.kvc);
      bias_forward(b.v, w.f32(kVBias), T, b.kvc);
      // q/k norm, per head (rows of head_dim) or over the whole projection
      if (s.qk_norm == QkNorm::per_head) {
        rmsnorm_forward(b.qn, b.rstdq, b.q0, w.f32(kQNorm), T * H, hd, s.eps, off);
        rmsnorm_forward(b.kn, b.rstdk, b.k0, w.f32(kKNorm), T * KV, hd, s.eps, off);
      } else if (s.qk_norm == QkNorm::whole) {
        rmsnorm_forward(b.qn, b.rstdq, b.q0, w.f32(kQNorm), T, b.qc, s.eps, off);
        rmsnorm_forward(b.kn, b.rstdk, b.k0, w.f32(kKNorm), T, b.kvc, s.eps, off);
      } else {
        std::memcpy(b.qn, b.q0, sizeof(float) * T * b.qc);
        std::memcpy(b.kn, b.k0, sizeof(float) * T * b.kvc);
      }
      // RoPE, then the heads (kernels/attention.hpp)
      rope_rotate(b.qr, b.qn, T, H, hd, r.inv_freq, false);
      rope_rotate(b.kr, b.kn, T, KV, hd, r.inv_freq, false);
      attention_forward(b.y, b.S, b.P, b.qr, b.kr, b.v, heads(b, s, r.window));
      break;
    case LayerStage::norm3:
      bias_forward(b.a0, w.f32(kOBias), T, d);
      // the residual add: xm = x + N2(a0) (N2 only in the sandwich and OLMo 2 layouts)
      if (s.placement != HfPlacement::pre) {
        rmsnorm_forward(b.xm, b.rstd2, b.a0, w.f32(kAttnNormAfter), T, d, s.eps, off);
        if (r.out.attn_norms) row_norms(r.out.attn_norms, b.xm, T, d);
        for (std::size_t i = 0; i < n; ++i) b.xm[i] += r.x[i];
      } else {
        if (r.out.attn_norms) row_norms(r.out.attn_norms, b.a0, T, d);
        for (std::size_t i = 0; i < n; ++i) b.xm[i] = r.x[i] + b.a0[i];
      }
      if (s.placement != HfPlacement::olmo2)
        rmsnorm_forward(b.n3, b.rstd3, b.xm, w.f32(kMlpNormBefore), T, d, s.eps, off);
      break;
    case LayerStage::glu:
      std::memcpy(b.act, b.gate, sizeof(float) * T * b.ffn);
      gated_activation(b.act, b.up, std::size_t(T) * b.ffn, s.activation);
      break;
    case LayerStage::add: {
      // the MLP branch's output, N4(m0) or m0, into dA; the layer's output x = xm + that (when asked)
      const float* branch = b.m0;
      if (s.placement != HfPlacement::pre) {
        rmsnorm_forward(b.dA, b.rstd4, b.m0, w.f32(kMlpNormAfter), T, d, s.eps, off);
        branch = b.dA;
      }
      if (r.out.mlp_norms) row_norms(r.out.mlp_norms, branch, T, d);
      if (r.out.write_output)
        for (std::size_t i = 0; i < n; ++i) r.x[i] = b.xm[i] + branch[i];
      break;
    }
    default: break;
  }
}

// The gradient at a branch's last projection's output: G through N2 or N4 (slot; y, rstd its input and statistics)
// in the sandwich and OLMo 2 layouts, else G itself.
const float* output_norm_backward(const StageRun& r, Slot slot, const float* y, const float* rstd) {
  Buffers& b = r.b;
  if (r.s.placement == HfPlacement::pre) return b.G;
  std::fill(b.dA, b.dA + r.nv() * r.td(), 0.0f);
  norm_backward(b.dA, b.G, y, rstd, r.w.f32(slot), b.T, b.d, r.nv(), r.s.norm_offset, b.dparam,
                &r.out.param_squares[slot]);
  return b.dA;
}

// The backward's stages: J[nv T, d] = J_f(x)^T G for each sublayer (the MLP's, then the attention's), the stacked
// vectors' gradients in place; squared weight gradients (of vector 0) into out.param_squares.
void backward_stage(const StageRun& r, LayerStage stage) {
  Buffers& b = r.b;
  const LayerSpec& s = r.s;
  const LayerWeights& w = r.w;
  const int T = b.T, d = b.d, H = b.H, KV = b.KV, hd = b.hd, ffn = b.ffn, nv = r.nv(), M = nv * T;
  const float off = s.norm_offset;
  const std::size_t td = r.td(), tf = std::size_t(T) * ffn;
  double* sq = r.out.param_squares;
  const bool olmo2 = s.placement == HfPlacement::olmo2;
  const auto zero = [](const StageProjection& p) { std::fill(p.out[0], p.out[0] + std::size_t(p.rows) * p.K, 0.0f); };
  switch (stage) {
    case LayerStage::d_norm4: {
      std::fill(sq, sq + kSlotCount, 0.0);
      r.stack();
      // N4 (after the MLP), then down_proj
      const float* dM0 = output_norm_backward(r, kMlpNormAfter, b.m0, b.rstd4);
      sq[kDown] += linear_weight_grad_square(dM0, b.act, T, ffn, d);
      zero(projection_after(b, s, stage, nv, r.x));
      break;
    }
    case LayerStage::d_glu: {
      // act(gate) * up
      const Gate kind = s.activation == Activation::gelu_tanh ? Gate::gelu_tanh : Gate::silu;
      for (int j = 0; j < nv; ++j)
        glu_backward(b.dGate + j * tf, b.dUp + j * tf, b.dAct + j * tf, b.gate, b.up, int(tf), kind);
      const float* in = olmo2 ? b.xm : b.n3;
      sq[kGate] += linear_weight_grad_square(b.dGate, in, T, d, ffn);
      sq[kUp] += linear_weight_grad_square(b.dUp, in, T, d, ffn);
      zero(projection_after(b, s, stage, nv, r.x));
      break;
    }
    case LayerStage::d_norm2: {
      // N3, then the MLP's sublayer is done
      if (!olmo2) {
        std::fill(b.J, b.J + nv * td, 0.0f);
        norm_backward(b.J, b.dIn, b.xm, b.rstd3, w.f32(kMlpNormBefore), T, d, nv, off, b.dparam, &sq[kMlpNormBefore]);
      }
      r.through(r.out.gains + 2);
      if (r.out.mid_grads) row_norms(r.out.mid_grads, r.g, T, d);
      r.stack();
      // N2 (after the attention), then o_proj and its bias
      const float* dA0 = output_norm_backward(r, kAttnNormAfter, b.a0, b.rstd2);
      if (w.w[kOBias]) sq[kOBias] += bias_square(dA0, T, d, b.dparam);
      sq[kO] += linear_weight_grad_square(dA0, b.y, T, b.qc, d);
      zero(projection_after(b, s, stage, nv, r.x));
      break;
    }
    case LayerStage::d_heads: {
      // the heads and RoPE's R^T, for each vector
      std::fill(b.dQ, b.dQ + std::size_t(M) * b.qc, 0.0f);
      std::fill(b.dK, b.dK + std::size_t(M) * b.kvc, 0.0f);
      std::fill(b.dV, b.dV + std::size_t(M) * b.kvc, 0.0f);
      for (int j = 0; j < nv; ++j) {
        float *dQ = b.dQ + std::size_t(j) * T * b.qc, *dK = b.dK + std::size_t(j) * T * b.kvc;
        attention_backward(dQ, dK, b.dV + std::size_t(j) * T * b.kvc, b.dP, b.dG, b.d_raw,
                           b.dY + std::size_t(j) * T * b.qc, b.qr, b.kr, b.v, b.S, b.P, heads(b, s, r.window));
        rope_rotate(dQ, dQ, T, H, hd, r.inv_freq, true);
        rope_rotate(dK, dK, T, KV, hd, r.inv_freq, true);
      }
      // q/k norm
      const float *dQ0 = b.dQ, *dK0 = b.dK;
      if (s.qk_norm != QkNorm::none) {
        const bool head = s.qk_norm == QkNorm::per_head;
        std::fill(b.dQ0, b.dQ0 + std::size_t(M) * b.qc, 0.0f);
        std::fill(b.dK0, b.dK0 + std::size_t(M) * b.kvc, 0.0f);
        norm_backward(b.dQ0, b.dQ, b.q0, b.rstdq, w.f32(kQNorm), head ? T * H : T, head ? hd : b.qc, nv, off, b.dparam,
                      &sq[kQNorm]);
        norm_backward(b.dK0, b.dK, b.k0, b.rstdk, w.f32(kKNorm), head ? T * KV : T, head ? hd : b.kvc, nv, off,
                      b.dparam, &sq[kKNorm]);
        dQ0 = b.dQ0;
        dK0 = b.dK0;
      }
      if (w.w[kQBias]) sq[kQBias] += bias_square(dQ0, T, b.qc, b.dparam);
      if (w.w[kKBias]) sq[kKBias] += bias_square(dK0, T, b.kvc, b.dparam);
      if (w.w[kVBias]) sq[kVBias] += bias_square(b.dV, T, b.kvc, b.dparam);
      // q, k, v projections: their input gradients summed
      const float* in = olmo2 ? r.x : b.n1;
      sq[kQ] += linear_weight_grad_square(dQ0, in, T, d, b.qc);
      sq[kK] += linear_weight_grad_square(dK0, in, T, d, b.kvc);
      sq[kV] += linear_weight_grad_square(b.dV, in, T, d, b.kvc);
      zero(projection_after(b, s, stage, nv, r.x));
      break;
    }
    case LayerStage::d_norm1:
      // N1, then the attention's sublayer is done
      if (!olmo2) {
        std::fill(b.J, b.J + nv * td, 0.0f);
        norm_backward(b.J, b.dIn, r.x, b.rstd1, w.f32(kAttnNormBefore), T, d, nv, off, b.dparam, &sq[kAttnNormBefore]);
      }
      r.through(r.out.gains + 0);
      break;
    default: break;
  }
}

std::string check_layer(const LayerSpec& s, const LayerWeights& w, int T, bool projections = true) {
  if (std::string e = check_spec(s); !e.empty()) return e;
  if (T <= 0) return "a run needs at least one position";
  for (int slot = 0; slot < kSlotCount; ++slot) {
    const bool optional = slot >= kQBias && slot <= kOBias;
    const bool projection = slot >= kQ && slot <= kDown;
    if (!optional && (projections || !projection) && slot_size(s, Slot(slot)) > 0 && !w.w[slot])
      return "missing weight";
  }
  return "";
}

// The projection p in this thread, on the layer's own weights.
void project(const StageProjection& p, const LayerWeights& w, float* panel) {
  for (int j = 0; j < p.count; ++j) {
    const int slot = p.slots[j];
    if (p.backward) linear_backward_input(p.out[0], p.in[j], w.w[slot], w.dtype[slot], p.rows, p.K, p.N[j], panel);
    else linear(p.out[j], p.in[0], w.w[slot], w.dtype[slot], p.rows, p.K, p.N[j], panel);
  }
}

// Stages first .. last of one layer, each projection between them in this thread.
void run_stages(StageRun& r, LayerStage first, LayerStage last) {
  for (int k = int(first); k <= int(last); ++k) {
    const auto stage = LayerStage(k);
    if (k < int(LayerStage::d_norm4)) forward_stage(r, stage);
    else backward_stage(r, stage);
    if (stage != last) project(projection_after(r.b, r.s, stage, r.nv(), r.x), r.w, r.b.panel);
  }
}

}  // namespace

std::string layer_forward_saved(float* x, int T, const LayerSpec& s, const LayerWeights& w, const float* inv_freq,
                                int window, float* saved, float* attn_norms, float* mlp_norms, BackwardWorkspace& ws) {
  if (std::string e = check_layer(s, w, T); !e.empty()) return e;
  if (std::string e = ws.reserve(s, T); !e.empty()) return e;
  Buffers b(s, T);
  b.carve(saved, ws.data.data() + b.activation_floats());
  StageRun r{b, s, w, x, nullptr, nullptr, inv_freq, window, {}};
  r.out.attn_norms = attn_norms, r.out.mlp_norms = mlp_norms, r.out.write_output = true;
  run_stages(r, LayerStage::norm1, LayerStage::add);
  return "";
}

std::size_t saved_floats(const LayerSpec& spec, int T) { return Buffers(spec, T).activation_floats(); }

std::string BackwardWorkspace::reserve(const LayerSpec& spec, int T) {
  Buffers b(spec, T);
  const std::size_t total = b.activation_floats() + b.scratch_floats();
  if (total > data.size()) {
    release();
    if (std::string e = reserve_memory(total * sizeof(float), "a layer's backward", &memory_); !e.empty()) return e;
    data.resize(total);
  }
  return "";
}

void BackwardWorkspace::release() {
  std::vector<float>().swap(data);
  memory_.reset();
}

std::string layer_backward(float* g, float* branch_only, const float* x, int T, const LayerSpec& s,
                           const LayerWeights& w, const float* inv_freq, int window, const LayerGradients& out,
                           BackwardWorkspace& ws, const float* saved) {
  if (std::string e = check_layer(s, w, T); !e.empty()) return e;
  if (std::string e = ws.reserve(s, T); !e.empty()) return e;
  Buffers b(s, T);
  b.carve(saved ? const_cast<float*>(saved) : ws.data.data(), ws.data.data() + b.activation_floats());
  double gains[4], sq[kSlotCount];
  StageRun r{b, s, w, const_cast<float*>(x), g, branch_only, inv_freq, window, {}};
  r.out.mid_grads = out.mid_grads, r.out.gains = gains, r.out.param_squares = sq;
  // the activations recomputed from x (x itself unchanged), then the MLP sublayer and the attention's, top-down
  if (!saved) run_stages(r, LayerStage::norm1, LayerStage::add);
  run_stages(r, LayerStage::d_norm4, LayerStage::d_norm1);
  if (out.gains) std::copy(gains, gains + 4, out.gains);
  if (out.param_squares) std::copy(sq, sq + kSlotCount, out.param_squares);
  return "";
}

std::string layer_stage(LayerStage stage, float* x, float* g, float* branch_only, int T, const LayerSpec& s,
                        const LayerWeights& w, const float* inv_freq, int window, float* saved,
                        const LayerStageOutputs& out, BackwardWorkspace& ws, StageProjection* next) {
  if (std::string e = check_layer(s, w, T, false); !e.empty()) return e;
  if (!saved) return "a layer's stages need its activations' block";
  if (std::string e = ws.reserve(s, T); !e.empty()) return e;
  Buffers b(s, T);
  b.carve(saved, ws.data.data() + b.activation_floats());
  StageRun r{b, s, w, x, g, branch_only, inv_freq, window, out};
  if (int(stage) < int(LayerStage::d_norm4)) forward_stage(r, stage);
  else backward_stage(r, stage);
  if (next) *next = projection_after(b, s, stage, r.nv(), x);
  return "";
}

}  // namespace rl::checkpoint
