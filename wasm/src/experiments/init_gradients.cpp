#include "experiments/init_gradients.hpp"

#include <cmath>

namespace rl::experiments {
namespace {

std::string layer_name(int l, const char* tensor) { return "layers." + std::to_string(l) + "." + tensor; }

// Gradient of the mean loss over the windows, accumulated with loss_scale 1 / count. Returns the mean loss.
double batch_gradient(decoder::Model& model, const std::vector<train::Sequence>& windows, std::string* error) {
  model.zero_grad();
  double loss = 0.0;
  for (const train::Sequence& w : windows) {
    *error = model.forward(w.tokens, w.targets);
    if (error->empty()) *error = model.backward(1.0f / float(windows.size()));
    if (!error->empty()) return std::nan("");
    loss += model.loss();
  }
  return loss / double(windows.size());
}

}  // namespace

std::string validate(const InitGradientsOptions& o) {
  if (o.placements.empty() || o.placements.size() > 5) return "placements must list 1 to 5 placements";
  if (o.depths.empty() || o.depths.size() > 12) return "depths must list 1 to 12 depths";
  for (int depth : o.depths)
    if (depth < 1 || depth > 96) return "every depth must be an integer from 1 to 96";
  if (o.samples < 1 || o.samples > 16) return "samples must be an integer from 1 to 16";
  return validate(o.model);
}

InitGradientsResult init_gradients(const InitGradientsOptions& o) {
  InitGradientsResult r;
  r.error = validate(o);
  if (!r.error.empty()) return r;
  const auto windows = probe_windows(o.model.seq_len, o.samples);
  const int L = o.model.layers;
  r.layers = L;
  for (decoder::Placement placement : o.placements) {
    ModelOptions mo = o.model;
    mo.placement = placement;
    auto model = build_model(mo, &r.error);
    if (!model) return r;
    r.loss.push_back(batch_gradient(*model, windows, &r.error));
    if (!r.error.empty()) return r;
    for (int l = 0; l < L; ++l) {
      double attn2 = 0.0;
      for (const char* w : {"attn.q.weight", "attn.k.weight", "attn.v.weight", "attn.o.weight"})
        attn2 += std::pow(tensor_grad_norm(*model, layer_name(l, w)), 2);
      r.attn_grad_norm.push_back(std::sqrt(attn2));
      r.mlp_up_grad_norm.push_back(tensor_grad_norm(*model, layer_name(l, "mlp.up.weight")));
      r.mlp_down_grad_norm.push_back(tensor_grad_norm(*model, layer_name(l, "mlp.down.weight")));
    }
    for (int depth : o.depths) {
      mo.layers = depth;
      auto deep = build_model(mo, &r.error);
      if (!deep) return r;
      batch_gradient(*deep, windows, &r.error);
      if (!r.error.empty()) return r;
      r.last_layer_mlp_grad_norm.push_back(tensor_grad_norm(*deep, layer_name(depth - 1, "mlp.down.weight")));
    }
  }
  return r;
}

}  // namespace rl::experiments
