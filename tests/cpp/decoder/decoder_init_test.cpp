// The seeded initialisation: each option does what the config says, measured on the tensors it produces.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>

#include "core/random.hpp"
#include "decoder_test_util.hpp"

using namespace rl;
using namespace rl::test;

namespace {

struct Moments {
  double mean = 0, std = 0, max_abs = 0;
};

Moments moments(const decoder::Model& m, const std::string& name) {
  const int i = m.layout().find(name);
  REQUIRE(i >= 0);
  const auto& t = m.layout().tensors[i];
  Moments r;
  double sq = 0;
  for (std::size_t k = 0; k < t.size; ++k) {
    const double v = m.params()[t.offset + k];
    r.mean += v / t.size;
    sq += v * v / t.size;
    r.max_abs = std::max(r.max_abs, std::fabs(v));
  }
  r.std = std::sqrt(sq - r.mean * r.mean);
  return r;
}

decoder::Config init_config() {
  decoder::Config c;
  c.vocab_size = 96, c.d_model = 128, c.n_heads = 4, c.n_layers = 8, c.context_length = 32;
  return c;
}

}  // namespace

TEST_CASE("portable_log matches std::log to double rounding", "[decoder][init]") {
  for (double x : {1e-300, 1e-10, 0.001, 0.3, 0.5, 0.70710678, 0.9999999, 1.0, 1.5, 2.0, 1e10}) {
    INFO(x);
    CHECK(rl::portable_log(x) == Approx(std::log(x)).epsilon(4e-16).margin(1e-300));
  }
}

TEST_CASE("the init rng's normals have mean 0 and variance 1", "[decoder][init]") {
  rl::Rng rng(99);
  const int n = 200000;
  double sum = 0, sq = 0, fourth = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    sum += z, sq += z * z, fourth += z * z * z * z;
  }
  CHECK(std::fabs(sum / n) < 5.0 / std::sqrt(n));  // 5 standard errors
  CHECK(sq / n == Approx(1.0).margin(0.015));
  CHECK(fourth / n == Approx(3.0).margin(0.08));  // a normal's kurtosis
}

TEST_CASE("normal init: std 0.02 everywhere, norms at their identity", "[decoder][init]") {
  decoder::Config c = init_config();
  auto m = make_model(c);
  for (const char* name : {"embed.weight", "layers.3.attn.q.weight", "layers.7.mlp.down.weight", "lm_head.weight"}) {
    INFO(name);
    const Moments r = moments(*m, name);
    CHECK(std::fabs(r.mean) < 0.001);
    CHECK(r.std == Approx(0.02).epsilon(0.03));
  }
  CHECK(moments(*m, "layers.2.attn_norm.weight").mean == 1.0);
  CHECK(moments(*m, "layers.2.attn_norm.bias").max_abs == 0.0);
  c.norm = decoder::NormKind::rmsnorm_gemma, c.qk_norm = true;
  auto gemma = make_model(c);
  CHECK(moments(*gemma, "layers.2.mlp_norm.weight").max_abs == 0.0);  // (1 + w) with w = 0
  CHECK(moments(*gemma, "layers.2.attn.q_norm.weight").mean == 1.0);  // QK-Norm: Llama convention
  CHECK(moments(*gemma, "layers.2.attn.q_norm.weight").std == 0.0);
  c.norm = decoder::NormKind::dyt;
  auto dyt = make_model(c);
  const auto& alpha = dyt->layout().tensors[std::size_t(dyt->layout().find("layers.2.mlp_norm.alpha"))];
  CHECK(alpha.shape == std::vector<int>{1});
  CHECK(dyt->params()[alpha.offset] == 0.5f);  // Zhu et al. 2025's alpha_0
  CHECK(moments(*dyt, "layers.2.mlp_norm.weight").mean == 1.0);
  CHECK(moments(*dyt, "layers.2.mlp_norm.weight").std == 0.0);
  CHECK(moments(*dyt, "layers.2.mlp_norm.bias").max_abs == 0.0);
  CHECK(moments(*dyt, "layers.2.attn.k_norm.weight").mean == 1.0);  // QK-Norm stays RMSNorm
  CHECK(dyt->layout().find("layers.2.attn.k_norm.alpha") == -1);
}

TEST_CASE("init options scale the tensors they name", "[decoder][init]") {
  decoder::Config c = init_config();
  auto base = make_model(c);
  c.init.residual_scaling = true;
  auto gpt2 = make_model(c);
  const double factor = 1.0 / std::sqrt(2.0 * c.n_layers);
  CHECK(moments(*gpt2, "layers.5.attn.o.weight").std == Approx(moments(*base, "layers.5.attn.o.weight").std * factor));
  CHECK(moments(*gpt2, "layers.5.mlp.down.weight").std ==
        Approx(moments(*base, "layers.5.mlp.down.weight").std * factor));
  CHECK(moments(*gpt2, "layers.5.attn.v.weight").std == moments(*base, "layers.5.attn.v.weight").std);

  c = init_config();
  c.init.embed_scale = 5, c.init.qk_gain = 3;
  auto scaled = make_model(c);
  CHECK(moments(*scaled, "embed.weight").std == Approx(5 * moments(*base, "embed.weight").std));
  CHECK(moments(*scaled, "pos_embed.weight").std == Approx(5 * moments(*base, "pos_embed.weight").std));
  CHECK(moments(*scaled, "layers.0.attn.k.weight").std == Approx(3 * moments(*base, "layers.0.attn.k.weight").std));
  CHECK(moments(*scaled, "lm_head.weight").std == moments(*base, "lm_head.weight").std);

  c = init_config();
  c.init.zero_qk = true;
  auto zero = make_model(c);
  CHECK(moments(*zero, "layers.4.attn.q.weight").max_abs == 0.0);
  CHECK(moments(*zero, "layers.4.attn.k.weight").max_abs == 0.0);
  CHECK(moments(*zero, "layers.4.attn.v.weight").std > 0.015);

  c = init_config();
  c.init.scheme = decoder::InitScheme::xavier;
  auto xavier = make_model(c);
  const double a = std::sqrt(6.0 / (128 + 512));  // mlp.up: fan_in 128, fan_out 512
  const Moments up = moments(*xavier, "layers.1.mlp.up.weight");
  CHECK(up.max_abs <= a);
  CHECK(up.max_abs > 0.99 * a);
  CHECK(up.std == Approx(a / std::sqrt(3.0)).epsilon(0.02));  // U(-a, a) has std a / sqrt 3

  c = init_config();
  c.placement = decoder::Placement::deepnorm;
  auto deep = make_model(c);
  const double beta = std::pow(8.0 * c.n_layers, -0.25);
  for (const char* name :
       {"layers.6.attn.v.weight", "layers.6.attn.o.weight", "layers.6.mlp.up.weight", "layers.6.mlp.down.weight"})
    CHECK(moments(*deep, name).std == Approx(moments(*base, name).std * beta).epsilon(1e-6));
  CHECK(moments(*deep, "layers.6.attn.q.weight").std == moments(*base, "layers.6.attn.q.weight").std);
  CHECK(c.deepnorm_alpha() == Approx(std::pow(2.0 * c.n_layers, 0.25)));
}

TEST_CASE("init is a function of the seed and the tensor's name only", "[decoder][init]") {
  decoder::Config c = init_config();
  auto a = make_model(c), b = make_model(c);
  CHECK(std::memcmp(a->params().data(), b->params().data(), a->num_params() * 4) == 0);
  c.init.seed = 1;
  auto other_seed = make_model(c);
  CHECK(std::memcmp(a->params().data(), other_seed->params().data(), a->num_params() * 4) != 0);
  // post, no position embeddings: the shared tensors keep their values (twins differ only where they must)
  c.init.seed = 0, c.placement = decoder::Placement::post, c.pos_embed = false;
  auto twin = make_model(c);
  for (const char* name : {"embed.weight", "layers.2.attn.q.weight", "layers.7.mlp.down.weight", "lm_head.weight"}) {
    const auto& ta = a->layout().tensors[a->layout().find(name)];
    const auto& tb = twin->layout().tensors[twin->layout().find(name)];
    CHECK(std::memcmp(a->params().data() + ta.offset, twin->params().data() + tb.offset, ta.size * 4) == 0);
  }
  // init_params() restores the seeded values
  std::vector<float> saved(a->params().begin(), a->params().end());
  a->params()[17] += 1;
  a->init_params();
  CHECK(std::memcmp(a->params().data(), saved.data(), saved.size() * 4) == 0);
}
