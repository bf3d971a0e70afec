#include "experiments/init_gradients.hpp"

#include "experiments/options.hpp"

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
  const options::Table& t = option_table("initGradients");
  if (std::string e = check_length(t, "placements", o.placements.size()); !e.empty()) return e;
  for (std::size_t i = 0; i < o.placements.size(); ++i)
    if (std::string e = options::check_choice(*options::find(t, "placements"), decoder::to_string(o.placements[i]),
                                              "placements[" + std::to_string(i) + "]");
        !e.empty())
      return e;
  if (std::string e = check_items(t, "depths", o.depths); !e.empty()) return e;
  if (std::string e = options::check(t, "samples", o.samples); !e.empty()) return e;
  return validate(o.model);
}

InitGradientsResult init_gradients(const InitGradientsOptions& o) {
  InitGradientsResult r;
  r.error = validate(o);
  if (!r.error.empty()) return r;
  const auto windows = probe_windows(o.model.context_length, o.samples);
  const int L = o.model.n_layers;
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
      mo.n_layers = depth;
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
