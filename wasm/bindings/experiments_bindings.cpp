// Embind bindings of the six experiments (wasm/src/experiments/*.hpp) for web/lib/experiments.js.
// Embind, not raw exports: an experiment call runs for milliseconds to seconds, so marshalling costs nothing,
// and option objects map onto the C++ option structs field by field. web/lib/experiments.js fills in every
// default and validates every option before calling here; C++ validates again and any message comes back in
// the result's `error` field (the module is built without C++ exceptions), which the JS turns into an Error.
// Arrays come back as fresh Float64Arrays (copies, so they survive WASM memory growth).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "core/memory_budget.hpp"
#include "experiments/gradient_decay.hpp"
#include "experiments/init_gradients.hpp"
#include "experiments/init_scaling.hpp"
#include "experiments/qk_logit_growth.hpp"
#include "experiments/residual_growth.hpp"
#include "experiments/warmup.hpp"
#include "js_config.hpp"

namespace {

using emscripten::val;
using namespace rl::experiments;
namespace decoder = rl::decoder;

using rl::bindings::result;
using rl::bindings::typed_array;

template <class T>
std::vector<T> read_array(const val& array) {
  std::vector<T> out;
  const int n = array["length"].as<int>();
  for (int i = 0; i < n; ++i) out.push_back(array[i].as<T>());
  return out;
}

// Unknown names cannot reach here (the JS checks them); should one slip through, C++ validation reports the
// out-of-range enum value it becomes.
decoder::Placement placement(const val& name) {
  decoder::Placement p = static_cast<decoder::Placement>(-1);
  decoder::parse_placement(name.as<std::string>(), &p);
  return p;
}

// The decoder config's keys an experiment takes (its table may leave some out: they keep the defaults).
ModelOptions read_model(const val& o, ModelOptions m) {
  using rl::bindings::field;
  m.n_layers = field(o, "nLayers", m.n_layers);
  m.d_model = field(o, "dModel", m.d_model);
  m.n_heads = field(o, "nHeads", m.n_heads);
  m.context_length = field(o, "contextLength", m.context_length);
  m.norm = rl::bindings::named(o, "norm", m.norm, decoder::parse_norm_kind);
  m.placement = rl::bindings::named(o, "placement", m.placement, decoder::parse_placement);
  m.qk_norm = field(o, "qkNorm", m.qk_norm);
  m.init = rl::bindings::read_init(o["init"], m.init);
  return m;
}

val gradient_decay_js(val o) {
  GradientDecayOptions g;
  g.n_layers = o["nLayers"].as<int>();
  g.gain = o["gain"].as<double>();
  g.residual = o["residual"].as<bool>();
  g.variant = o["variant"].as<std::string>() == "mlp" ? GradientDecayVariant::mlp : GradientDecayVariant::linear;
  g.width = o["width"].as<int>();
  g.seed = static_cast<uint64_t>(o["seed"].as<double>());
  const GradientDecayResult r = gradient_decay(g);
  val out = result(r.error);
  out.set("gradNorms", typed_array(r.grad_norms));
  return out;
}

val init_gradients_js(val o) {
  InitGradientsOptions g;
  g.model = read_model(o, g.model);
  g.placements.clear();
  for (const std::string& name : read_array<std::string>(o["placements"])) g.placements.push_back(placement(val(name)));
  g.depths = read_array<int>(o["depths"]);
  g.samples = o["samples"].as<int>();
  const InitGradientsResult r = init_gradients(g);
  val out = result(r.error);
  out.set("layers", r.layers);
  out.set("attnGradNorm", typed_array(r.attn_grad_norm));
  out.set("mlpUpGradNorm", typed_array(r.mlp_up_grad_norm));
  out.set("mlpDownGradNorm", typed_array(r.mlp_down_grad_norm));
  out.set("loss", typed_array(r.loss));
  out.set("lastLayerMlpGradNorm", typed_array(r.last_layer_mlp_grad_norm));
  return out;
}

val residual_growth_js(val o, val on_progress) {
  ResidualGrowthOptions g;
  g.model = read_model(o, g.model);
  g.train_steps = o["trainSteps"].as<int>();
  g.lr = o["lr"].as<double>();
  Progress progress;
  if (on_progress.typeOf().as<std::string>() == "function")
    progress = [&on_progress](int done, int total) { return !on_progress(done, total).strictlyEquals(val(false)); };
  const ResidualGrowthResult r = residual_growth(g, progress);
  val out = result(r.error);
  out.set("streamNorm", typed_array(r.stream_norm));
  out.set("incrementNorm", typed_array(r.increment_norm));
  out.set("incrementRatio", typed_array(r.increment_ratio));
  out.set("trainLoss", typed_array(r.train_loss));
  out.set("loss", r.loss);
  return out;
}

val qk_logit_growth_js(val o) {
  QkLogitGrowthOptions g;
  g.model = read_model(o, g.model);
  g.gains = read_array<double>(o["gains"]);
  const QkLogitGrowthResult r = qk_logit_growth(g);
  val out = result(r.error);
  out.set("bound", r.bound);
  out.set("maxLogitPlain", typed_array(r.max_logit_plain));
  out.set("maxLogitQkNorm", typed_array(r.max_logit_qk_norm));
  out.set("layer0MaxLogitPlain", typed_array(r.layer0_max_logit_plain));
  out.set("entropyPlain", typed_array(r.entropy_plain));
  out.set("entropyQkNorm", typed_array(r.entropy_qk_norm));
  return out;
}

val init_scaling_js(val o) {
  InitScalingOptions g;
  g.model = read_model(o, g.model);
  g.depths = read_array<int>(o["depths"]);
  const InitScalingResult r = init_scaling(g);
  val out = result(r.error);
  out.set("finalVariancePlain", typed_array(r.final_variance_plain));
  out.set("finalVarianceScaled", typed_array(r.final_variance_scaled));
  out.set("profilePlain", typed_array(r.profile_plain));
  out.set("profileScaled", typed_array(r.profile_scaled));
  return out;
}

// The four training runs of experiment 4, advanced a few steps per call. JS owns one through
// web/lib/experiments.js, which deletes it when the run finishes or is disposed.
class WarmupHandle {
 public:
  explicit WarmupHandle(val o) {
    WarmupOptions w;
    w.model = read_model(o, w.model);
    w.steps = o["steps"].as<int>();
    w.lr = o["lr"].as<double>();
    w.warmup_steps = o["warmupSteps"].as<int>();
    w.clip_norm = o["clipNorm"].as<double>();
    w.beta2 = o["beta2"].as<double>();
    w.eval_windows = o["evalWindows"].as<int>();
    w.runs = read_array<std::string>(o["runs"]);
    run_ = WarmupRun::create(w, &error_);
  }
  std::string error() const { return error_; }
  std::string error_code() const { return rl::is_out_of_memory(error_) ? rl::kOutOfMemoryCode : ""; }
  int advance(int n) { return run_ ? run_->advance(n) : 0; }
  bool done() const { return !run_ || run_->done(); }

  val result() const {
    val out = rl::bindings::result(error_);
    if (!run_) return out;
    const WarmupResult r = run_->result();
    out.set("stepsDone", r.steps_done);
    out.set("stepsTotal", r.steps_total);
    out.set("unigramEntropy", r.unigram_entropy);
    val runs = val::array();
    for (const WarmupCurve& c : r.runs) {
      val run = val::object();
      run.set("placement", std::string(decoder::to_string(c.placement)));
      run.set("warmup", c.warmup);
      run.set("loss", typed_array(c.loss));
      run.set("gradNorm", typed_array(c.grad_norm));
      run.set("lr", typed_array(c.lr));
      run.set("status", std::string(rl::train::status_name(c.status)));
      run.set("firstDivergentStep", c.first_divergent_step);
      run.set("finalSmoothedLoss", c.final_smoothed_loss);
      run.set("evalLoss", c.eval_loss);
      run.set("predictionSimilarity", c.prediction_similarity);
      runs.call<void>("push", run);
    }
    out.set("runs", runs);
    return out;
  }

 private:
  std::string error_;
  std::unique_ptr<WarmupRun> run_;
};

}  // namespace

EMSCRIPTEN_BINDINGS(residual_lab_experiments) {
  emscripten::function("experimentGradientDecay", &gradient_decay_js);
  emscripten::function("experimentInitGradients", &init_gradients_js);
  emscripten::function("experimentResidualGrowth", &residual_growth_js);
  emscripten::function("experimentQkLogitGrowth", &qk_logit_growth_js);
  emscripten::function("experimentInitScaling", &init_scaling_js);
  emscripten::class_<WarmupHandle>("ExperimentWarmupRun")
      .constructor<val>()
      .function("error", &WarmupHandle::error)
      .function("errorCode", &WarmupHandle::error_code)
      .function("advance", &WarmupHandle::advance)
      .function("done", &WarmupHandle::done)
      .function("result", &WarmupHandle::result);
}
