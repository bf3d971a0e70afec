// Decoder benchmarks: the linear layer's matmul in GFLOP/s at 64x64 and 256x256 (forward y = x W^T, and the
// two backward products together); a Qwen2.5-0.5B layer's seven BF16 projections as a checkpoint run calls them
// (checkpoint/forward.hpp's linear, the "dot" kernel, on 16 rows; checkpoint/backward.hpp's
// linear_backward_input, the "outer product" kernel, on 16 rows and on the gradients' 32: the loss's gradient and
// the branch-only one, stacked); then the decoder itself in milliseconds: forward and forward+backward of
// L = 32, d = 64, 4 heads, 16 tokens, and one training step of a 4-layer d = 64 model on 64 tokens (sample,
// forward, backward, clip, AdamW: train::Trainer::step).
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench.hpp"
#include "decoder/model.hpp"
#include "train/loop.hpp"
#include "checkpoint/backward.hpp"
#include "checkpoint/forward.hpp"
#include "kernels/linear.hpp"

namespace rl::bench {
namespace {

// Runs fn for about 200 ms before it is timed, so WASM engines have tiered the code up (V8 starts with its
// baseline compiler) and caches hold the model: the figures are steady-state ones.
template <class Fn>
double timed(Fn&& fn) {
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < 0.2) fn();
  return median_seconds_per_call(fn);
}

std::vector<float> pattern(std::size_t n, float phase) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i)
    v[i] = 0.5f * static_cast<float>(((i * 2654435761u + 7) % 1000)) / 1000.0f - 0.25f + phase;
  return v;
}

void bench_matmul(int n) {
  const std::size_t nn = static_cast<std::size_t>(n) * n;
  auto x = pattern(nn, 0.0f), w = pattern(nn, 0.01f), dy = pattern(nn, -0.01f);
  std::vector<float> y(nn), dx(nn), dw(nn);
  const double flops = 2.0 * n * n * n;
  const double forward = timed([&] {
    linear_forward(y.data(), x.data(), w.data(), nullptr, n, n, n);
    do_not_optimize(y.data());
  });
  report("linear_forward", n, "GFLOP/s", flops / forward * 1e-9);
  const double backward = timed([&] {
    linear_backward(dx.data(), dw.data(), nullptr, dy.data(), x.data(), w.data(), n, n, n);
    do_not_optimize(dx.data());
  });
  report("linear_backward", n, "GFLOP/s", 2 * flops / backward * 1e-9);
}

// Qwen2.5-0.5B's projections, {out, in}: q, k, v, o, gate, up, down.
constexpr int kQwenProjections[][2] = {{896, 896},  {128, 896},  {128, 896}, {896, 896},
                                       {4864, 896}, {4864, 896}, {896, 4864}};

std::vector<std::uint16_t> bf16_pattern(std::size_t n) {
  const auto f = pattern(n, 0.0f);
  std::vector<std::uint16_t> bits(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t u;
    std::memcpy(&u, &f[i], 4);
    bits[i] = static_cast<std::uint16_t>(u >> 16);
  }
  return bits;
}

void bench_checkpoint_projections() {
  using checkpoint::Dtype;
  std::vector<std::vector<std::uint16_t>> weights;
  for (const auto& p : kQwenProjections) weights.push_back(bf16_pattern(std::size_t(p[0]) * p[1]));
  const std::size_t widest = 4864, rows = 32;
  auto x = pattern(rows * widest, 0.0f), dy = pattern(rows * widest, 0.01f);
  std::vector<float> y(rows * widest), dx(rows * widest), panel(std::size_t(checkpoint::kBackwardPanelRows) * widest);
  const auto layer_flops = [](int M) {
    double f = 0;
    for (const auto& p : kQwenProjections) f += 2.0 * M * p[0] * p[1];
    return f;
  };
  const double forward = timed([&] {
    for (std::size_t j = 0; j < weights.size(); ++j) {
      const auto& p = kQwenProjections[j];
      checkpoint::linear(y.data(), x.data(), weights[j].data(), Dtype::bf16, 16, p[1], p[0], panel.data(), nullptr);
    }
    do_not_optimize(y.data());
  });
  report("ckpt_bf16_forward", 16, "GFLOP/s", layer_flops(16) / forward * 1e-9);
  for (int M : {16, 32}) {
    const double backward = timed([&] {
      for (std::size_t j = 0; j < weights.size(); ++j) {
        const auto& p = kQwenProjections[j];
        checkpoint::linear_backward_input(dx.data(), dy.data(), weights[j].data(), Dtype::bf16, M, p[1], p[0],
                                          panel.data());
      }
      do_not_optimize(dx.data());
    });
    report("ckpt_bf16_backward", M, "GFLOP/s", layer_flops(M) / backward * 1e-9);
  }
}

std::unique_ptr<decoder::Model> bench_model(int layers, int context) {
  decoder::Config c;
  c.vocab_size = 64, c.d_model = 64, c.n_heads = 4, c.n_layers = layers, c.context_length = context;
  std::string error;
  auto model = decoder::Model::create(c, &error);
  if (!model) std::fprintf(stderr, "decoder bench: %s\n", error.c_str());
  return model;
}

std::vector<std::int32_t> sequence(int T, int offset) {
  std::vector<std::int32_t> t(T);
  for (int i = 0; i < T; ++i) t[i] = (i * 7 + offset) % 64;
  return t;
}

void bench_decoder() {
  const int T = 16;
  auto model = bench_model(32, T);
  if (!model) return;
  const auto tokens = sequence(T, 3), targets = sequence(T, 4);
  const double fwd = timed([&] { model->forward(tokens, targets); });
  report("decoder_forward_L32_d64_T16", 32, "ms", fwd * 1e3);
  const double fwd_bwd = timed([&] {
    model->forward(tokens, targets);
    model->zero_grad();
    model->backward();
  });
  report("decoder_forward_backward_L32_d64_T16", 32, "ms", fwd_bwd * 1e3);

  // one step of the shipped trainer: sample a window, forward, backward, clip, AdamW
  const int T_train = 64;
  auto small = bench_model(4, T_train);
  if (!small) return;
  train::TrainOptions options;
  options.seq_len = T_train;
  options.schedule.peak_lr = 1e-4;
  std::string error;
  auto trainer = train::Trainer::create(*small, options, &error);
  if (!trainer) {
    std::fprintf(stderr, "decoder bench: %s\n", error.c_str());
    return;
  }
  const double step = timed([&] { trainer->step(); });
  report("decoder_train_step_L4_d64_T64", 4, "ms", step * 1e3);
}

}  // namespace

void run_decoder_benchmarks() {
  bench_matmul(64);
  bench_matmul(256);
  bench_checkpoint_projections();
  bench_decoder();
}

}  // namespace rl::bench
