// The Hugging Face exporter and the trained toys: the safetensors bytes as the format specifies them, F16 and BF16
// rounding, the names of every tensor, refusals of configs a family cannot express, and a re-run of the first
// 50 training steps of each shipped toy against the loss recorded in web/models/toys.json.
#include <catch2/catch.hpp>

#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "checkpoint/quant.hpp"
#include "decoder/model.hpp"
#include "tools/hf_export.hpp"
#include "tools/toys.hpp"
#include "test_util.hpp"

using namespace rl;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The number after `key` inside the toys.json entry named `toy` (the file is written by tools/train_toys.cpp).
double recorded(const std::string& json, std::string_view toy, const std::string& key) {
  const std::size_t entry = json.find("\"name\": \"" + std::string(toy) + "\"");
  REQUIRE(entry != std::string::npos);
  const std::size_t at = json.find(key, entry);
  REQUIRE(at != std::string::npos);
  return std::stod(json.substr(at + key.size()));
}

}  // namespace

TEST_CASE("safetensors bytes: little-endian header length, sorted JSON header, contiguous data", "[train][export]") {
  decoder::Config c = train::toy_config(train::toy_specs()[1]);
  c.vocab_size = 5, c.d_model = 8, c.n_heads = 2, c.d_ff = 4, c.n_layers = 1, c.context_length = 4;
  std::string error;
  auto model = decoder::Model::create(c, &error);
  REQUIRE(model);
  std::vector<float> params(model->num_params());
  for (std::size_t i = 0; i < params.size(); ++i) params[i] = 0.25f * float(i);
  const train::HfArchitecture& arch = *train::find_hf_architecture("olmo2");
  const auto f32 = train::safetensors_bytes(model->layout(), params, arch, train::HfDtype::f32);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | f32[i];
  CHECK(n % 8 == 0);
  REQUIRE(f32.size() == 8 + n + 4 * params.size());
  const std::string header(f32.begin() + 8, f32.begin() + 8 + long(n));
  // sorted names: embed_tokens < layers.0.mlp.down_proj < ... < model.norm; lm_head first of all
  CHECK(header.rfind("{\"lm_head.weight\":{\"dtype\":\"F32\",\"shape\":[5,8],\"data_offsets\":[0,160]}", 0) == 0);
  CHECK(header.find("\"model.layers.0.self_attn.q_norm.weight\":{\"dtype\":\"F32\",\"shape\":[8]") !=
        std::string::npos);
  CHECK(header.find("post_feedforward_layernorm") != std::string::npos);
  // lm_head's data is the engine's lm_head tensor, as little-endian floats
  const decoder::ParamTensor& head = model->layout().tensors[model->layout().find("lm_head.weight")];
  float first;
  std::memcpy(&first, f32.data() + 8 + n, 4);
  CHECK(first == params[head.offset]);
  // BF16: half the data; 1 + 2^-8 is a tie that rounds to the even 1.0, 1 + 3 * 2^-8 rounds up to 1 + 2^-6
  std::vector<float> ties(params.size(), 1.00390625f);
  ties[head.offset + 1] = 1.01171875f;
  const auto bf16 = train::safetensors_bytes(model->layout(), ties, arch, train::HfDtype::bf16);
  std::uint64_t m = 0;
  for (int i = 7; i >= 0; --i) m = m << 8 | bf16[i];
  REQUIRE(bf16.size() == 8 + m + 2 * params.size());
  CHECK(bf16[8 + m] == 0x80);
  CHECK(bf16[8 + m + 1] == 0x3f);  // 0x3f80 = 1.0
  CHECK(bf16[8 + m + 2] == 0x82);
  CHECK(bf16[8 + m + 3] == 0x3f);  // 0x3f82 = 1.015625
}

TEST_CASE("F16 export: half the data, IEEE binary16 rounded to nearest even, as the checkpoint reader reads it",
          "[train][export]") {
  decoder::Config c = train::toy_config(train::toy_specs()[0]);
  c.vocab_size = 5, c.d_model = 8, c.n_heads = 2, c.d_ff = 4, c.n_layers = 1, c.context_length = 4;
  std::string error;
  auto model = decoder::Model::create(c, &error);
  REQUIRE(model);
  const decoder::ParamTensor& head = model->layout().tensors[model->layout().find("lm_head.weight")];
  // value -> binary16 bits: ties to even at 1 + 2^-11 and at 1.5 * 2^-24 (a subnormal), a carry into the exponent,
  // the largest finite value and the first that overflows
  const std::vector<std::pair<float, std::uint16_t>> cases = {
      {1.00048828125f, 0x3c00},  {1.00146484375f, 0x3c02},  {-2.0f, 0xc000},
      {8.940696716e-8f, 0x0002}, {1.99951171875f, 0x4000},  {65519.0f, 0x7bff},
      {65520.0f, 0x7c00},        {6.103515625e-5f, 0x0400}, {0.0f, 0x0000},
  };
  std::vector<float> params(model->num_params(), 0.0f);
  for (std::size_t i = 0; i < cases.size(); ++i) params[head.offset + i] = cases[i].first;
  const train::HfArchitecture& arch = *train::find_hf_architecture("llama");
  const auto f16 = train::safetensors_bytes(model->layout(), params, arch, train::HfDtype::f16);
  std::uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = n << 8 | f16[i];
  REQUIRE(f16.size() == 8 + n + 2 * params.size());
  const std::string header(f16.begin() + 8, f16.begin() + 8 + long(n));
  CHECK(header.rfind("{\"lm_head.weight\":{\"dtype\":\"F16\",\"shape\":[5,8],\"data_offsets\":[0,80]}", 0) == 0);
  CHECK(train::hf_config_json(c, arch, train::HfDtype::f16).find("\"torch_dtype\": \"float16\"") != std::string::npos);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].first);
    const std::uint16_t bits = std::uint16_t(f16[8 + n + 2 * i] | f16[8 + n + 2 * i + 1] << 8);
    CHECK(bits == cases[i].second);
    CHECK(train::stored_value(cases[i].first, train::HfDtype::f16) == checkpoint::f16_bits_to_float(bits));
  }
}

TEST_CASE("every engine tensor of an exported toy has one Hugging Face name", "[train][export]") {
  for (const train::ToySpec& toy : train::toy_specs()) {
    const decoder::Config c = train::toy_config(toy);
    const train::HfArchitecture& arch = *train::find_hf_architecture(toy.model_type);
    CHECK(train::check_exportable(c, arch) == "");
    std::set<std::string> names;
    for (const decoder::ParamTensor& t : decoder::build_layout(c).tensors) {
      const std::string name = train::hf_tensor_name(t, arch);
      INFO(t.name);
      CHECK(!name.empty());
      CHECK(names.insert(name).second);
    }
    CHECK(names.count("model.layers.3.mlp.gate_proj.weight") == 1);
    CHECK(names.count(toy.model_type == "llama" ? "model.layers.0.input_layernorm.weight"
                                                : "model.layers.0.self_attn.k_norm.weight") == 1);
  }
}

TEST_CASE("a config a family cannot express is refused, naming the difference", "[train][export]") {
  const train::HfArchitecture& llama = *train::find_hf_architecture("llama");
  decoder::Config c = train::toy_config(train::toy_specs()[0]);
  c.pos_embed = true;
  CHECK(train::check_exportable(c, llama).find("rope") != std::string::npos);
  c = train::toy_config(train::toy_specs()[0]);
  c.mlp = decoder::MlpKind::gelu;
  CHECK(train::check_exportable(c, llama).find("swiglu") != std::string::npos);
  c = train::toy_config(train::toy_specs()[1]);
  c.qk_norm_shape = decoder::QkNormShape::head;
  CHECK(train::check_exportable(c, *train::find_hf_architecture("olmo2")).find("whole projection") !=
        std::string::npos);
  CHECK(train::find_hf_architecture("gpt2") == nullptr);
}

TEST_CASE("tokenizer.json lists every character once, with the engine's ids", "[train][export]") {
  const train::CharTokenizer tokenizer("ab\n\"\\");
  const std::string json = train::hf_tokenizer_json(tokenizer);
  CHECK(json.find("\"\\u000a\": 0") != std::string::npos);
  CHECK(json.find("\"\\\"\": 1") != std::string::npos);
  CHECK(json.find("\"\\\\\": 2") != std::string::npos);
  CHECK(json.find("\"b\": 4") != std::string::npos);
}

TEST_CASE("the first 50 training steps of each shipped toy give the loss web/models/toys.json records",
          "[train][export][toys]") {
  const std::string json = read_text(rl::test::source_dir() + "/web/models/toys.json");
  REQUIRE(!json.empty());
  for (const train::ToySpec& toy : train::toy_specs()) {
    INFO(toy.name);
    std::string error;
    auto model = decoder::Model::create(train::toy_config(toy), &error);
    REQUIRE(model);
    auto trainer = train::Trainer::create(*model, train::toy_train_options(toy), &error);
    REQUIRE(trainer);
    double sum = 0, first = 0;
    for (int s = 0; s < 50; ++s) {
      const double loss = trainer->step().loss;
      if (s == 0) first = loss;
      sum += loss;
    }
    CHECK(first == Approx(recorded(json, toy.name, "\"firstLoss\": ")).margin(1e-4));
    CHECK(sum / 50 == Approx(recorded(json, toy.name, "\"lossCurve\": [\n        [50, ")).margin(1e-4));
  }
}
