// The lab's decoder's configuration: every switch the chapter's experiments turn. Defaults, bounds and meanings
// of the options live in config_options.cpp (the table the JS API is derived from); validate_config() is the one
// gate: a Model is only ever built from a config it accepted.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace rl::decoder {

// What each kind is (name, parameters, statistics, forward and backward): norm_kinds.hpp.
enum class NormKind { layernorm, rmsnorm, rmsnorm_gemma, dyt, none };
// post:     h <- Norm(h + F(h))               (original Transformer, BERT; no final norm)
// pre:      h <- h + F(Norm(h))               (GPT-2, Llama, Qwen; final norm)
// sandwich: h <- h + Norm_out(F(Norm(h)))     (Gemma 2/3; final norm)
// olmo2:    h <- h + Norm(F(h))               (OLMo 2; final norm)
// deepnorm: h <- Norm(alpha * h + F(h))       (DeepNet, alpha = (2L)^(1/4); no final norm)
enum class Placement { post, pre, sandwich, olmo2, deepnorm };
enum class MlpKind { gelu, swiglu };
enum class InitScheme { normal, xavier };
// QK-Norm's extent: head (Qwen3, Gemma 3): RMSNorm over each head's d_head values, weight [d_head];
// projection (OLMo 2): RMSNorm over the whole q (and k) projection of a position, weight [d_model].
enum class QkNormShape { head, projection };

// Every value of each enum, in the order the API lists them; names come from to_string().
inline constexpr Placement kPlacements[] = {Placement::pre, Placement::post, Placement::sandwich, Placement::olmo2,
                                            Placement::deepnorm};
inline constexpr MlpKind kMlpKinds[] = {MlpKind::gelu, MlpKind::swiglu};
inline constexpr InitScheme kInitSchemes[] = {InitScheme::normal, InitScheme::xavier};
inline constexpr QkNormShape kQkNormShapes[] = {QkNormShape::head, QkNormShape::projection};

struct InitConfig {
  InitScheme scheme = InitScheme::normal;
  float std = 0.02f;              // normal scheme: std of every linear weight; both schemes: embedding std
  bool residual_scaling = false;  // GPT-2: attn.o and mlp.down scaled by 1/sqrt(2L)
  float embed_scale = 1.0f;       // multiplies the std of embed.weight and pos_embed.weight
  bool zero_qk = false;           // q and k weights start at zero (Xiong et al. 2020)
  float qk_gain = 1.0f;           // extra factor on q and k weights (provokes attention-logit growth)
  std::uint64_t seed = 0;
};

struct Config {
  int vocab_size = 64;
  int d_model = 64;
  int n_heads = 4;
  int d_ff = 0;  // 0 means 4 * d_model
  int n_layers = 4;
  int context_length = 64;
  MlpKind mlp = MlpKind::gelu;
  NormKind norm = NormKind::layernorm;
  Placement placement = Placement::pre;
  bool residual = true;  // false drops the skip term (deepnorm: the alpha * h) and keeps the rest
  bool qk_norm = false;  // Llama-convention RMSNorm on q and k, weight initialised to ones
  QkNormShape qk_norm_shape = QkNormShape::head;
  float attn_softcap = 0.0f;   // 0 = off; else cap * tanh(s / cap) after the 1/sqrt(d_head) scaling, before the mask
  float final_softcap = 0.0f;  // 0 = off; else on the output logits
  bool pos_embed = true;       // learned absolute position embeddings
  // Rotary position embeddings on q and k (after QK-Norm), Hugging Face's rotate_half convention: for i < dh/2,
  // angle = t * rope_theta^(-2i/dh), (x_i, x_{i+dh/2}) <- (x_i cos - x_{i+dh/2} sin, x_{i+dh/2} cos + x_i sin).
  bool rope = false;
  float rope_theta = 10000.0f;
  float eps = 1e-5f;
  InitConfig init;

  int ffn_width() const { return d_ff > 0 ? d_ff : 4 * d_model; }
  int d_head() const { return d_model / n_heads; }
  bool has_final_norm() const;   // pre, sandwich, olmo2 (and a norm kind other than none)
  float deepnorm_alpha() const;  // (2L)^(1/4)
  float deepnorm_beta() const;   // (8L)^(-1/4), the init gain on v, o and the MLP weights
};

// Largest number of bytes a model may hold (parameters, gradients, activations, workspace).
inline constexpr std::uint64_t kMaxModelBytes = std::uint64_t(256) << 20;

// "" when the config is usable, else one sentence that names the field and the problem.
std::string validate_config(const Config& config);

// Bytes a Model built from this config allocates (parameters, gradients, saved activations, scratch), counted
// in 64 bits so that absurd sizes are reported, not wrapped around, in 32-bit WASM.
std::uint64_t model_bytes(const Config& config);

// String names as the JS API spells them; parse_* return false on an unknown name. The norm kinds' names are
// those of the table in norm_kinds.hpp ("?" for a value outside the enum).
const char* to_string(NormKind kind);
const char* to_string(Placement placement);
const char* to_string(MlpKind kind);
const char* to_string(InitScheme scheme);
const char* to_string(QkNormShape shape);
bool parse_norm_kind(std::string_view name, NormKind* out);
bool parse_placement(std::string_view name, Placement* out);
bool parse_mlp_kind(std::string_view name, MlpKind* out);
bool parse_init_scheme(std::string_view name, InitScheme* out);
bool parse_qk_norm_shape(std::string_view name, QkNormShape* out);

}  // namespace rl::decoder
