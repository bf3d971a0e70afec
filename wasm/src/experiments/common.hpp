// What the decoder experiments (2 to 6) share: the model options a reader can turn, the model built from them
// over the shipped corpus's vocabulary, and the fixed text windows the init-time measurements read.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "decoder/config.hpp"
#include "decoder/model.hpp"
#include "train/corpus.hpp"

namespace rl::experiments {

// The decoder config's options an experiment takes, named as in decoder::Config (JS: nLayers, dModel, nHeads,
// contextLength, norm, placement, qkNorm, init); defaults, bounds and meanings are the rows of
// experiments/options.cpp, and a test holds the defaults here to them.
struct ModelOptions {
  int n_layers = 6;
  int d_model = 64;
  int n_heads = 4;
  int context_length = 64;  // tokens per sequence
  decoder::NormKind norm = decoder::NormKind::layernorm;
  decoder::Placement placement = decoder::Placement::pre;
  bool qk_norm = false;
  decoder::InitConfig init;  // scheme, std, residual_scaling, embed_scale, zero_qk, qk_gain, seed
};

// A ModelOptions with the fields the experiments' defaults change.
inline ModelOptions model_options(int n_layers, decoder::NormKind norm, decoder::InitScheme scheme) {
  ModelOptions m;
  m.n_layers = n_layers;
  m.norm = norm;
  m.init.scheme = scheme;
  return m;
}

// Empty when the sizes fit the experiments' bounds (kept small enough to answer within seconds in a browser).
std::string validate(const ModelOptions& options);

// The decoder config: vocabulary of the shipped corpus, d_ff = 4 * d_model.
decoder::Config to_config(const ModelOptions& options);

// The model, or nullptr and *error set.
std::unique_ptr<decoder::Model> build_model(const ModelOptions& options, std::string* error);

// `count` consecutive windows of `length` tokens from the start of the training split: the fixed input of every
// measurement at initialisation (the same text for every placement and depth, so curves differ only by the model).
std::vector<train::Sequence> probe_windows(int length, int count);

// Frobenius norm of one tensor's gradient, 0 if the model has no tensor of that name.
double tensor_grad_norm(const decoder::Model& model, const std::string& name);

// Mean over positions of ||h_t||^2 / d_model at each stream point of the last forward: the per-coordinate second
// moment ("variance" of a zero-mean stream), [2L + 1].
std::vector<double> stream_mean_square(const decoder::Model& model);

}  // namespace rl::experiments
