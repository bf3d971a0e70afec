// Reading the decoder config from the JS object web/lib/options.js has checked against the option tables (every
// key of the table present, of the right type). A name that does not parse becomes an out-of-range enum value,
// which validate_config reports. Keys an experiment's table leaves out keep the C++ default.
#pragma once
#include <emscripten/val.h>

#include <cstdint>
#include <string>

#include "decoder/config.hpp"

namespace rl::bindings {

template <class T>
T field(const emscripten::val& o, const char* key, T fallback) {
  const emscripten::val v = o[key];
  return v.isUndefined() || v.isNull() ? fallback : v.as<T>();
}

template <class Enum>
Enum named(const emscripten::val& o, const char* key, Enum fallback, bool (*parse)(std::string_view, Enum*)) {
  const emscripten::val v = o[key];
  if (v.isUndefined()) return fallback;
  Enum out = fallback;
  return parse(v.as<std::string>(), &out) ? out : static_cast<Enum>(-1);
}

inline decoder::InitConfig read_init(const emscripten::val& init, decoder::InitConfig c = {}) {
  if (init.isUndefined()) return c;
  c.scheme = named(init, "scheme", c.scheme, decoder::parse_init_scheme);
  c.std = field(init, "std", c.std);
  c.residual_scaling = field(init, "residualScaling", c.residual_scaling);
  c.embed_scale = field(init, "embedScale", c.embed_scale);
  c.zero_qk = field(init, "zeroQK", c.zero_qk);
  c.qk_gain = field(init, "qkGain", c.qk_gain);
  c.seed = static_cast<std::uint64_t>(field(init, "seed", static_cast<double>(c.seed)));
  return c;
}

// null (off, automatic) arrives as 0, the C++ spelling of both.
inline decoder::Config read_config(const emscripten::val& o) {
  decoder::Config c;
  c.vocab_size = field(o, "vocabSize", c.vocab_size);
  c.d_model = field(o, "dModel", c.d_model);
  c.n_heads = field(o, "nHeads", c.n_heads);
  c.d_ff = field(o, "dFF", c.d_ff);
  c.n_layers = field(o, "nLayers", c.n_layers);
  c.context_length = field(o, "contextLength", c.context_length);
  c.mlp = named(o, "mlp", c.mlp, decoder::parse_mlp_kind);
  c.norm = named(o, "norm", c.norm, decoder::parse_norm_kind);
  c.placement = named(o, "placement", c.placement, decoder::parse_placement);
  c.residual = field(o, "residual", c.residual);
  c.qk_norm = field(o, "qkNorm", c.qk_norm);
  c.qk_norm_shape = named(o, "qkNormShape", c.qk_norm_shape, decoder::parse_qk_norm_shape);
  c.attn_softcap = field(o, "attnSoftcap", c.attn_softcap);
  c.final_softcap = field(o, "finalSoftcap", c.final_softcap);
  c.pos_embed = field(o, "posEmbed", c.pos_embed);
  c.rope = field(o, "rope", c.rope);
  c.rope_theta = field(o, "ropeTheta", c.rope_theta);
  c.eps = field(o, "eps", c.eps);
  c.init = read_init(o["init"], c.init);
  return c;
}

}  // namespace rl::bindings
