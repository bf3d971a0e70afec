// A checkpoint's loss at one position and its gradient at the logits before the final soft-cap, the first step of
// ckpt.gradients' backward.
#pragma once

namespace rl::checkpoint {

// z: one position's V logits after the final soft-cap (cap 0: none); token: the target id; weight: the position's
// share of the loss (1 / positions for the mean next-token loss). Returns weight * (log sum_j exp z_j - z_token),
// summed in double with the row max subtracted. dz (V floats, overwritten): weight * (softmax(z) - onehot(token))
// taken through the soft-cap's backward (kernels/activations.hpp), i.e. the gradient at the logits before the cap;
// scratch: V floats.
double cross_entropy_backward(float* dz, const float* z, int V, int token, float weight, float cap, float* scratch);

}  // namespace rl::checkpoint
