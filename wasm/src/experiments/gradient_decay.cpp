#include "experiments/gradient_decay.hpp"

#include "experiments/options.hpp"

#include <cmath>

#include "core/random.hpp"
#include "experiments/orthogonal.hpp"

namespace rl::experiments {
namespace {

using Vec = std::vector<double>;

double norm(const Vec& v) {
  double s = 0.0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

Vec unit_random_direction(int n, Rng& rng) {
  Vec g(static_cast<size_t>(n));
  for (double& x : g) x = rng.normal();
  const double inv = 1.0 / norm(g);
  for (double& x : g) x *= inv;
  return g;
}

// Streams: 0 = top gradient, 1 = input h_0, 2 + l = layer l's weights (drawn the same in forward and backward).
constexpr uint64_t kTopStream = 0, kInputStream = 1, kLayerStream0 = 2;

Vec linear_stack(const GradientDecayOptions& o) {
  Vec norms(size_t(o.n_layers) + 1);
  Vec g = top_gradient_direction(o);
  norms[size_t(o.n_layers)] = norm(g);
  for (int l = o.n_layers - 1; l >= 0; --l) {
    Rng rng(mix_seed(o.seed, kLayerStream0 + uint64_t(l)));
    const RandomOrthogonal q(o.width, rng);
    Vec branch = g;
    q.apply_transpose(branch);  // Q_l^T g
    for (size_t i = 0; i < g.size(); ++i) g[i] = (o.residual ? g[i] : 0.0) + o.gain * branch[i];
    norms[size_t(l)] = norm(g);
  }
  return norms;
}

// Exact GELU, x * Phi(x), and its derivative Phi(x) + x * phi(x).
double gelu(double x) { return 0.5 * x * (1.0 + std::erf(x * 0.70710678118654752440)); }
double gelu_derivative(double x) {
  return 0.5 * (1.0 + std::erf(x * 0.70710678118654752440)) + x * 0.39894228040143267794 * std::exp(-0.5 * x * x);
}

struct MlpLayer {
  Vec w1, w2;  // w1: [hidden, width], w2: [width, hidden], row-major
};

MlpLayer draw_mlp_layer(int width, int hidden, uint64_t seed, int layer) {
  Rng rng(mix_seed(seed, kLayerStream0 + uint64_t(layer)));
  MlpLayer w{Vec(size_t(hidden) * size_t(width)), Vec(size_t(width) * size_t(hidden))};
  const double std1 = std::sqrt(1.0 / width), std2 = std::sqrt(2.0 / hidden);
  for (double& x : w.w1) x = std1 * rng.normal();
  for (double& x : w.w2) x = std2 * rng.normal();
  return w;
}

// The forward pass from h_0, keeping each layer's pre-activations W1 h (the backward needs gelu' there).
Vec mlp_forward(const GradientDecayOptions& o, Vec h, std::vector<Vec>* pre) {
  const size_t un = size_t(o.width), um = 4 * un;
  for (int l = 0; l < o.n_layers; ++l) {
    const MlpLayer w = draw_mlp_layer(o.width, int(um), o.seed, l);
    Vec u(um), a(um);
    for (size_t k = 0; k < um; ++k) {  // u = W1 h, a = gelu(u)
      double s = 0.0;
      for (size_t i = 0; i < un; ++i) s += w.w1[k * un + i] * h[i];
      u[k] = s;
      a[k] = gelu(s);
    }
    for (size_t i = 0; i < un; ++i) {  // h <- [h +] gain * W2 a
      double s = 0.0;
      for (size_t k = 0; k < um; ++k) s += w.w2[i * um + k] * a[k];
      h[i] = (o.residual ? h[i] : 0.0) + o.gain * s;
    }
    if (pre) pre->push_back(std::move(u));
  }
  return h;
}

}  // namespace

Vec mlp_stack_output(const GradientDecayOptions& o, const Vec& input) { return mlp_forward(o, input, nullptr); }

// g_l = [g_{l+1} +] gain * W1^T (gelu'(u_l) * (W2^T g_{l+1})), from the top down.
Vec mlp_stack_input_gradient(const GradientDecayOptions& o, const Vec& input, Vec g, Vec* norms) {
  const size_t un = size_t(o.width), um = 4 * un;
  std::vector<Vec> pre;
  mlp_forward(o, input, &pre);
  if (norms) norms->assign(size_t(o.n_layers) + 1, 0.0);
  if (norms) (*norms)[size_t(o.n_layers)] = norm(g);
  for (int l = o.n_layers - 1; l >= 0; --l) {
    const MlpLayer w = draw_mlp_layer(o.width, int(um), o.seed, l);
    const Vec& u = pre[size_t(l)];
    Vec du(um, 0.0);
    for (size_t i = 0; i < un; ++i)
      for (size_t k = 0; k < um; ++k) du[k] += w.w2[i * um + k] * g[i];  // W2^T g
    for (size_t k = 0; k < um; ++k) du[k] *= gelu_derivative(u[k]);      // through gelu
    Vec dh(un, 0.0);
    for (size_t k = 0; k < um; ++k)
      for (size_t i = 0; i < un; ++i) dh[i] += w.w1[k * un + i] * du[k];  // W1^T du
    for (size_t i = 0; i < un; ++i) g[i] = (o.residual ? g[i] : 0.0) + o.gain * dh[i];
    if (norms) (*norms)[size_t(l)] = norm(g);
  }
  return g;
}

Vec mlp_stack_input(const GradientDecayOptions& o) {
  Rng rng(mix_seed(o.seed, kInputStream));
  Vec h(static_cast<size_t>(o.width));
  for (double& x : h) x = rng.normal();
  return h;
}

Vec top_gradient_direction(const GradientDecayOptions& o) {
  Rng rng(mix_seed(o.seed, kTopStream));
  return unit_random_direction(o.width, rng);
}

namespace {

Vec mlp_stack(const GradientDecayOptions& o) {
  Vec norms;
  mlp_stack_input_gradient(o, mlp_stack_input(o), top_gradient_direction(o), &norms);
  return norms;
}

}  // namespace

std::string validate(const GradientDecayOptions& o) {
  const options::Table& t = option_table("gradientDecay");
  for (const std::string& e : {options::check(t, "nLayers", o.n_layers), options::check(t, "gain", o.gain),
                               options::check(t, "width", o.width)})
    if (!e.empty()) return e;
  if (o.variant == GradientDecayVariant::mlp && o.width > kMaxMlpWidth)
    return "width must be at most " + std::to_string(kMaxMlpWidth) + " for the mlp variant (got " +
           std::to_string(o.width) + ")";
  return {};
}

GradientDecayResult gradient_decay(const GradientDecayOptions& options) {
  GradientDecayResult result;
  result.error = validate(options);
  if (!result.error.empty()) return result;
  result.grad_norms = options.variant == GradientDecayVariant::linear ? linear_stack(options) : mlp_stack(options);
  return result;
}

}  // namespace rl::experiments
