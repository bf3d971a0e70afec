// Seeded initialisation:
//   normal:  every linear weight ~ N(0, std^2)
//   xavier:  every linear weight ~ U(-a, a), a = sqrt(6 / (fan_in + fan_out))   (Glorot and Bengio 2010)
//   embed.weight, pos_embed.weight ~ N(0, (std * embed_scale)^2) under both schemes
//   residual_scaling (GPT-2): attn.o and mlp.down times 1/sqrt(2L)
//   deepnorm: attn.v, attn.o and the MLP weights times beta = (8L)^(-1/4) (DeepNet's decoder-only gain)
//   zero_qk: attn.q and attn.k start at 0; qk_gain multiplies them otherwise
//   norm parameters, QK-Norm's included: the constant their kind's entry in norm_kinds.cpp gives
//   (ParamTensor::init_value), e.g. weight 1 and bias 0, Gemma's w 0 (multiplier 1 + w), DyT's alpha 0.5
#include <algorithm>
#include <cmath>
#include <string_view>

#include "decoder/model_state.hpp"
#include "core/random.hpp"

namespace rl::decoder {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

void init_weights(ModelState& st) {
  const Config& c = st.config;
  const InitConfig& ini = c.init;
  const double residual_factor = ini.residual_scaling ? 1.0 / std::sqrt(2.0 * c.n_layers) : 1.0;
  const double beta = c.placement == Placement::deepnorm ? static_cast<double>(c.deepnorm_beta()) : 1.0;
  for (const ParamTensor& t : st.layout.tensors) {
    float* out = st.params.data() + t.offset;
    const std::string_view name = t.name;
    if (t.init_value) {
      std::fill(out, out + t.size, *t.init_value);
      continue;
    }
    Rng rng(tensor_seed(ini.seed, name));
    const bool embedding = name == "embed.weight" || name == "pos_embed.weight";
    if (embedding) {
      const double std_dev = static_cast<double>(ini.std) * ini.embed_scale;
      for (std::size_t i = 0; i < t.size; ++i) out[i] = static_cast<float>(std_dev * rng.normal());
      continue;
    }
    const bool is_q_or_k = ends_with(name, "attn.q.weight") || ends_with(name, "attn.k.weight");
    const bool writes_stream = ends_with(name, "attn.o.weight") || ends_with(name, "mlp.down.weight");
    const bool deepnorm_scaled = ends_with(name, "attn.v.weight") || ends_with(name, "attn.o.weight") ||
                                 name.find(".mlp.") != std::string_view::npos;
    double factor = 1.0;
    if (writes_stream) factor *= residual_factor;
    if (deepnorm_scaled) factor *= beta;
    if (is_q_or_k) factor *= ini.zero_qk ? 0.0 : static_cast<double>(ini.qk_gain);
    if (ini.scheme == InitScheme::normal) {
      const double std_dev = static_cast<double>(ini.std) * factor;
      for (std::size_t i = 0; i < t.size; ++i) out[i] = static_cast<float>(std_dev * rng.normal());
    } else {
      const double fan_out = t.shape[0], fan_in = t.shape[1];
      const double bound = std::sqrt(6.0 / (fan_in + fan_out)) * factor;
      for (std::size_t i = 0; i < t.size; ++i) out[i] = static_cast<float>(bound * (2.0 * rng.uniform() - 1.0));
    }
  }
}

}  // namespace rl::decoder
