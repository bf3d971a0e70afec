#include "experiments/common.hpp"

#include <cmath>

#include "experiments/options.hpp"

namespace rl::experiments {

std::string validate(const ModelOptions& o) {
  const options::Table& t = model_rows();
  for (const std::string& e :
       {options::check(t, "nLayers", o.n_layers), options::check(t, "dModel", o.d_model),
        options::check(t, "nHeads", o.n_heads), options::check(t, "contextLength", o.context_length)})
    if (!e.empty()) return e;
  return decoder::validate_config(to_config(o));
}

decoder::Config to_config(const ModelOptions& o) {
  decoder::Config c;
  c.vocab_size = train::shipped_corpus().tokenizer.vocab_size();
  c.d_model = o.d_model;
  c.n_heads = o.n_heads;
  c.n_layers = o.n_layers;
  c.context_length = o.context_length;
  c.norm = o.norm;
  c.placement = o.placement;
  c.qk_norm = o.qk_norm;
  c.init = o.init;
  return c;
}

std::unique_ptr<decoder::Model> build_model(const ModelOptions& options, std::string* error) {
  const std::string message = validate(options);
  if (!message.empty()) {
    if (error) *error = message;
    return nullptr;
  }
  return decoder::Model::create(to_config(options), error);
}

std::vector<train::Sequence> probe_windows(int length, int count) {
  return train::fixed_windows(train::shipped_corpus().train, length, count);
}

double tensor_grad_norm(const decoder::Model& model, const std::string& name) {
  const int index = model.layout().find(name);
  if (index < 0) return 0.0;
  const decoder::ParamTensor& t = model.layout().tensors[size_t(index)];
  const float* g = model.grads().data() + t.offset;
  double sum = 0.0;
  for (size_t i = 0; i < t.size; ++i) sum += double(g[i]) * double(g[i]);
  return std::sqrt(sum);
}

std::vector<double> stream_mean_square(const decoder::Model& model) {
  const decoder::ForwardStats stats = model.forward_stats();
  const int points = 2 * stats.n_layers + 1, T = stats.seq_len;
  std::vector<double> out(size_t(points), 0.0);
  for (int p = 0; p < points; ++p) {
    double sum = 0.0;
    for (int t = 0; t < T; ++t) {
      const double norm = stats.stream_norm[size_t(p) * size_t(T) + size_t(t)];
      sum += norm * norm;
    }
    out[size_t(p)] = T > 0 ? sum / (double(T) * model.config().d_model) : 0.0;
  }
  return out;
}

}  // namespace rl::experiments
