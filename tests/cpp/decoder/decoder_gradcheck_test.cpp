// The analytic backward against finite differences of an independent float64 forward, and the float32 forward
// against that same reference, for every norm kind x placement x QK-Norm x soft-cap (20 tiny models per kind; MLP
// kind, residual and position embeddings vary across them so each setting is covered both ways).
#include <catch2/catch.hpp>

#include "decoder_test_util.hpp"

using namespace rl;
using namespace rl::test;

namespace {

void check_model(decoder::Config c, std::uint64_t seed) {
  INFO(describe(c));
  auto model = make_model(c);
  randomize(*model, seed);
  Rng rng(seed * 7 + 1);
  const auto tokens = random_tokens(rng, c.context_length - 1, c.vocab_size);
  const auto targets = random_tokens(rng, c.context_length - 1, c.vocab_size);
  REQUIRE(model->forward(tokens, targets) == "");
  model->zero_grad();
  REQUIRE(model->backward() == "");

  // forward: logits and loss against the float64 reference
  std::vector<double> p(model->params().begin(), model->params().end());
  ReferenceDecoder<double> ref(c, model->layout(), p);
  std::vector<double> logits;
  std::vector<std::vector<double>> streams;
  const double loss = ref.loss(tokens, targets, &logits, &streams);
  Eigen::ArrayXd want = Eigen::Map<Eigen::ArrayXd>(logits.data(), static_cast<Eigen::Index>(logits.size()));
  // float32 rounding scales with the largest activation (large without norms), not only with the logits
  double largest = 0;
  for (const auto& h : streams)
    for (double v : h) largest = std::max(largest, std::fabs(v));
  check_close("logits", model->logits().data(), want, 1e-5 * (1.0 + want.abs().maxCoeff()) + 2e-6 * largest, 2e-5);
  CHECK(model->loss() == Approx(loss).epsilon(1e-5));

  // backward: every tensor against central differences
  const GradCheckResult r = finite_difference_check(*model, tokens, targets);
  INFO("checked " << r.checked << " gradient entries, worst " << r.worst << " (|err|/bound " << r.worst_ratio << ")");
  CHECK(r.checked > 80);
  CHECK(r.failed == 0);
}

}  // namespace

TEST_CASE("decoder gradients match finite differences for every norm x placement x QK-Norm x soft-cap",
          "[decoder][gradcheck]") {
  int index = 0;
  for (decoder::NormKind norm : kAllNorms)
    for (decoder::Placement placement : kAllPlacements)
      for (bool qk : {false, true})
        for (bool softcap : {false, true}) {
          decoder::Config c = tiny_config(norm, placement, qk, softcap);
          c.mlp = index % 2 ? decoder::MlpKind::swiglu : decoder::MlpKind::gelu;
          c.residual = index % 5 != 3;
          c.pos_embed = index % 7 != 4;
          check_model(c, 100 + index);
          ++index;
        }
}

TEST_CASE("decoder gradients with one soft-cap at a time and with four layers", "[decoder][gradcheck]") {
  for (decoder::Placement placement : kAllPlacements) {
    decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, placement, true, false);
    c.attn_softcap = 0.5f;
    check_model(c, 7);
    c.attn_softcap = 0, c.final_softcap = 1.0f;
    check_model(c, 8);
    c = tiny_config(decoder::NormKind::layernorm, placement, false, false);
    c.n_layers = 4, c.n_heads = 4, c.d_model = 12, c.d_ff = 0;
    check_model(c, 9);
  }
}

TEST_CASE("decoder gradients with RoPE and with QK-Norm over the whole projection", "[decoder][gradcheck][rope]") {
  int index = 0;
  for (decoder::Placement placement : kAllPlacements)
    for (bool rope : {false, true})
      for (decoder::QkNormShape shape : decoder::kQkNormShapes) {
        decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, placement, true, index % 3 == 1);
        c.qk_norm_shape = shape;
        c.rope = rope;
        c.rope_theta = 10.0f;  // both rotation pairs of a 4-wide head turn visibly within 6 positions
        c.pos_embed = !rope;
        c.mlp = decoder::MlpKind::swiglu;
        check_model(c, 300 + index++);
      }
  // RoPE without QK-Norm (Llama), with several heads and the default base
  decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, decoder::Placement::pre, false, false);
  c.rope = true, c.pos_embed = false, c.n_heads = 1, c.mlp = decoder::MlpKind::swiglu;
  check_model(c, 320);
  c.rope_theta = 3.0f, c.n_heads = 2;
  check_model(c, 321);
}
