#include "decoder/config.hpp"

#include <cmath>

#include "decoder/config_options.hpp"
#include "decoder/norm_kinds.hpp"

namespace rl::decoder {

bool Config::has_final_norm() const {
  const bool placement_has_one =
      placement == Placement::pre || placement == Placement::sandwich || placement == Placement::olmo2;
  return placement_has_one && !norm_spec(norm).identity();
}

// Fourth roots through two square roots: sqrt is correctly rounded everywhere, pow is not (native and WASM
// libms may differ in the last bit, and the init must be bit-identical).
float Config::deepnorm_alpha() const { return static_cast<float>(std::sqrt(std::sqrt(2.0 * n_layers))); }
float Config::deepnorm_beta() const { return static_cast<float>(1.0 / std::sqrt(std::sqrt(8.0 * n_layers))); }

// Seeds are not checked: every 64-bit seed is valid here; the row's bound is what a JS number holds exactly.
std::string validate_config(const Config& c) {
  const options::Table& t = config_options();
  for (const std::string& e : {
           options::check(t, "nLayers", c.n_layers),
           options::check(t, "vocabSize", c.vocab_size),
           options::check(t, "dModel", c.d_model),
           options::check(t, "nHeads", c.n_heads),
           c.d_ff == 0 ? std::string() : options::check(t, "dFF", c.d_ff),
           options::check(t, "contextLength", c.context_length),
           options::check(t, "mlp", to_string(c.mlp)),
           options::check(t, "norm", to_string(c.norm)),
           options::check(t, "placement", to_string(c.placement)),
           c.attn_softcap == 0 ? std::string() : options::check(t, "attnSoftcap", c.attn_softcap),
           c.final_softcap == 0 ? std::string() : options::check(t, "finalSoftcap", c.final_softcap),
           options::check(t, "qkNormShape", to_string(c.qk_norm_shape)),
           options::check(t, "ropeTheta", c.rope_theta),
           options::check(t, "eps", c.eps),
           options::check(t, "init.scheme", to_string(c.init.scheme)),
           options::check(t, "init.std", c.init.std),
           options::check(t, "init.embedScale", c.init.embed_scale),
           options::check(t, "init.qkGain", c.init.qk_gain),
       })
    if (!e.empty()) return e;
  if (c.n_heads > c.d_model || c.d_model % c.n_heads != 0)
    return "nHeads (" + std::to_string(c.n_heads) + ") must divide dModel (" + std::to_string(c.d_model) + ")";
  if (c.rope && c.d_head() % 2 != 0)
    return "rope needs an even head width: dModel / nHeads is " + std::to_string(c.d_head());
  const std::uint64_t bytes = model_bytes(c);
  if (bytes > kMaxModelBytes)
    return "model too large: it would need " + std::to_string(bytes >> 20) + " MB (parameters, gradients and " +
           "activations), the limit is " + std::to_string(kMaxModelBytes >> 20) +
           " MB; reduce dModel, dFF, nLayers, contextLength or vocabSize";
  return "";
}

// The table's names are null-terminated literals.
const char* to_string(NormKind kind) {
  const NormKindSpec* k = find_norm_kind(kind);
  return k ? k->name.data() : "?";
}

const char* to_string(Placement placement) {
  switch (placement) {
    case Placement::post: return "post";
    case Placement::pre: return "pre";
    case Placement::sandwich: return "sandwich";
    case Placement::olmo2: return "olmo2";
    case Placement::deepnorm: return "deepnorm";
  }
  return "?";
}

const char* to_string(MlpKind kind) {
  switch (kind) {
    case MlpKind::gelu: return "gelu";
    case MlpKind::swiglu: return "swiglu";
  }
  return "?";
}

const char* to_string(InitScheme scheme) {
  switch (scheme) {
    case InitScheme::normal: return "normal";
    case InitScheme::xavier: return "xavier";
  }
  return "?";
}

const char* to_string(QkNormShape shape) {
  switch (shape) {
    case QkNormShape::head: return "head";
    case QkNormShape::projection: return "projection";
  }
  return "?";
}

bool parse_norm_kind(std::string_view name, NormKind* out) {
  for (const NormKindSpec& k : norm_kinds())
    if (name == k.name) return *out = k.kind, true;
  return false;
}

bool parse_placement(std::string_view name, Placement* out) {
  for (Placement p : kPlacements)
    if (name == to_string(p)) return *out = p, true;
  return false;
}

bool parse_mlp_kind(std::string_view name, MlpKind* out) {
  for (MlpKind k : kMlpKinds)
    if (name == to_string(k)) return *out = k, true;
  return false;
}

bool parse_init_scheme(std::string_view name, InitScheme* out) {
  for (InitScheme s : kInitSchemes)
    if (name == to_string(s)) return *out = s, true;
  return false;
}

bool parse_qk_norm_shape(std::string_view name, QkNormShape* out) {
  for (QkNormShape s : kQkNormShapes)
    if (name == to_string(s)) return *out = s, true;
  return false;
}

}  // namespace rl::decoder
