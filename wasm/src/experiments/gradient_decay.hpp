// Experiment 1: why deep stacks need residual connections.
//
// A stack of `layers` layers acting on a width-dimensional vector h. A unit gradient g arrives at the top
// (a seeded random direction), is carried down by the chain rule, g_l = J_l^T g_{l+1}, and the result is
// grad_norms[l] = |g_l|, the gradient norm at the input of layer l (grad_norms[layers] = 1, the top).
//
// linear, no residual:  h <- gain * Q_l h, Q_l a fresh Haar-random orthogonal matrix per layer. |Q^T g| = |g|,
//   so grad_norms[0] = gain^layers exactly: 0.8^32 = 7.9e-4 (early layers stop learning), 1.2^32 = 342 (blow-up).
// linear, residual:     h <- h + gain * Q_l h, Jacobian I + gain * Q_l. The identity carries g down
//   untouched and the branch only adds to it:
//     |g_l|^2 = |g_{l+1}|^2 (1 + gain^2) + 2 gain g_{l+1}.Q_l^T g_{l+1},
//   and the cross term has mean 0 and standard deviation about 2 gain |g|^2 / sqrt(width) for a random Q, so in
//   high dimension each layer multiplies the norm by about sqrt(1 + gain^2): 1.005 per layer for gain 0.1
//   (1.17x over 32 layers: the gradient stays near its top value), 1.28 for gain 0.8 (about 2,700x over 32).
//   Small branches at initialization (experiment 6) are what keep a residual stack near the first case.
// mlp:  the same with a real nonlinear branch f(h) = W2 gelu(W1 h), hidden size 4 * width, W1 ~ N(0, 1/width),
//   W2 ~ N(0, 2 / hidden) (He-style), scaled by gain; h_0 ~ N(0, I). The gradient goes through the GELU
//   derivative at the actual forward activations, so the decay rate is no longer exactly gain per layer.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace rl::experiments {

enum class GradientDecayVariant { linear, mlp };

// The mlp variant's hidden layer is 4 * width: past 512 a run takes seconds in a browser.
inline constexpr int kMaxMlpWidth = 512;

struct GradientDecayOptions {
  int n_layers = 32;
  double gain = 0.8;  // the layer's scale, or the branch's scale when residual
  bool residual = false;
  GradientDecayVariant variant = GradientDecayVariant::linear;
  int width = 256;
  uint64_t seed = 0;
};

struct GradientDecayResult {
  std::string error;               // non-empty: the options were rejected and nothing was computed
  std::vector<double> grad_norms;  // n_layers + 1 values, [0] at the input, [n_layers] at the top (= 1)
};

std::string validate(const GradientDecayOptions& options);

GradientDecayResult gradient_decay(const GradientDecayOptions& options);

// The pieces gradient_decay is made of, exposed so tests can check the MLP backward by finite differences.
std::vector<double> top_gradient_direction(const GradientDecayOptions& options);  // seeded unit vector
std::vector<double> mlp_stack_input(const GradientDecayOptions& options);         // seeded h_0 ~ N(0, I)
std::vector<double> mlp_stack_output(const GradientDecayOptions& options, const std::vector<double>& input);
// d(top . h_L) / d h_0 for h_0 = input; norms (if given) receives |g_l| for l = 0..n_layers.
std::vector<double> mlp_stack_input_gradient(const GradientDecayOptions& options, const std::vector<double>& input,
                                             std::vector<double> top, std::vector<double>* norms);

}  // namespace rl::experiments
