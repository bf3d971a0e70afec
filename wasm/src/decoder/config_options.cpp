#include "decoder/config_options.hpp"

#include <iterator>

#include "decoder/config.hpp"
#include "decoder/norm_kinds.hpp"

namespace rl::decoder {
namespace {

constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 - 1: every seed survives a JS number exactly

template <class Enum, std::size_t N>
std::vector<std::string> names(const Enum (&values)[N]) {
  std::vector<std::string> out;
  for (Enum v : values) out.emplace_back(to_string(v));
  return out;
}

std::vector<std::string> norm_names() {
  std::vector<std::string> out;
  for (const NormKindSpec& k : norm_kinds()) out.emplace_back(k.name);
  return out;
}

options::Table build() {
  using namespace options;
  Option d_ff = integer("dFF", 0, 1, 65536, "MLP hidden width; null means 4 * dModel");
  d_ff.nullable = true;
  Option attn_cap = positive("attnSoftcap", 0, kInfinity, "attention logits become cap * tanh(s / cap); null is off");
  attn_cap.nullable = true;
  Option final_cap = positive("finalSoftcap", 0, kInfinity, "output logits become cap * tanh(z / cap); null is off");
  final_cap.nullable = true;
  const Table init = {
      choice("scheme", "normal", names(kInitSchemes),
             "normal: every linear weight ~ N(0, std^2); xavier: U(-a, a), a = sqrt(6 / (fan_in + fan_out))"),
      number("std", 0.02, 0, 100, "std of the linear weights (normal scheme) and of the embeddings (both)"),
      boolean("residualScaling", false, "GPT-2: attn.o and mlp.down scaled by 1/sqrt(2 nLayers)"),
      number("embedScale", 1, 0, 1e6, "multiplies the std of the token and position embeddings"),
      boolean("zeroQK", false, "q and k weights start at zero"),
      number("qkGain", 1, 0, 1000, "extra factor on the q and k weights (provokes attention-logit growth)"),
      integer("seed", 0, 0, kMaxSeed, "the initialisation's random seed"),
  };
  return {
      integer("vocabSize", 64, 2, 1 << 20, "tokens in the vocabulary"),
      integer("dModel", 64, 1, 8192, "width of the residual stream"),
      integer("nHeads", 4, 1, 8192, "attention heads; must divide dModel"),
      d_ff,
      integer("nLayers", 4, 1, 1024, "decoder layers"),
      integer("contextLength", 64, 1, 4096, "longest sequence a forward takes"),
      choice("mlp", "gelu", names(kMlpKinds), "the MLP: gelu(x W_up) W_down, or SwiGLU"),
      choice("norm", "layernorm", norm_names(), "the norm kind of every norm in the stack (QK-Norm is RMSNorm)"),
      choice("placement", "pre", names(kPlacements),
             "where the norms sit: post Norm(h + F(h)); pre h + F(Norm(h)); sandwich h + Norm(F(Norm(h))); "
             "olmo2 h + Norm(F(h)); deepnorm Norm(alpha h + F(h))"),
      boolean("residual", true, "false drops the skip path (deepnorm: the alpha h) and keeps the rest"),
      boolean("qkNorm", false, "RMSNorm over q and k before the dot product (with a weight, Llama's convention)"),
      choice("qkNormShape", "head", names(kQkNormShapes),
             "QK-Norm's extent: head, over each head's dModel / nHeads values (Qwen3, Gemma 3); projection, over "
             "the whole q and k projection of a position (OLMo 2)"),
      attn_cap,
      final_cap,
      boolean("posEmbed", true, "learned absolute position embeddings"),
      boolean("rope", false,
              "rotary position embeddings on q and k after QK-Norm (Hugging Face's rotate_half convention); "
              "dModel / nHeads must be even"),
      positive("ropeTheta", 10000, 1e9, "RoPE base: pair i of a head turns by position * ropeTheta^(-2i / headDim)"),
      positive("eps", 1e-5, 1, "added to the variance (or mean square) inside every norm"),
      object("init", init, "the seeded initialisation"),
  };
}

}  // namespace

const options::Table& config_options() {
  static const options::Table table = build();
  return table;
}

}  // namespace rl::decoder
