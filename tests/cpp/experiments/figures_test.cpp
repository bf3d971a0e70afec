// Prints every figure quoted in docs/experiments.md. Hidden from the normal run (it takes a minute natively):
//   build/<dir>/residual_lab_tests "[figures]"
// It fails if an experiment reports an error; the numbers themselves are asserted by the other experiment tests.
#include <catch2/catch.hpp>

#include <cstdio>
#include <string>

#include "experiments/gradient_decay.hpp"
#include "experiments/init_gradients.hpp"
#include "experiments/init_scaling.hpp"
#include "experiments/qk_logit_growth.hpp"
#include "experiments/residual_growth.hpp"
#include "experiments/warmup.hpp"

using namespace rl::experiments;
using rl::decoder::InitScheme;

namespace {

void row(const char* label, const std::vector<double>& v, size_t begin = 0, size_t count = SIZE_MAX, size_t step = 1) {
  std::printf("| %-34s |", label);
  for (size_t i = begin; i < v.size() && i < begin + count; i += step) std::printf(" %.4g |", v[i]);
  std::printf("\n");
}

}  // namespace

TEST_CASE("figures of docs/experiments.md", "[.figures]") {
  std::printf("\n## 1. gradientDecay (width 256, 32 layers, seed 0): |g| at layers 0, 8, 16, 24, 32\n");
  for (bool residual : {false, true})
    for (double gain : {0.1, 0.5, 0.8, 1.0, 1.2})
      for (GradientDecayVariant variant : {GradientDecayVariant::linear, GradientDecayVariant::mlp}) {
        GradientDecayOptions o;
        o.gain = gain;
        o.residual = residual;
        o.variant = variant;
        if (variant == GradientDecayVariant::mlp) o.width = 64;
        const auto r = gradient_decay(o);
        REQUIRE(r.error.empty());
        const std::string label = std::string(variant == GradientDecayVariant::mlp ? "mlp w64" : "linear w256") +
                                  (residual ? " residual" : " plain") + " gain " + std::to_string(gain).substr(0, 3);
        row(label.c_str(), r.grad_norms, 0, 33, 8);
      }

  for (InitScheme scheme : {InitScheme::normal, InitScheme::xavier}) {
    InitGradientsOptions o;
    o.model.n_layers = 12;
    o.model.init.scheme = scheme;
    const auto r = init_gradients(o);
    REQUIRE(r.error.empty());
    std::printf("\n## 2. initGradients %s (LayerNorm, d 64, 12 layers, 2 windows)\n",
                scheme == InitScheme::xavier ? "xavier" : "std 0.02");
    row("loss post, pre", r.loss);
    row("post mlp.down per layer", r.mlp_down_grad_norm, 0, 12);
    row("pre mlp.down per layer", r.mlp_down_grad_norm, 12, 12);
    row("post attn per layer", r.attn_grad_norm, 0, 12);
    row("pre attn per layer", r.attn_grad_norm, 12, 12);
    row("post last mlp.down, L=6,12,24,48", r.last_layer_mlp_grad_norm, 0, 4);
    row("pre last mlp.down, L=6,12,24,48", r.last_layer_mlp_grad_norm, 4, 4);
  }
  {
    InitGradientsOptions o;  // the paper's scale: Xavier weights, unit-variance embeddings
    o.model.n_layers = 12;
    o.model.init.scheme = InitScheme::xavier;
    o.model.init.embed_scale = 50;
    o.model.init.zero_qk = true;
    const auto r = init_gradients(o);
    REQUIRE(r.error.empty());
    std::printf("\n## 2b. initGradients xavier, embedScale 50, zeroQK\n");
    row("post mlp.down per layer", r.mlp_down_grad_norm, 0, 12);
    row("pre mlp.down per layer", r.mlp_down_grad_norm, 12, 12);
    row("post last mlp.down, L=6,12,24,48", r.last_layer_mlp_grad_norm, 0, 4);
    row("pre last mlp.down, L=6,12,24,48", r.last_layer_mlp_grad_norm, 4, 4);
  }

  for (int steps : {0, 300}) {
    ResidualGrowthOptions o;
    o.model.n_layers = 8;
    o.model.norm = rl::decoder::NormKind::rmsnorm;
    o.train_steps = steps;
    const auto r = residual_growth(o);
    REQUIRE(r.error.empty());
    std::printf("\n## 3. residualGrowth, pre-norm RMSNorm, 8 layers, after %d steps (loss %.3f)\n", steps, r.loss);
    row("stream norm (0, after each sublayer)", r.stream_norm);
    row("increment norm", r.increment_norm);
    row("increment ratio", r.increment_ratio);
  }

  {
    QkLogitGrowthOptions o;
    o.model.n_layers = 2;
    o.model.norm = rl::decoder::NormKind::rmsnorm;
    const auto r = qk_logit_growth(o);
    REQUIRE(r.error.empty());
    std::printf("\n## 5. qkLogitGrowth (d_head 16, bound %.3f), gains 1..64\n", r.bound);
    row("max logit, plain", r.max_logit_plain);
    row("layer-0 max logit, plain", r.layer0_max_logit_plain);
    row("max logit, QK-Norm", r.max_logit_qk_norm);
    row("entropy, plain", r.entropy_plain);
    row("entropy, QK-Norm", r.entropy_qk_norm);
  }

  for (InitScheme scheme : {InitScheme::normal, InitScheme::xavier}) {
    InitScalingOptions o;
    o.model.init.scheme = scheme;
    const auto r = init_scaling(o);
    REQUIRE(r.error.empty());
    std::printf("\n## 6. initScaling %s, depths 1..64\n", scheme == InitScheme::xavier ? "xavier" : "std 0.02");
    row("final mean square, plain", r.final_variance_plain);
    row("final mean square, 1/sqrt(2L)", r.final_variance_scaled);
    row("embedding mean square", r.profile_plain, 0, 1);
  }

  std::printf(
      "\n## 4. warmup (L 6, d 64, LayerNorm, 200 steps): validation loss (prediction\n"
      "## similarity) of post without, post with, pre without, pre with warmup\n");
  struct Setting {
    InitScheme scheme;
    double lr;
    uint64_t seed;
    double clip;
    int warmup_steps;
  };
  const InitScheme X = InitScheme::xavier, N = InitScheme::normal;
  for (const Setting& s :
       {Setting{X, 1e-3, 0, 0, 50}, Setting{X, 2e-3, 0, 0, 50}, Setting{X, 3e-3, 0, 0, 50}, Setting{X, 3e-3, 1, 0, 50},
        Setting{X, 3e-3, 2, 0, 50}, Setting{X, 3e-3, 0, 1, 50}, Setting{X, 5e-3, 0, 0, 50}, Setting{X, 5e-3, 0, 0, 150},
        Setting{X, 1e-2, 0, 0, 50}, Setting{N, 3e-3, 0, 0, 50}, Setting{N, 1e-2, 0, 0, 50}}) {
    WarmupOptions o;
    o.model.init.scheme = s.scheme;
    o.model.init.seed = s.seed;
    o.lr = s.lr;
    o.clip_norm = s.clip;
    o.steps = 200;
    o.warmup_steps = s.warmup_steps;
    const auto r = warmup(o);
    REQUIRE(r.error.empty());
    std::printf("| %-6s | lr %.0e | seed %d | clip %g | warmup %d |", s.scheme == X ? "xavier" : "0.02", s.lr,
                int(s.seed), s.clip, s.warmup_steps);
    for (const auto& c : r.runs)
      std::printf(" %.3f (%.2f)%s |", c.eval_loss, c.prediction_similarity,
                  c.status == rl::train::TrainStatus::ok ? "" : " diverged");
    std::printf("\n");
    std::fflush(stdout);
  }
}
