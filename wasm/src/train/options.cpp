#include "train/options.hpp"

namespace rl::train {
namespace {

options::Table build() {
  using namespace options;
  Option seq_len = integer("seqLen", 0, 2, 4096, "tokens per step (one window); null means the model's contextLength");
  seq_len.nullable = true;
  return {
      positive("lr", 1e-3, 100, "the peak learning rate"),
      integer("warmupSteps", 0, 0, 1e7, "steps of linear warmup from 0 to lr"),
      choice("decay", "constant", {"constant", "cosine"}, "after warmup: constant, or cosine down to finalRatio * lr"),
      integer("totalSteps", 1000, 1, 1e7, "where the cosine decay reaches its floor"),
      number("finalRatio", 0.1, 0, 1, "the cosine floor as a fraction of lr"),
      number("clipNorm", 1, 0, 1e6, "clip the global gradient norm to this; 0 is off"),
      number("weightDecay", 0, 0, 10, "AdamW's decoupled weight decay (matrices only)"),
      number("beta1", 0.9, 0, 0.999999, "AdamW's first-moment decay"),
      number("beta2", 0.999, 0, 0.999999, "AdamW's second-moment decay"),
      positive("adamEps", 1e-8, 1, "AdamW's epsilon"),
      seq_len,
      integer("dataSeed", 0, 0, 9007199254740991.0, "the sampler's seed (the model's init has its own)"),
  };
}

}  // namespace

const options::Table& step_options() {
  static const options::Table table = build();
  return table;
}

}  // namespace rl::train
