// The backward of one checkpoint layer (forward.hpp), for the gradients a reader compares across layers.
//
// A layer is two sublayers, each x -> x + f(x), f the whole branch between the stream and the add (its norms
// included, forward.hpp's layouts). For g, the gradient at a sublayer's output, the gradient at its input is
//   g + J_f(x)^T g
// the skip carrying g unchanged (the residual rule: the stream's gradient ACCUMULATES, +=) and the branch adding
// its vector-Jacobian product. layer_backward recomputes the layer's activations from its saved input x (T x d,
// what the forward read), then runs the two sublayers top-down.
//
// Weight gradients are reported as squared Frobenius norms only, never materialized (kernels/linear.hpp's
// linear_weight_grad_square: two T x T Gram matrices, cheaper than dW itself while T is small against N and K);
// a bias's gradient is linear_backward's db.
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

}  // namespace rl::checkpoint
