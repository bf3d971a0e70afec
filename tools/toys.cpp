#include "tools/toys.hpp"

#include "train/corpus.hpp"

namespace rl::train {

const std::vector<ToySpec>& toy_specs() {
  static const std::vector<ToySpec> toys = {
      {"toy-llama", "llama", 1200, 3e-3, 1},
      {"toy-olmo2", "olmo2", 1200, 3e-3, 2},
  };
  return toys;
}

decoder::Config toy_config(const ToySpec& toy) {
  const HfArchitecture& arch = *find_hf_architecture(toy.model_type);
  decoder::Config c;
  c.vocab_size = shipped_corpus().tokenizer.vocab_size();
  c.d_model = 64, c.n_heads = 4, c.d_ff = 176, c.n_layers = 4, c.context_length = 64;
  c.mlp = decoder::MlpKind::swiglu;
  c.norm = decoder::NormKind::rmsnorm;
  c.placement = arch.placement;
  c.qk_norm = arch.qk_norm;
  c.qk_norm_shape = arch.qk_norm_shape;
  c.pos_embed = false;
  c.rope = true;
  c.rope_theta = 10000.0f;
  c.eps = 1e-5f;
  c.init.std = 0.02f;
  c.init.residual_scaling = true;
  c.init.seed = toy.seed;
  return c;
}

TrainOptions toy_train_options(const ToySpec& toy) {
  TrainOptions o;
  o.schedule = {toy.peak_lr, 100, LrDecay::cosine, toy.steps, 0.1};
  o.adamw.weight_decay = 0.01;
  o.seq_len = 64;
  o.data_seed = toy.seed;
  return o;
}

}  // namespace rl::train
