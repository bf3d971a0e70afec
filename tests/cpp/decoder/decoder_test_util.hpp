// Helpers for the decoder tests: tiny configs that cover every switch, parameters randomised away from the init
// (norm gains away from 1, so their gradients are not special), and a finite-difference gradient check against
// the float64 reference model.
#pragma once
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "decoder/model.hpp"
#include "decoder/norm_kinds.hpp"
#include "reference_decoder.hpp"
#include "test_util.hpp"

namespace rl::test {

// Every kind of the table in decoder/norm_kinds.cpp: a new kind enters every decoder test.
inline const std::vector<decoder::NormKind> kAllNorms = [] {
  std::vector<decoder::NormKind> kinds;
  for (const decoder::NormKindSpec& k : decoder::norm_kinds()) kinds.push_back(k.kind);
  return kinds;
}();
inline const decoder::Placement kAllPlacements[] = {decoder::Placement::post, decoder::Placement::pre,
                                                    decoder::Placement::sandwich, decoder::Placement::olmo2,
                                                    decoder::Placement::deepnorm};

// V = 11, d = 8, 2 heads, d_ff = 12, 2 layers, context 6.
inline decoder::Config tiny_config(decoder::NormKind norm, decoder::Placement placement, bool qk_norm, bool softcap) {
  decoder::Config c;
  c.vocab_size = 11, c.d_model = 8, c.n_heads = 2, c.d_ff = 12, c.n_layers = 2, c.context_length = 6;
  c.norm = norm, c.placement = placement, c.qk_norm = qk_norm;
  if (softcap) c.attn_softcap = 0.8f, c.final_softcap = 1.5f;
  return c;
}

inline std::unique_ptr<decoder::Model> make_model(const decoder::Config& c) {
  std::string error;
  auto model = decoder::Model::create(c, &error);
  INFO(error);
  REQUIRE(model);
  return model;
}

// Every weight random: linear weights N(0, scale^2), norm gains 1 + 0.3 N (Gemma's w: 0.3 N), biases 0.2 N,
// DyT's alpha 0.5 + 0.2 N.
inline void randomize(decoder::Model& model, std::uint64_t seed, double scale = 0.5) {
  Rng rng(seed);
  std::vector<float> p(model.num_params());
  for (const decoder::ParamTensor& t : model.layout().tensors) {
    const bool is_vector = t.shape.size() == 1;
    const bool bias = t.name.size() > 5 && t.name.substr(t.name.size() - 5) == ".bias";
    const bool alpha = t.name.size() > 6 && t.name.substr(t.name.size() - 6) == ".alpha";
    const bool gemma = model.config().norm == decoder::NormKind::rmsnorm_gemma &&
                       t.name.find("q_norm") == std::string::npos && t.name.find("k_norm") == std::string::npos;
    for (std::size_t i = 0; i < t.size; ++i) {
      const double z = rng.normal();
      p[t.offset + i] = static_cast<float>(!is_vector ? scale * z
                                           : bias     ? 0.2 * z
                                           : alpha    ? 0.5 + 0.2 * z
                                           : gemma    ? 0.3 * z
                                                      : 1.0 + 0.3 * z);
    }
  }
  REQUIRE(model.set_params(p) == "");
}

inline std::vector<std::int32_t> random_tokens(Rng& rng, int T, int V) {
  std::vector<std::int32_t> t(T);
  for (auto& x : t) x = static_cast<std::int32_t>(rng.next() % static_cast<std::uint64_t>(V));
  return t;
}

inline std::string describe(const decoder::Config& c) {
  return std::string("norm=") + decoder::to_string(c.norm) + " placement=" + decoder::to_string(c.placement) +
         " qk_norm=" + (c.qk_norm ? "on" : "off") + " attn_softcap=" + std::to_string(c.attn_softcap) +
         " final_softcap=" + std::to_string(c.final_softcap) + " mlp=" + decoder::to_string(c.mlp) +
         " residual=" + (c.residual ? "on" : "off") + " pos_embed=" + (c.pos_embed ? "on" : "off") +
         " qk_norm_shape=" + decoder::to_string(c.qk_norm_shape) + " rope=" + (c.rope ? "on" : "off") +
         " rope_theta=" + std::to_string(c.rope_theta);
}

struct GradCheckResult {
  int checked = 0, failed = 0;
  std::string worst;  // the worst entry, described
  double worst_ratio = 0;
};

// Central differences of the float64 reference loss, h = 1e-5, against the model's float32 analytic gradient
// (the model must hold grads of exactly this loss): every entry of small tensors, `per_tensor` spread entries of
// larger ones. Passes when |analytic - numeric| <= atol + rtol * |numeric|.
inline GradCheckResult finite_difference_check(const decoder::Model& model, const std::vector<std::int32_t>& tokens,
                                               const std::vector<std::int32_t>& targets, int per_tensor = 7,
                                               double atol = 2e-5, double rtol = 2e-3) {
  std::vector<double> p(model.params().begin(), model.params().end());
  ReferenceDecoder<double> ref(model.config(), model.layout(), p);
  GradCheckResult r;
  for (const decoder::ParamTensor& t : model.layout().tensors) {
    const std::size_t stride = t.size <= static_cast<std::size_t>(2 * per_tensor) ? 1 : t.size / per_tensor;
    for (std::size_t i = (t.size * 7 / 13) % stride; i < t.size; i += stride) {
      const std::size_t at = t.offset + i;
      const double saved = p[at], h = 1e-5;
      p[at] = saved + h;
      const double up = ref.loss(tokens, targets);
      p[at] = saved - h;
      const double down = ref.loss(tokens, targets);
      p[at] = saved;
      const double numeric = (up - down) / (2 * h), analytic = model.grads()[at];
      const double bound = atol + rtol * std::fabs(numeric), err = std::fabs(analytic - numeric);
      ++r.checked;
      if (!(err <= bound)) ++r.failed;
      if (err / bound > r.worst_ratio || std::isnan(err)) {
        r.worst_ratio = err / bound;
        r.worst = t.name + "[" + std::to_string(i) + "]: analytic " + std::to_string(analytic) + ", numeric " +
                  std::to_string(numeric);
      }
    }
  }
  return r;
}

}  // namespace rl::test
