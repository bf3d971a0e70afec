// The backward of one checkpoint layer (forward.hpp), for the gradients a reader compares across layers.
//
// A layer is two sublayers, each x -> x + f(x), f the whole branch between the stream and the add (its norms
// included, forward.hpp's layouts). For g, the gradient at a sublayer's output, the gradient at its input is
//   g + J_f(x)^T g
// the skip carrying g unchanged (the residual rule: the stream's gradient ACCUMULATES, +=) and the branch adding
// its vector-Jacobian product. layer_backward recomputes the layer's activations from its saved input x (T x d,
// what the forward read), then runs the two sublayers top-down.
//
// Weight gradients are reported as squared Frobenius norms only, never materialized: for a linear layer
// y[T, N] = x[T, K] W^T, dW = dy^T x and
//   ||dW||_F^2 = sum_{t,s} (dy_t . dy_s)(x_t . x_s) = <dy dy^T, x x^T>_F
// two T x T Gram matrices, cheaper than dW itself while T is small against N and K.
#pragma once
#include <string>
#include <vector>

#include "checkpoint/forward.hpp"
#include "core/memory_budget.hpp"

namespace rl::checkpoint {

// dx[M, K] += dy[M, N] W[N, K] with W in `dtype` (the input gradient of linear(): kernels/linear.hpp's
// linear_backward on W itself, float32, or on kBackwardPanelRows rows of it at a time widened into panel,
// kBackwardPanelRows * K floats); ldy: dy's row stride (0 for N), as the head's vocabulary chunks pass theirs.
inline constexpr int kBackwardPanelRows = 128;
void linear_backward_input(float* dx, const float* dy, const void* w, Dtype dtype, int M, int K, int N, float* panel,
                           int ldy = 0);

// What layer_backward reports besides the gradients it changes in place.
//   mid_grads     T floats: ||g|| at each position between the two residual adds (hook_resid_mid's gradient)
//   gains         4 doubles: ||J_attn^T g_mid||^2, ||g_mid||^2, ||J_mlp^T g_out||^2, ||g_out||^2 (over all positions)
//   param_squares kSlotCount doubles: ||dloss/dW||_F^2 of each slot's tensor (0 where the spec has none)
struct LayerGradients {
  float* mid_grads = nullptr;
  double* gains = nullptr;
  double* param_squares = nullptr;
};

// One layer's forward activations and the backward's scratch, reserved against the memory budget.
class BackwardWorkspace {
 public:
  std::string reserve(const LayerSpec& spec, int T);
  void release();
  std::vector<float> data;

 private:
  MemoryReservation memory_;
};

// The floats of one layer's activations as layer_forward_saved keeps them for layer_backward.
std::size_t saved_floats(const LayerSpec& spec, int T);

// layer_forward's x += attention branch, += MLP branch, every activation kept in saved (saved_floats floats);
// attn_norms, mlp_norms: T floats each (nullptr: not asked), each branch's row norms.
std::string layer_forward_saved(float* x, int T, const LayerSpec& spec, const LayerWeights& weights,
                                const float* inv_freq, int window, float* saved, float* attn_norms, float* mlp_norms,
                                BackwardWorkspace& ws);

// g[T, d]: in, the gradient at the layer's output; out, at its input (x). branch_only[T, d] (nullptr: none): the
// same vector with no skip, g <- J_f^T g through the MLP, then the attention. x: the layer's input stream. saved:
// what layer_forward_saved kept of this layer, or nullptr: the activations are recomputed from x.
std::string layer_backward(float* g, float* branch_only, const float* x, int T, const LayerSpec& spec,
                           const LayerWeights& weights, const float* inv_freq, int window, const LayerGradients& out,
                           BackwardWorkspace& ws, const float* saved = nullptr);

// The layer cut at its seven projections, for a run whose projections are computed elsewhere (each worker its rows
// of each matrix, shards.js): the forward's stages, each followed by the projection named, then the backward's.
//   norm1    N1(x)                                             -> q, k, v = W_{q,k,v} N1(x)
//   heads    biases, q/k norm, RoPE, the heads                 -> a0 = W_o y
//   norm3    o's bias, N2, xm = x + that, N3(xm)               -> gate, up = W_{gate,up} N3(xm)
//   glu      act = act(gate) * up                              -> m0 = W_down act
//   add      N4, x = xm + that
//   d_norm4  G = [g; branch], N4's backward                    -> dAct = dM0 W_down
//   d_glu    the GLU's backward                                -> dIn = dGate W_gate + dUp W_up
//   d_norm2  N3's backward, g += J (the MLP done), N2's        -> dY = dA0 W_o
//   d_heads  the heads', RoPE's, q/k norm's backward           -> dIn = dQ0 W_q + dK0 W_k + dV W_v
//   d_norm1  N1's backward, g += J (the attention done)
// layer_forward_saved and layer_backward run the same stages with each projection in this thread.
enum class LayerStage : int { norm1, heads, norm3, glu, add, d_norm4, d_glu, d_norm2, d_heads, d_norm1 };

// The projection after a stage: forward, out[j][rows, N[j]] = in[0][rows, K] W_slots[j]^T (its output overwritten);
// backward, out[0][rows, K] += in[j][rows, N[j]] W_slots[j] summed over j (out zeroed by the stage). count 0: none.
struct StageProjection {
  bool backward = false;
  int count = 0, rows = 0, K = 0;
  int slots[3] = {}, N[3] = {};
  const float* in[3] = {};
  float* out[3] = {};
};

// What the stages report: attn_norms, mlp_norms (forward; T floats each, nullptr: not asked), write_output (add
// writes the layer's output over x), and LayerGradients' three (backward; gains and param_squares filled from
// d_norm4 to d_norm1).
struct LayerStageOutputs {
  float* attn_norms = nullptr;
  float* mlp_norms = nullptr;
  bool write_output = false;
  float* mid_grads = nullptr;
  double* gains = nullptr;
  double* param_squares = nullptr;
};

// One stage of layer_forward_saved or layer_backward on the layer's activations in saved (saved_floats floats) and
// the workspace's scratch (the same from one stage to the next while spec and T stay); weights: its norms and
// biases (the projections are not read). next: the projection to run before the next stage.
std::string layer_stage(LayerStage stage, float* x, float* g, float* branch_only, int T, const LayerSpec& spec,
                        const LayerWeights& weights, const float* inv_freq, int window, float* saved,
                        const LayerStageOutputs& out, BackwardWorkspace& ws, StageProjection* next);

}  // namespace rl::checkpoint
