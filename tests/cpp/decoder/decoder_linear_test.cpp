// The toy decoder's numbers are those of the tiled products and nothing else: its projections, its MLP and its
// head, forward and backward, equal bit for bit matmul.hpp's kernels run on the model's own saved activations
// (no bias term, no other summation order). A change to what kernels/linear.cpp computes for the toy fails here
// in every build, whatever that build's rounding.
#include <catch2/catch.hpp>

#include <cstring>

#include "decoder/model_state.hpp"
#include "decoder_test_util.hpp"
#include "kernels/matmul.hpp"

using namespace rl;
using namespace rl::test;

namespace {

void require_same_bits(const char* what, const float* got, const std::vector<float>& want) {
  INFO(what);
  REQUIRE(std::memcmp(got, want.data(), want.size() * sizeof(float)) == 0);
}

}  // namespace

TEST_CASE("the toy decoder's linear layers are the tiled products bit for bit", "[decoder][linear]") {
  decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, decoder::Placement::pre, false, false);
  c.mlp = decoder::MlpKind::swiglu;
  auto model = make_model(c);
  randomize(*model, 4101);
  Rng rng(4102);
  const int T = 5, d = c.d_model, f = c.ffn_width(), V = c.vocab_size;
  const auto tokens = random_tokens(rng, T, V), targets = random_tokens(rng, T, V);
  REQUIRE(model->forward(tokens, targets) == "");
  model->zero_grad();
  REQUIRE(model->backward() == "");
  const decoder::ModelState& st = model->state();

  for (int l = 0; l < c.n_layers; ++l) {
    CAPTURE(l);
    const decoder::LayerActs& la = st.layers[l];
    const decoder::LayerWeights& w = st.w.layers[l];
    std::vector<float> want(static_cast<std::size_t>(T) * f);
    // q, k, v = x W^T
    want.resize(std::size_t(T) * d);
    for (const auto& [name, got, weight] :
         {std::tuple{"q", la.attn.q, w.q}, std::tuple{"k", la.attn.k, w.k}, std::tuple{"v", la.attn.v, w.v}}) {
      matmul_nt(want.data(), d, la.attn_sub.branch_in, d, weight, d, T, d, d);
      require_same_bits(name, got, want);
    }
    // the MLP's gate and up, then down
    want.resize(std::size_t(T) * f);
    matmul_nt(want.data(), f, la.mlp_sub.branch_in, d, w.gate, d, T, d, f);
    require_same_bits("gate", la.mlp.gate, want);
    matmul_nt(want.data(), f, la.mlp_sub.branch_in, d, w.up, d, T, d, f);
    require_same_bits("up", la.mlp.up, want);
    want.resize(std::size_t(T) * d);
    matmul_nt(want.data(), d, la.mlp.act, f, w.down, f, T, f, d);
    require_same_bits("down", la.mlp_sub.branch_out, want);
  }
  // the head, forward: logits = h W^T; backward: dW = dlogits^T h, the only contribution to the head's gradient
  std::vector<float> logits(std::size_t(T) * V), d_head(std::size_t(V) * d);
  matmul_nt(logits.data(), V, st.final_in, d, st.w.lm_head, d, T, d, V);
  require_same_bits("logits", st.logits_raw, logits);
  gemm(d_head.data(), d, st.s.d_logits_raw, 1, V, st.final_in, d, V, d, T, /*accumulate=*/true);  // onto zeros
  require_same_bits("dW of the head", st.dw.lm_head, d_head);
}
