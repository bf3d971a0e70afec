// The lab's trained toys: which decoders `npm run train-toys` trains and exports, and how. One table serves the
// exporter (tools/train_toys.cpp) and the test that re-runs the start of a toy's training.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "decoder/config.hpp"
#include "tools/hf_export.hpp"
#include "train/loop.hpp"

namespace rl::train {

struct ToySpec {
  std::string_view name;        // the folder: web/models/<name>/
  std::string_view model_type;  // a row of hf_architectures()
  int steps;
  double peak_lr;
  std::uint64_t seed;  // the initialisation's and the data order's
};

const std::vector<ToySpec>& toy_specs();

// d = 64, 4 heads of 16, 4 layers, SwiGLU width 176 (about 8/3 d), context 64, RMSNorm eps 1e-5, RoPE base 10000,
// the family's placement and q/k norm, untied output head, GPT-2's residual scaling at init.
decoder::Config toy_config(const ToySpec& toy);
// AdamW (weight decay 0.01) at peak_lr, 100 warmup steps, cosine decay to 0.1 x peak at `steps`; windows of 64.
TrainOptions toy_train_options(const ToySpec& toy);

}  // namespace rl::train
