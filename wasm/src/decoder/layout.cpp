#include "decoder/layout.hpp"

namespace rl::decoder {
namespace {

class LayoutBuilder {
 public:
  explicit LayoutBuilder(ParamLayout& layout) : layout_(layout) {}

  long add(std::string name, std::vector<int> shape, int layer) {
    ParamTensor t;
    t.name = std::move(name);
    t.offset = layout_.total;
    t.size = 1;
    for (int s : shape) t.size *= static_cast<std::size_t>(s);
    t.shape = std::move(shape);
    t.layer = layer;
    layout_.total += t.size;
    layout_.tensors.push_back(std::move(t));
    return static_cast<long>(layout_.tensors.back().offset);
  }

  NormOffsets add_norm(const std::string& prefix, const Config& c, int layer) {
    NormOffsets n;
    if (c.norm == NormKind::none) return n;
    n.weight = add(prefix + ".weight", {c.d_model}, layer);
    if (c.norm == NormKind::layernorm) n.bias = add(prefix + ".bias", {c.d_model}, layer);
    return n;
  }

 private:
  ParamLayout& layout_;
};

}  // namespace

ParamLayout build_layout(const Config& c) {
  ParamLayout layout;
  LayoutBuilder b(layout);
  const int d = c.d_model, f = c.ffn_width(), V = c.vocab_size;
  const bool sandwich = c.placement == Placement::sandwich;
  layout.embed = b.add("embed.weight", {V, d}, -1);
  if (c.pos_embed) layout.pos_embed = b.add("pos_embed.weight", {c.context_length, d}, -1);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    LayerOffsets L;
    L.attn_norm = b.add_norm(p + "attn_norm", c, i);
    L.q = b.add(p + "attn.q.weight", {d, d}, i);
    L.k = b.add(p + "attn.k.weight", {d, d}, i);
    L.v = b.add(p + "attn.v.weight", {d, d}, i);
    L.o = b.add(p + "attn.o.weight", {d, d}, i);
    if (c.qk_norm) {
      L.q_norm = b.add(p + "attn.q_norm.weight", {c.d_head()}, i);
      L.k_norm = b.add(p + "attn.k_norm.weight", {c.d_head()}, i);
    }
    if (sandwich) L.attn_out_norm = b.add_norm(p + "attn_out_norm", c, i);
    L.mlp_norm = b.add_norm(p + "mlp_norm", c, i);
    L.up = b.add(p + "mlp.up.weight", {f, d}, i);
    if (c.mlp == MlpKind::swiglu) L.gate = b.add(p + "mlp.gate.weight", {f, d}, i);
    L.down = b.add(p + "mlp.down.weight", {d, f}, i);
    if (sandwich) L.mlp_out_norm = b.add_norm(p + "mlp_out_norm", c, i);
    layout.layers.push_back(L);
  }
  if (c.has_final_norm()) layout.final_norm = b.add_norm("final_norm", c, -1);
  layout.lm_head = b.add("lm_head.weight", {V, d}, -1);
  return layout;
}

std::uint64_t count_params(const Config& c) {
  const std::uint64_t d = c.d_model, f = c.ffn_width(), V = c.vocab_size, L = c.n_layers;
  const std::uint64_t norm_size = c.norm == NormKind::none ? 0 : c.norm == NormKind::layernorm ? 2 * d : d;
  const std::uint64_t norms_per_layer = c.placement == Placement::sandwich ? 4 : 2;
  std::uint64_t per_layer = 4 * d * d + (c.mlp == MlpKind::swiglu ? 3 : 2) * d * f + norms_per_layer * norm_size;
  if (c.qk_norm) per_layer += 2 * (d / c.n_heads);
  std::uint64_t total = 2 * V * d + L * per_layer;
  if (c.pos_embed) total += static_cast<std::uint64_t>(c.context_length) * d;
  if (c.has_final_norm()) total += norm_size;
  return total;
}

int ParamLayout::find(std::string_view name) const {
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace rl::decoder
