// RoPE and the OLMo 2 QK-Norm shape: the reference's rotation against numbers worked by hand from transformers'
// apply_rotary_pos_emb, and properties of the engine that do not depend on the reference.
#include <catch2/catch.hpp>

#include "decoder_test_util.hpp"

using namespace rl;
using namespace rl::test;

TEST_CASE("the reference RoPE is transformers' rotate_half rotation", "[decoder][rope]") {
  // one head of width 4 at positions 0 and 1, theta = 100: inv_freq = (1, 100^(-1/2) = 0.1);
  // x * cos + rotate_half(x) * sin, rotate_half(x1, x2, x3, x4) = (-x3, -x4, x1, x2), cos/sin of (f0, f1, f0, f1)
  std::vector<double> x = {1, 2, 3, 4, 1, 2, 3, 4};
  ReferenceDecoder<double>::rope(x, 2, 1, 4, 100.0);
  const double c0 = std::cos(1.0), s0 = std::sin(1.0), c1 = std::cos(0.1), s1 = std::sin(0.1);
  const double want[8] = {1, 2, 3, 4, 1 * c0 - 3 * s0, 2 * c1 - 4 * s1, 3 * c0 + 1 * s0, 4 * c1 + 2 * s1};
  for (int i = 0; i < 8; ++i) CHECK(x[i] == Approx(want[i]).epsilon(1e-14));
}

namespace {

std::vector<float> logits_of(const decoder::Config& c, const std::vector<float>& params,
                             const std::vector<std::int32_t>& tokens) {
  auto model = make_model(c);
  REQUIRE(model->set_params(params) == "");
  REQUIRE(model->forward(tokens, {}) == "");
  return std::vector<float>(model->logits().begin(), model->logits().end());
}

}  // namespace

TEST_CASE("RoPE turns nothing at position 0 and changes every later position's output", "[decoder][rope]") {
  decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, decoder::Placement::pre, false, false);
  c.rope = true, c.pos_embed = false, c.rope_theta = 10.0f;
  auto model = make_model(c);
  randomize(*model, 41);
  const std::vector<float> params(model->params().begin(), model->params().end());
  decoder::Config off = c;
  off.rope = false;
  const std::vector<std::int32_t> tokens = {1, 2, 3, 7, 0};
  const std::vector<float> with = logits_of(c, params, tokens), without = logits_of(off, params, tokens);
  const int V = c.vocab_size;
  for (int v = 0; v < V; ++v) CHECK(with[v] == without[v]);
  for (int t = 1; t < 5; ++t) {
    double diff = 0;
    for (int v = 0; v < V; ++v) diff = std::max(diff, double(std::fabs(with[t * V + v] - without[t * V + v])));
    CHECK(diff > 1e-4);
  }
}

TEST_CASE("QK-Norm over the whole projection: its weight spans dModel and equals the per-head one for one head",
          "[decoder][rope][layout]") {
  decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, decoder::Placement::olmo2, true, false);
  c.qk_norm_shape = decoder::QkNormShape::projection;
  auto model = make_model(c);
  const decoder::ParamLayout& layout = model->layout();
  CHECK(layout.tensors[layout.find("layers.0.attn.q_norm.weight")].shape == std::vector<int>{c.d_model});
  CHECK(layout.tensors[layout.find("layers.1.attn.k_norm.weight")].shape == std::vector<int>{c.d_model});
  c.qk_norm_shape = decoder::QkNormShape::head;
  CHECK(make_model(c)->layout().tensors[layout.find("layers.0.attn.q_norm.weight")].shape ==
        std::vector<int>{c.d_head()});
  // one head: the head is the projection
  c.n_heads = 1;
  auto one_head = make_model(c);
  randomize(*one_head, 5);
  const std::vector<float> params(one_head->params().begin(), one_head->params().end());
  decoder::Config whole = c;
  whole.qk_norm_shape = decoder::QkNormShape::projection;
  const std::vector<float> a = logits_of(c, params, {1, 4, 2, 7}), b = logits_of(whole, params, {1, 4, 2, 7});
  for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == b[i]);
}

TEST_CASE("RoPE needs an even head width and a positive base", "[decoder][rope][config]") {
  decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, decoder::Placement::pre, false, false);
  c.rope = true, c.d_model = 6, c.n_heads = 2;
  CHECK(decoder::validate_config(c).find("rope needs an even head width") != std::string::npos);
  c.d_model = 8, c.rope_theta = 0;
  CHECK(decoder::validate_config(c).find("ropeTheta") != std::string::npos);
  decoder::QkNormShape shape;
  CHECK(decoder::parse_qk_norm_shape("projection", &shape));
  CHECK(shape == decoder::QkNormShape::projection);
  CHECK_FALSE(decoder::parse_qk_norm_shape("layer", &shape));
}
