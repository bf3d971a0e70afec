// Embind bindings of the lab's decoder (wasm/src/decoder/model.hpp) for web/lib/decoder.js. Declarations and
// conversions only: every check and every message lives in C++ (validate_config, Model) and comes back as an
// `error` string (the module is built without C++ exceptions); decoder.js turns it into a JS Error.
//
// A model is an integer handle into a table here, so JS never holds an Embind object it must .delete();
// decoderDispose(id) frees everything the model owns. Bulk data: JS writes tokens and parameters straight into
// model-owned buffers through fresh typed_memory_views (valid until the next allocation, so decoder.js uses each
// at once), and every result comes back as a new typed array (a copy that survives memory growth).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "common.hpp"
#include "core/memory_budget.hpp"
#include "decoder/model.hpp"
#include "js_config.hpp"
#include "train/loop.hpp"

namespace {

using emscripten::val;
namespace decoder = rl::decoder;
namespace train = rl::train;

struct Handle {
  std::unique_ptr<decoder::Model> model;
  std::vector<std::int32_t> tokens, targets;  // capacity context_length, written by JS
  std::vector<float> staging;                 // setParams: written by JS, validated by Model::set_params
  rl::MemoryReservation staging_memory;       // staging's share of the memory budget
  std::unique_ptr<train::Trainer> trainer;    // created by the first trainStep
};

std::vector<std::unique_ptr<Handle>> handles;  // index = id; freed slots are nullptr

Handle* find(int id) {
  if (id < 0 || id >= static_cast<int>(handles.size())) return nullptr;
  return handles[id].get();
}

using rl::bindings::result;
using rl::bindings::typed_array;

const char* kNoModel = "this decoder has been disposed";

val decoder_create(val config) {
  std::string error;
  auto model = decoder::Model::create(rl::bindings::read_config(config), &error);
  if (!model) return result(error);
  auto handle = std::make_unique<Handle>();
  const int ctx = model->config().context_length;
  handle->tokens.assign(ctx, 0);
  handle->targets.assign(ctx, 0);
  handle->model = std::move(model);
  int id = 0;
  while (id < static_cast<int>(handles.size()) && handles[id]) ++id;
  if (id == static_cast<int>(handles.size())) handles.emplace_back();
  handles[id] = std::move(handle);
  val out = result();
  out.set("id", id);
  out.set("numParams", static_cast<double>(handles[id]->model->num_params()));
  return out;
}

void decoder_dispose(int id) {
  if (find(id)) handles[id].reset();
  while (!handles.empty() && !handles.back()) handles.pop_back();
}

int decoder_live_models() {
  int n = 0;
  for (const auto& h : handles) n += h != nullptr;
  return n;
}

val decoder_layout(int id) {
  Handle* h = find(id);
  val out = val::array();
  if (!h) return out;
  for (const decoder::ParamTensor& t : h->model->layout().tensors) {
    val entry = val::object();
    entry.set("name", t.name);
    entry.set("offset", static_cast<double>(t.offset));
    entry.set("size", static_cast<double>(t.size));
    val shape = val::array();
    for (int s : t.shape) shape.call<void>("push", s);
    entry.set("shape", shape);
    entry.set("layer", t.layer);
    out.call<void>("push", entry);
  }
  return out;
}

// Views into the heap: use at once, before anything can allocate.
val decoder_tokens_view(int id) {
  Handle* h = find(id);
  return h ? val(emscripten::typed_memory_view(h->tokens.size(), h->tokens.data())) : val::null();
}
val decoder_targets_view(int id) {
  Handle* h = find(id);
  return h ? val(emscripten::typed_memory_view(h->targets.size(), h->targets.data())) : val::null();
}
val decoder_staging_view(int id) {
  Handle* h = find(id);
  if (!h) return val::null();
  const std::string refused = rl::reserve_memory(std::uint64_t(h->model->num_params()) * sizeof(float),
                                                 "setParams's copy of the parameters", &h->staging_memory);
  if (!refused.empty()) return result(refused);
  h->staging.resize(h->model->num_params());
  return val(emscripten::typed_memory_view(h->staging.size(), h->staging.data()));
}

std::string decoder_commit_params(int id) {
  Handle* h = find(id);
  if (!h) return kNoModel;
  const std::string error = h->model->set_params(h->staging);
  h->staging = {};  // the copy is not kept
  h->staging_memory.reset();
  return error;
}

val decoder_params(int id) {
  Handle* h = find(id);
  return h ? typed_array(h->model->params().data(), h->model->num_params()) : val::null();
}
val decoder_grads(int id) {
  Handle* h = find(id);
  return h ? typed_array(h->model->grads().data(), h->model->num_params()) : val::null();
}

val forward_stats(const decoder::ForwardStats& s) {
  val out = val::object();
  out.set("nLayers", s.n_layers);
  out.set("nHeads", s.n_heads);
  out.set("seqLen", s.seq_len);
  out.set("streamNorm", typed_array(s.stream_norm));
  out.set("streamNormMean", typed_array(s.stream_norm_mean));
  out.set("incrementNorm", typed_array(s.increment_norm));
  out.set("incrementNormMean", typed_array(s.increment_norm_mean));
  out.set("incrementRatio", typed_array(s.increment_ratio));
  out.set("maxAttnLogit", typed_array(s.max_attn_logit));
  out.set("attnEntropy", typed_array(s.attn_entropy));
  return out;
}

val logit_lens(const decoder::Model& m, int k) {
  const decoder::LogitLens lens = m.logit_lens(k);
  if (!lens.error.empty()) return result(lens.error);
  val out = val::object();
  out.set("k", lens.k);
  out.set("points", lens.points);
  out.set("seqLen", lens.seq_len);
  out.set("topTokens", typed_array(lens.top_tokens.data(), lens.top_tokens.size()));
  out.set("topProbs", typed_array(lens.top_probs));
  return out;
}

// tokens / targets were written through the views; lens_k > 0 adds a logit lens of that many tokens.
val decoder_forward(int id, int length, bool with_targets, int lens_k) {
  Handle* h = find(id);
  if (!h) return result(kNoModel);
  if (length < 0 || length > static_cast<int>(h->tokens.size()))
    return result("sequence of " + std::to_string(length) + " tokens exceeds context_length " +
                  std::to_string(h->tokens.size()));
  std::span<const std::int32_t> tokens(h->tokens.data(), length);
  std::span<const std::int32_t> targets;
  if (with_targets) targets = {h->targets.data(), static_cast<std::size_t>(length)};
  const std::string error = h->model->forward(tokens, targets);
  if (!error.empty()) return result(error);
  val out = result();
  out.set("loss", with_targets ? val(static_cast<double>(h->model->loss())) : val::null());
  out.set("status", std::string(decoder::forward_status_name(h->model->forward_status())));
  const auto logits = h->model->logits();
  out.set("logits", typed_array(logits.data(), logits.size()));
  out.set("stats", forward_stats(h->model->forward_stats()));
  if (lens_k > 0) {
    val lens = logit_lens(*h->model, lens_k);
    if (!lens["error"].isUndefined()) return lens;
    out.set("logitLens", lens);
  }
  return out;
}

val decoder_logit_lens(int id, int k) {
  Handle* h = find(id);
  if (!h) return result(kNoModel);
  if (h->model->seq_len() == 0) return result("logitLens needs a forward pass first");
  val out = logit_lens(*h->model, k);
  if (out["error"].isUndefined()) out.set("error", std::string());
  return out;
}

// Gradients of the last forward's loss (grads are zeroed first), with their norms.
val decoder_backward(int id) {
  Handle* h = find(id);
  if (!h) return result(kNoModel);
  h->model->zero_grad();
  const std::string error = h->model->backward();
  if (!error.empty()) return result(error);
  const decoder::GradStats g = h->model->grad_stats();
  val out = result();
  out.set("totalGradNorm", static_cast<double>(g.total_grad_norm));
  out.set("streamGradNorm", typed_array(g.stream_grad_norm));
  out.set("streamGradNormPerPosition", typed_array(g.stream_grad_norm_per_position));
  out.set("tensorGradNorms", typed_array(g.param_grad_norm));
  return out;
}

// opts: every key present (decoder.js fills defaults). The trainer (AdamW state, schedule position, sampler) is
// created on the first call and kept; decoder.js refuses changed options until resetTraining.
val decoder_train_step(int id, val o) {
  Handle* h = find(id);
  if (!h) return result(kNoModel);
  if (!h->trainer) {
    train::TrainOptions t;
    t.schedule.peak_lr = o["lr"].as<double>();
    t.schedule.warmup_steps = o["warmupSteps"].as<int>();
    t.schedule.decay = o["decay"].as<std::string>() == "cosine" ? train::LrDecay::cosine : train::LrDecay::constant;
    t.schedule.total_steps = o["totalSteps"].as<int>();
    t.schedule.final_ratio = o["finalRatio"].as<double>();
    t.adamw.beta1 = o["beta1"].as<double>();
    t.adamw.beta2 = o["beta2"].as<double>();
    t.adamw.eps = o["adamEps"].as<double>();
    t.adamw.weight_decay = o["weightDecay"].as<double>();
    t.clip_norm = o["clipNorm"].as<double>();
    t.seq_len = o["seqLen"].as<int>();
    t.data_seed = static_cast<std::uint64_t>(o["dataSeed"].as<double>());
    std::string error;
    h->trainer = train::Trainer::create(*h->model, t, &error);
    if (!h->trainer) return result(error);
  }
  const train::StepReport r = h->trainer->step();
  if (!r.error.empty()) return result(r.error);
  val out = result();
  out.set("step", r.step);
  out.set("loss", r.loss);
  out.set("gradNorm", r.grad_norm);
  out.set("lr", r.lr);
  out.set("status", std::string(train::status_name(r.status)));
  out.set("updated", r.updated);
  out.set("diverged", h->trainer->monitor().diverged());
  return out;
}

void decoder_reset_training(int id) {
  if (Handle* h = find(id)) h->trainer.reset();
}

}  // namespace

EMSCRIPTEN_BINDINGS(residual_lab_decoder) {
  emscripten::function("decoderCreate", &decoder_create);
  emscripten::function("decoderDispose", &decoder_dispose);
  emscripten::function("decoderLiveModels", &decoder_live_models);
  emscripten::function("decoderLayout", &decoder_layout);
  emscripten::function("decoderTokensView", &decoder_tokens_view);
  emscripten::function("decoderTargetsView", &decoder_targets_view);
  emscripten::function("decoderStagingView", &decoder_staging_view);
  emscripten::function("decoderCommitParams", &decoder_commit_params);
  emscripten::function("decoderParams", &decoder_params);
  emscripten::function("decoderGrads", &decoder_grads);
  emscripten::function("decoderForward", &decoder_forward);
  emscripten::function("decoderLogitLens", &decoder_logit_lens);
  emscripten::function("decoderBackward", &decoder_backward);
  emscripten::function("decoderTrainStep", &decoder_train_step);
  emscripten::function("decoderResetTraining", &decoder_reset_training);
}
