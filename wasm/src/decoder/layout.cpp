#include "decoder/layout.hpp"

namespace rl::decoder {
namespace {

// Walks a config's tensors in layout order. With a layout it records them; without, it only counts (in 64 bits,
// so that an absurd config is measured, not wrapped around, in 32-bit WASM).
class LayoutBuilder {
 public:
  explicit LayoutBuilder(ParamLayout* layout) : layout_(layout) {}

  std::uint64_t total() const { return total_; }

  long add(std::string name, std::vector<int> shape, int layer, std::optional<float> init_value = {}) {
    std::uint64_t size = 1;
    for (int s : shape) size *= static_cast<std::uint64_t>(s);
    const std::uint64_t offset = total_;
    total_ += size;
    if (!layout_) return static_cast<long>(offset);
    ParamTensor t;
    t.name = std::move(name);
    t.offset = static_cast<std::size_t>(offset);
    t.size = static_cast<std::size_t>(size);
    t.shape = std::move(shape);
    t.layer = layer;
    t.init_value = init_value;
    layout_->total = static_cast<std::size_t>(total_);
    layout_->tensors.push_back(std::move(t));
    return static_cast<long>(offset);
  }

  // The tensors of one norm of this kind over rows of `width`: <prefix>.<suffix> for each of its params.
  NormOffsets add_norm(const std::string& prefix, const NormKindSpec& kind, int width, int layer) {
    NormOffsets n;
    if (kind.params.empty()) return n;
    n.kind = &kind;
    for (std::size_t i = 0; i < kind.params.size(); ++i) {
      const NormParamSpec& p = kind.params[i];
      n.param[i] = add(prefix + "." + std::string(p.suffix), {static_cast<int>(p.size(width))}, layer, p.init);
    }
    return n;
  }

 private:
  ParamLayout* layout_;
  std::uint64_t total_ = 0;
};

void lay_out(const Config& c, LayoutBuilder& b, ParamLayout& layout) {
  const int d = c.d_model, f = c.ffn_width(), V = c.vocab_size;
  const bool sandwich = c.placement == Placement::sandwich;
  const NormKindSpec& norm = norm_spec(c.norm);
  const NormKindSpec& qk_norm = norm_spec(NormKind::rmsnorm);  // QK-Norm is Llama's RMSNorm whatever the kind
  layout.embed = b.add("embed.weight", {V, d}, -1);
  if (c.pos_embed) layout.pos_embed = b.add("pos_embed.weight", {c.context_length, d}, -1);
  for (int i = 0; i < c.n_layers; ++i) {
    const std::string p = "layers." + std::to_string(i) + ".";
    LayerOffsets L;
    L.attn_norm = b.add_norm(p + "attn_norm", norm, d, i);
    L.q = b.add(p + "attn.q.weight", {d, d}, i);
    L.k = b.add(p + "attn.k.weight", {d, d}, i);
    L.v = b.add(p + "attn.v.weight", {d, d}, i);
    L.o = b.add(p + "attn.o.weight", {d, d}, i);
    if (c.qk_norm) {
      const int width = c.qk_norm_shape == QkNormShape::projection ? d : c.d_head();
      L.q_norm = b.add_norm(p + "attn.q_norm", qk_norm, width, i).find("weight");
      L.k_norm = b.add_norm(p + "attn.k_norm", qk_norm, width, i).find("weight");
    }
    if (sandwich) L.attn_out_norm = b.add_norm(p + "attn_out_norm", norm, d, i);
    L.mlp_norm = b.add_norm(p + "mlp_norm", norm, d, i);
    L.up = b.add(p + "mlp.up.weight", {f, d}, i);
    if (c.mlp == MlpKind::swiglu) L.gate = b.add(p + "mlp.gate.weight", {f, d}, i);
    L.down = b.add(p + "mlp.down.weight", {d, f}, i);
    if (sandwich) L.mlp_out_norm = b.add_norm(p + "mlp_out_norm", norm, d, i);
    layout.layers.push_back(L);
  }
  if (c.has_final_norm()) layout.final_norm = b.add_norm("final_norm", norm, d, -1);
  layout.lm_head = b.add("lm_head.weight", {V, d}, -1);
}

}  // namespace

ParamLayout build_layout(const Config& c) {
  ParamLayout layout;
  LayoutBuilder b(&layout);
  lay_out(c, b, layout);
  return layout;
}

std::uint64_t count_params(const Config& c) {
  ParamLayout offsets;  // filled but not kept
  LayoutBuilder b(nullptr);
  lay_out(c, b, offsets);
  return b.total();
}

int ParamLayout::find(std::string_view name) const {
  for (std::size_t i = 0; i < tensors.size(); ++i)
    if (tensors[i].name == name) return static_cast<int>(i);
  return -1;
}

}  // namespace rl::decoder
