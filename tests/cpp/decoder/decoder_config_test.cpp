// Bad configs and bad calls come back as clear messages, never as a crash; the layout has PyTorch's names.
#include <catch2/catch.hpp>

#include <cmath>

#include "decoder_test_util.hpp"

using namespace rl;
using namespace rl::test;
using Catch::Matchers::Contains;

namespace {

std::string create_error(const decoder::Config& c) {
  std::string error;
  auto model = decoder::Model::create(c, &error);
  CHECK_FALSE(model);
  return error;
}

}  // namespace

TEST_CASE("bad decoder configs are rejected with a message naming the problem", "[decoder][config]") {
  decoder::Config c;
  c.n_layers = 0;
  CHECK_THAT(create_error(c), Contains("nLayers must be an integer from 1 to 1024 (got 0)"));
  c = {};
  c.n_heads = 3;
  CHECK_THAT(create_error(c), Contains("nHeads (3) must divide dModel (64)"));
  c = {};
  c.vocab_size = 1;
  CHECK_THAT(create_error(c), Contains("vocabSize must be an integer from 2 to 1048576"));
  c = {};
  c.d_model = 0;
  CHECK_THAT(create_error(c), Contains("dModel must be an integer from 1 to 8192"));
  c = {};
  c.context_length = 0;
  CHECK_THAT(create_error(c), Contains("contextLength must be"));
  c = {};
  c.d_ff = -5;
  CHECK_THAT(create_error(c), Contains("dFF must be an integer from 1 to 65536 (got -5)"));
  c = {};
  c.attn_softcap = -1;
  CHECK_THAT(create_error(c), Contains("attnSoftcap must be a finite number above 0 (got -1)"));
  c = {};
  c.final_softcap = NAN;
  CHECK_THAT(create_error(c), Contains("finalSoftcap must be a finite number above 0 (got NaN)"));
  c = {};
  c.eps = 0;
  CHECK_THAT(create_error(c), Contains("eps"));
  c = {};
  c.init.std = INFINITY;
  CHECK_THAT(create_error(c), Contains("init.std must be a finite number from 0 to 100"));
  c = {};
  c.init.qk_gain = NAN;
  CHECK_THAT(create_error(c), Contains("init.qkGain must be a finite number from 0 to 1000 (got NaN)"));
  c = {};
  c.placement = static_cast<decoder::Placement>(42);
  CHECK_THAT(create_error(c), Contains("placement must be one of pre, post, sandwich, olmo2, deepnorm"));
  c = {};
  c.norm = static_cast<decoder::NormKind>(-1);
  CHECK_THAT(create_error(c), Contains("norm must be one of layernorm, rmsnorm"));
}

TEST_CASE("configs that would exhaust memory are refused before allocating", "[decoder][config]") {
  decoder::Config c;
  c.d_model = 512, c.n_heads = 16, c.n_layers = 64, c.context_length = 128, c.vocab_size = 256;
  // 64 layers of 12 d^2 weights are 201M parameters: 1.6 GB with gradients
  CHECK(decoder::model_bytes(c) > decoder::kMaxModelBytes);
  CHECK_THAT(create_error(c), Contains("model too large") && Contains("MB"));
  c.n_layers = 4, c.d_model = 256, c.context_length = 128;  // ~3M parameters: fine
  CHECK(decoder::model_bytes(c) < decoder::kMaxModelBytes);
  CHECK(decoder::validate_config(c).empty());
  // the estimate counts parameters, gradients and the saved activations
  CHECK(decoder::model_bytes(c) > 2 * 4 * decoder::count_params(c));
  // the largest sizes each field allows: counted in 64 bits (no wrap-around in 32-bit WASM), refused
  c = {};
  c.d_model = 8192, c.n_heads = 8192, c.context_length = 4096, c.n_layers = 1024, c.vocab_size = 1 << 20;
  c.d_ff = 65536;
  CHECK(decoder::model_bytes(c) > (std::uint64_t(1) << 40));
  CHECK_THAT(create_error(c), Contains("model too large"));
}

TEST_CASE("names of kinds and placements parse back, unknown names do not", "[decoder][config]") {
  for (decoder::NormKind k : kAllNorms) {
    decoder::NormKind back{};
    CHECK(decoder::parse_norm_kind(decoder::to_string(k), &back));
    CHECK(back == k);
  }
  for (decoder::Placement p : kAllPlacements) {
    decoder::Placement back{};
    CHECK(decoder::parse_placement(decoder::to_string(p), &back));
    CHECK(back == p);
  }
  decoder::Placement p{};
  CHECK_FALSE(decoder::parse_placement("Pre", &p));
  CHECK_FALSE(decoder::parse_placement("peri", &p));
  decoder::NormKind k{};
  CHECK_FALSE(decoder::parse_norm_kind("batchnorm", &k));
}

TEST_CASE("bad calls return messages and leave the model usable", "[decoder][config]") {
  decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, decoder::Placement::pre, false, false);
  auto model = make_model(c);
  CHECK_THAT(model->backward(), Contains("forward pass first"));
  CHECK_THAT(model->forward({}), Contains("empty"));
  const std::vector<std::int32_t> too_long(7, 1);
  CHECK_THAT(model->forward(too_long), Contains("sequence of 7 tokens exceeds contextLength 6"));
  CHECK_THAT(model->forward(std::vector<std::int32_t>{1, 11, 2}),
             Contains("token 11 at position 1 is outside the vocabulary [0, 11)"));
  CHECK_THAT(model->forward(std::vector<std::int32_t>{-1}), Contains("token -1"));
  CHECK_THAT(model->forward(std::vector<std::int32_t>{1, 2}, std::vector<std::int32_t>{3}), Contains("targets has 1"));
  CHECK_THAT(model->forward(std::vector<std::int32_t>{1, 2}, std::vector<std::int32_t>{3, 12}), Contains("target 12"));
  REQUIRE(model->forward(std::vector<std::int32_t>{1, 2, 3}) == "");
  CHECK(std::isnan(model->loss()));
  CHECK_THAT(model->backward(), Contains("with targets"));
  CHECK_THAT(model->set_params(std::vector<float>(3)), Contains("expected " + std::to_string(model->num_params())));
  std::vector<float> p(model->params().begin(), model->params().end());
  const std::vector<float> before = p;
  p[model->layout().layers[1].up + 5] = NAN;
  CHECK_THAT(model->set_params(p), Contains("layers.1.mlp.up.weight") && Contains("not finite"));
  CHECK(std::equal(before.begin(), before.end(), model->params().begin()));  // rejected vectors change nothing
  REQUIRE(model->forward(std::vector<std::int32_t>{1, 2, 3}, std::vector<std::int32_t>{2, 3, 4}) == "");
  CHECK(std::isfinite(model->loss()));
  CHECK(model->backward() == "");
  // new parameters discard the forward they did not take part in
  REQUIRE(model->forward(std::vector<std::int32_t>{1, 2, 3}, std::vector<std::int32_t>{2, 3, 4}) == "");
  REQUIRE(model->set_params(before) == "");
  CHECK_THAT(model->backward(), Contains("forward pass first"));
}

TEST_CASE("the norm kind table: names parse back, unknown kinds are named in the message", "[decoder][config]") {
  REQUIRE(decoder::norm_kinds().size() == kAllNorms.size());
  for (const decoder::NormKindSpec& k : decoder::norm_kinds()) {
    CHECK(decoder::to_string(k.kind) == k.name);
    decoder::NormKind back{};
    CHECK(decoder::parse_norm_kind(k.name, &back));
    CHECK(back == k.kind);
    CHECK(decoder::find_norm_kind(k.kind) == &k);
    CHECK(k.params.size() <= std::size_t(decoder::kMaxNormParams));
    CHECK(k.stats.size() <= std::size_t(decoder::kMaxNormStats));
  }
  CHECK(decoder::find_norm_kind(static_cast<decoder::NormKind>(-1)) == nullptr);
  CHECK(std::string(decoder::to_string(static_cast<decoder::NormKind>(-1))) == "?");
  decoder::Config c;
  c.norm = static_cast<decoder::NormKind>(-1);
  const std::string error = decoder::validate_config(c);
  CHECK_THAT(error, Contains("norm must be one of"));
  for (const decoder::NormKindSpec& k : decoder::norm_kinds()) CHECK_THAT(error, Contains(std::string(k.name)));
}

TEST_CASE("parameter counts per norm kind: layout, count_params and the papers' sizes agree", "[decoder][layout]") {
  // parameters of one norm over d features, as the papers define each kind
  auto norm_params = [](decoder::NormKind kind, std::uint64_t d) -> std::uint64_t {
    switch (kind) {
      case decoder::NormKind::layernorm: return 2 * d;  // gamma, beta
      case decoder::NormKind::rmsnorm: return d;        // g
      case decoder::NormKind::rmsnorm_gemma: return d;  // w of (1 + w)
      case decoder::NormKind::dyt: return 2 * d + 1;    // alpha (a scalar), gamma, beta
      case decoder::NormKind::none: return 0;
    }
    FAIL("a norm kind this test does not know: add its size above");
    return 0;
  };
  for (decoder::NormKind norm : kAllNorms)
    for (decoder::Placement placement : kAllPlacements)
      for (bool qk : {false, true})
        for (decoder::MlpKind mlp : {decoder::MlpKind::gelu, decoder::MlpKind::swiglu}) {
          decoder::Config c = tiny_config(norm, placement, qk, false);
          c.mlp = mlp;
          INFO(describe(c));
          const std::uint64_t d = c.d_model, f = c.ffn_width(), V = c.vocab_size, L = c.n_layers;
          const std::uint64_t norms_per_layer = placement == decoder::Placement::sandwich ? 4 : 2;
          std::uint64_t want = 2 * V * d + c.context_length * d + (c.has_final_norm() ? norm_params(norm, d) : 0);
          want += L * (4 * d * d + (mlp == decoder::MlpKind::swiglu ? 3 : 2) * d * f +
                       norms_per_layer * norm_params(norm, d) + (qk ? 2 * c.d_head() : 0));
          CHECK(decoder::count_params(c) == want);
          const decoder::ParamLayout layout = decoder::build_layout(c);
          CHECK(layout.total == want);
          // every norm tensor (1-D) starts at a constant, every other tensor is drawn at random
          for (const auto& t : layout.tensors) CHECK(t.init_value.has_value() == (t.shape.size() == 1));
        }
}

TEST_CASE("parameter layout uses PyTorch names, shapes and order", "[decoder][layout]") {
  decoder::Config c = tiny_config(decoder::NormKind::layernorm, decoder::Placement::sandwich, true, false);
  c.mlp = decoder::MlpKind::swiglu;
  const decoder::ParamLayout layout = decoder::build_layout(c);
  std::vector<std::string> names;
  for (const auto& t : layout.tensors) names.push_back(t.name);
  const std::vector<std::string> first_layer = {"embed.weight",
                                                "pos_embed.weight",
                                                "layers.0.attn_norm.weight",
                                                "layers.0.attn_norm.bias",
                                                "layers.0.attn.q.weight",
                                                "layers.0.attn.k.weight",
                                                "layers.0.attn.v.weight",
                                                "layers.0.attn.o.weight",
                                                "layers.0.attn.q_norm.weight",
                                                "layers.0.attn.k_norm.weight",
                                                "layers.0.attn_out_norm.weight",
                                                "layers.0.attn_out_norm.bias",
                                                "layers.0.mlp_norm.weight",
                                                "layers.0.mlp_norm.bias",
                                                "layers.0.mlp.up.weight",
                                                "layers.0.mlp.gate.weight",
                                                "layers.0.mlp.down.weight",
                                                "layers.0.mlp_out_norm.weight",
                                                "layers.0.mlp_out_norm.bias"};
  REQUIRE(names.size() == 2 + 2 * (first_layer.size() - 2) + 3);
  CHECK(std::vector<std::string>(names.begin(), names.begin() + first_layer.size()) == first_layer);
  CHECK(names[names.size() - 3] == "final_norm.weight");
  CHECK(names.back() == "lm_head.weight");
  CHECK(layout.tensors[layout.find("layers.1.mlp.down.weight")].shape == std::vector<int>{8, 12});
  CHECK(layout.tensors[layout.find("layers.1.attn.q_norm.weight")].shape == std::vector<int>{4});
  CHECK(layout.total == decoder::count_params(c));
  std::size_t offset = 0;  // contiguous, in order
  for (const auto& t : layout.tensors) {
    CHECK(t.offset == offset);
    offset += t.size;
  }
  // post and deepnorm have no final norm; norm "none" has no norm tensors at all
  for (decoder::Placement p : {decoder::Placement::post, decoder::Placement::deepnorm}) {
    c.placement = p;
    CHECK(decoder::build_layout(c).find("final_norm.weight") == -1);
    CHECK(decoder::build_layout(c).total == decoder::count_params(c));
  }
  c.norm = decoder::NormKind::none, c.placement = decoder::Placement::pre;
  CHECK(decoder::build_layout(c).find("layers.0.attn_norm.weight") == -1);
  CHECK(decoder::build_layout(c).find("layers.0.attn.q_norm.weight") >= 0);  // QK-Norm is its own switch
}

TEST_CASE("a forward whose logits or loss overflow says so in its status", "[decoder][config][edges]") {
  decoder::Config c;
  c.vocab_size = 16, c.d_model = 8, c.n_heads = 2, c.n_layers = 1, c.context_length = 4;
  auto model = decoder::Model::create(c, nullptr);
  REQUIRE(model);
  const std::vector<std::int32_t> tokens = {1, 2, 3}, targets = {2, 3, 4};
  CHECK(model->forward_status() == decoder::ForwardStatus::ok);  // before any forward
  REQUIRE(model->forward(tokens, targets).empty());
  CHECK(model->forward_status() == decoder::ForwardStatus::ok);
  CHECK(std::string(decoder::forward_status_name(model->forward_status())) == "ok");
  // every parameter 1e30: finite, accepted by set_params, but the matmuls overflow float32
  REQUIRE(model->set_params(std::vector<float>(model->num_params(), 1e30f)).empty());
  REQUIRE(model->forward(tokens, targets).empty());
  CHECK(model->forward_status() == decoder::ForwardStatus::nonfinite_logits);
  CHECK(std::string(decoder::forward_status_name(model->forward_status())) == "nonfinite_logits");
  REQUIRE(model->forward(tokens).empty());  // without targets too
  CHECK(model->forward_status() == decoder::ForwardStatus::nonfinite_logits);
  // finite logits 6e38 apart overflow the loss: dModel 1 and zero layers leave the stream at embed + pos = 2,
  // the final RMSNorm makes it 1 (to eps), and lm_head's rows +3e38 (token 0) and -3e38 (the others) give logits
  // of +-3e38; the target 1 costs logsumexp - logit[1] = 3e38 + 3e38 = Infinity
  c.d_model = 1, c.n_heads = 1, c.norm = decoder::NormKind::rmsnorm, c.placement = decoder::Placement::pre;
  auto scalar = decoder::Model::create(c, nullptr);
  REQUIRE(scalar);
  const decoder::ParamLayout& layout = scalar->layout();
  std::vector<float> p(scalar->num_params(), 0.0f);
  for (const decoder::ParamTensor& t : layout.tensors) {
    const float value =
        t.name == "embed.weight" || t.name == "pos_embed.weight" || t.name == "final_norm.weight" ? 1.0f : 0.0f;
    std::fill(p.begin() + t.offset, p.begin() + t.offset + t.size, value);
  }
  const auto& head = layout.tensors[std::size_t(layout.find("lm_head.weight"))];
  for (std::size_t v = 0; v < head.size; ++v) p[head.offset + v] = v == 0 ? 3e38f : -3e38f;
  REQUIRE(scalar->set_params(p).empty());
  REQUIRE(scalar->forward(tokens, std::vector<std::int32_t>{1, 1, 1}).empty());
  for (float v : scalar->logits()) CHECK(std::isfinite(v));
  CHECK(std::isinf(scalar->loss()));
  CHECK(scalar->forward_status() == decoder::ForwardStatus::nonfinite_loss);
  CHECK(std::string(decoder::forward_status_name(scalar->forward_status())) == "nonfinite_loss");
}
