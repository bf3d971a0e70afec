#include "decoder/config.hpp"

#include <cmath>

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

namespace {

std::string range_error(const char* field, long value, long lo, long hi) {
  return std::string(field) + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) + ", got " +
         std::to_string(value);
}

std::string number_error(const char* field, float value, const char* requirement) {
  return std::string(field) + " must be " + requirement + ", got " +
         (std::isnan(value) ? std::string("NaN") : std::to_string(value));
}

}  // namespace

std::string validate_config(const Config& c) {
  if (c.n_layers < 1) return "n_layers must be at least 1, got " + std::to_string(c.n_layers);
  if (c.n_layers > 1024) return range_error("n_layers", c.n_layers, 1, 1024);
  if (c.vocab_size < 2 || c.vocab_size > 1 << 20) return range_error("vocab_size", c.vocab_size, 2, 1 << 20);
  if (c.d_model < 1 || c.d_model > 8192) return range_error("d_model", c.d_model, 1, 8192);
  if (c.n_heads < 1 || c.n_heads > c.d_model) return range_error("n_heads", c.n_heads, 1, c.d_model);
  if (c.d_model % c.n_heads != 0)
    return "n_heads (" + std::to_string(c.n_heads) + ") must divide d_model (" + std::to_string(c.d_model) + ")";
  if (c.d_ff < 0 || c.d_ff > 65536) return range_error("d_ff (0 means 4 * d_model)", c.d_ff, 0, 65536);
  if (c.context_length < 1 || c.context_length > 4096) return range_error("context_length", c.context_length, 1, 4096);
  if (!std::isfinite(c.attn_softcap) || c.attn_softcap < 0)
    return number_error("attn_softcap", c.attn_softcap, "a positive number (or 0 / null for off)");
  if (!std::isfinite(c.final_softcap) || c.final_softcap < 0)
    return number_error("final_softcap", c.final_softcap, "a positive number (or 0 / null for off)");
  if (!std::isfinite(c.eps) || c.eps <= 0) return number_error("eps", c.eps, "a positive finite number");
  if (!std::isfinite(c.init.std) || c.init.std < 0) return number_error("init.std", c.init.std, "finite and >= 0");
  if (!std::isfinite(c.init.embed_scale) || c.init.embed_scale < 0)
    return number_error("init.embed_scale", c.init.embed_scale, "finite and >= 0");
  if (!std::isfinite(c.init.qk_gain)) return number_error("init.qk_gain", c.init.qk_gain, "finite");
  if (find_norm_kind(c.norm) == nullptr) {
    std::string names;
    const auto kinds = norm_kinds();
    for (std::size_t i = 0; i < kinds.size(); ++i)
      names += (i == 0 ? "" : i + 1 == kinds.size() ? " or " : ", ") + std::string(kinds[i].name);
    return "unknown norm kind (expected " + names + ")";
  }
  switch (c.placement) {
    case Placement::post: case Placement::pre: case Placement::sandwich: case Placement::olmo2:
    case Placement::deepnorm: break;
    default: return "unknown placement (expected post, pre, sandwich, olmo2 or deepnorm)";
  }
  if (c.mlp != MlpKind::gelu && c.mlp != MlpKind::swiglu) return "unknown mlp (expected gelu or swiglu)";
  if (c.init.scheme != InitScheme::normal && c.init.scheme != InitScheme::xavier)
    return "unknown init.scheme (expected normal or xavier)";
  const std::uint64_t bytes = model_bytes(c);
  if (bytes > kMaxModelBytes)
    return "model too large: it would need " + std::to_string(bytes >> 20) + " MB (parameters, gradients and " +
           "activations), the limit is " + std::to_string(kMaxModelBytes >> 20) +
           " MB; reduce d_model, d_ff, n_layers, context_length or vocab_size";
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

const char* to_string(MlpKind kind) { return kind == MlpKind::gelu ? "gelu" : "swiglu"; }
const char* to_string(InitScheme scheme) { return scheme == InitScheme::normal ? "normal" : "xavier"; }

bool parse_norm_kind(std::string_view name, NormKind* out) {
  for (const NormKindSpec& k : norm_kinds())
    if (name == k.name) return *out = k.kind, true;
  return false;
}

bool parse_placement(std::string_view name, Placement* out) {
  for (Placement p : {Placement::post, Placement::pre, Placement::sandwich, Placement::olmo2, Placement::deepnorm})
    if (name == to_string(p)) return *out = p, true;
  return false;
}

bool parse_mlp_kind(std::string_view name, MlpKind* out) {
  for (MlpKind k : {MlpKind::gelu, MlpKind::swiglu})
    if (name == to_string(k)) return *out = k, true;
  return false;
}

bool parse_init_scheme(std::string_view name, InitScheme* out) {
  for (InitScheme s : {InitScheme::normal, InitScheme::xavier})
    if (name == to_string(s)) return *out = s, true;
  return false;
}

}  // namespace rl::decoder
