// The engine against PyTorch (tests/fixtures/decoder/make_fixtures.py): forward logits, loss and every parameter
// gradient for each placement x norm kind, and the seeded initialisation reproduced bit for bit.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <sstream>

#include "decoder_test_util.hpp"
#include "test_util.hpp"

using namespace rl;
using namespace rl::test;

namespace {

struct Fixture {
  decoder::Config config;
  std::vector<std::int32_t> tokens, targets;
  double loss = 0;
  std::vector<std::pair<std::string, std::vector<int>>> tensors;
  std::vector<float> data;  // the .bin, float32 little-endian
};

std::string fixture_path(const std::string& name) { return rl::test::source_dir() + "/tests/fixtures/decoder/" + name; }

Fixture read_fixture(const std::string& name) {
  Fixture f;
  std::ifstream txt(fixture_path(name + ".txt"));
  INFO("reading " << fixture_path(name + ".txt"));
  REQUIRE(txt.good());
  decoder::Config& c = f.config;
  std::string line;
  while (std::getline(txt, line)) {
    std::istringstream in(line);
    std::string key, word;
    in >> key;
    auto number = [&] {
      double v;
      in >> v;
      return v;
    };
    if (key == "vocab_size") c.vocab_size = static_cast<int>(number());
    else if (key == "d_model") c.d_model = static_cast<int>(number());
    else if (key == "n_heads") c.n_heads = static_cast<int>(number());
    else if (key == "d_ff") c.d_ff = static_cast<int>(number());
    else if (key == "n_layers") c.n_layers = static_cast<int>(number());
    else if (key == "context_length") c.context_length = static_cast<int>(number());
    else if (key == "mlp") {
      in >> word;
      REQUIRE(decoder::parse_mlp_kind(word, &c.mlp));
    } else if (key == "norm") {
      in >> word;
      REQUIRE(decoder::parse_norm_kind(word, &c.norm));
    } else if (key == "placement") {
      in >> word;
      REQUIRE(decoder::parse_placement(word, &c.placement));
    } else if (key == "init_scheme") {
      in >> word;
      REQUIRE(decoder::parse_init_scheme(word, &c.init.scheme));
    } else if (key == "residual") c.residual = number() != 0;
    else if (key == "qk_norm") c.qk_norm = number() != 0;
    else if (key == "pos_embed") c.pos_embed = number() != 0;
    else if (key == "attn_softcap") c.attn_softcap = static_cast<float>(number());
    else if (key == "final_softcap") c.final_softcap = static_cast<float>(number());
    else if (key == "eps") c.eps = static_cast<float>(number());
    else if (key == "init_std") c.init.std = static_cast<float>(number());
    else if (key == "init_residual_scaling") c.init.residual_scaling = number() != 0;
    else if (key == "init_embed_scale") c.init.embed_scale = static_cast<float>(number());
    else if (key == "init_zero_qk") c.init.zero_qk = number() != 0;
    else if (key == "init_qk_gain") c.init.qk_gain = static_cast<float>(number());
    else if (key == "init_seed") in >> c.init.seed;
    else if (key == "loss") f.loss = number();
    else if (key == "tokens" || key == "targets") {
      auto& v = key == "tokens" ? f.tokens : f.targets;
      for (int t; in >> t;) v.push_back(t);
    } else if (key == "tensor") {
      std::vector<int> shape;
      in >> word;
      for (int s; in >> s;) shape.push_back(s);
      f.tensors.emplace_back(word, shape);
    } else if (!key.empty()) {
      FAIL("unknown fixture key " << key);
    }
  }
  std::ifstream bin(fixture_path(name + ".bin"), std::ios::binary | std::ios::ate);
  REQUIRE(bin.good());
  const std::streamsize bytes = bin.tellg();
  bin.seekg(0);
  f.data.resize(static_cast<std::size_t>(bytes) / 4);
  std::vector<unsigned char> raw(static_cast<std::size_t>(bytes));
  bin.read(reinterpret_cast<char*>(raw.data()), bytes);
  for (std::size_t i = 0; i < f.data.size(); ++i) {  // little-endian, whatever the host
    const std::uint32_t u =
        raw[4 * i] | raw[4 * i + 1] << 8 | raw[4 * i + 2] << 16 | std::uint32_t(raw[4 * i + 3]) << 24;
    std::memcpy(&f.data[i], &u, 4);
  }
  return f;
}

void check_layout(const decoder::Model& model, const Fixture& f) {
  const auto& tensors = model.layout().tensors;
  REQUIRE(tensors.size() == f.tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    INFO("tensor " << i);
    CHECK(tensors[i].name == f.tensors[i].first);
    CHECK(tensors[i].shape == f.tensors[i].second);
  }
}

}  // namespace

TEST_CASE("decoder forward, loss and gradients match PyTorch for every placement x norm kind", "[decoder][fixtures]") {
  int checked = 0;
  for (decoder::Placement placement : kAllPlacements)
    for (decoder::NormKind norm : kAllNorms) {
      const std::string name = std::string(decoder::to_string(placement)) + "_" + decoder::to_string(norm);
      const Fixture f = read_fixture(name);
      INFO(name << ": " << describe(f.config));
      auto model = make_model(f.config);
      check_layout(*model, f);
      const std::size_t P = model->num_params(), TV = f.tokens.size() * f.config.vocab_size;
      REQUIRE(f.data.size() == 2 * P + TV);
      REQUIRE(model->set_params(std::span<const float>(f.data.data(), P)) == "");
      REQUIRE(model->forward(f.tokens, f.targets) == "");
      model->zero_grad();
      REQUIRE(model->backward() == "");

      Eigen::ArrayXd want_logits = to_double(f.data.data() + P, TV);
      check_close("logits", model->logits().data(), want_logits, 2e-5 * (1 + want_logits.abs().maxCoeff()), 2e-5);
      CHECK(model->loss() == Approx(f.loss).epsilon(2e-6));
      // each gradient tensor, with a tolerance scaled to its size
      for (const decoder::ParamTensor& t : model->layout().tensors) {
        Eigen::ArrayXd want = to_double(f.data.data() + P + TV + t.offset, t.size);
        check_close(t.name, model->grads().data() + t.offset, want, 2e-5 * (1e-2 + want.abs().maxCoeff()), 1e-3);
      }
      ++checked;
    }
  CHECK(checked == 5 * static_cast<int>(kAllNorms.size()));
}

TEST_CASE("seeded initialisation equals make_fixtures.py's recomputation bit for bit", "[decoder][fixtures][init]") {
  for (const char* name : {"init_normal_gpt2", "init_xavier_deepnorm", "init_zero_qk_sandwich", "init_dyt_sandwich"}) {
    const Fixture f = read_fixture(name);
    INFO(name << ": " << describe(f.config));
    auto model = make_model(f.config);
    check_layout(*model, f);
    REQUIRE(f.data.size() == model->num_params());
    int differing = 0;
    std::string first;
    for (std::size_t i = 0; i < f.data.size(); ++i)
      if (std::memcmp(&f.data[i], &model->params()[i], 4) != 0 && differing++ == 0)
        first = std::to_string(i) + ": engine " + std::to_string(model->params()[i]) + ", python " +
                std::to_string(f.data[i]);
    INFO("first difference at " << first);
    CHECK(differing == 0);
  }
}
