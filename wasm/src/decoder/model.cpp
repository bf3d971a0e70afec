#include "decoder/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "decoder/model_state.hpp"

namespace rl::decoder {
namespace {

// Hands out consecutive slices of the arena; with a null base it only counts.
// Counts in 64 bits even in WASM (32-bit size_t), so that an absurd config is measured, not wrapped around.
struct Arena {
  float* base;
  std::uint64_t used = 0;
  float* take(std::uint64_t n) {
    float* p = base ? base + used : nullptr;
    used += n;
    return p;
  }
};

// A norm's output (y given: written there) and one [T] buffer per statistic its kind saves.
NormActs take_norm(Arena& a, const Config& c, std::uint64_t T, float* y = nullptr) {
  NormActs n;
  const NormKindSpec& kind = norm_spec(c.norm);
  if (kind.identity()) return n;
  n.y = y ? y : a.take(T * c.d_model);
  for (std::size_t i = 0; i < kind.stats.size(); ++i) n.stats[i] = a.take(T);
  return n;
}

void assign_sublayer(Arena& a, const Config& c, std::uint64_t T, SublayerActs& s, float* x_in, float* x_out) {
  const std::uint64_t Td = T * c.d_model;
  const Placement p = c.placement;
  s.x_in = x_in;
  s.x_out = x_out;
  if (p == Placement::pre || p == Placement::sandwich) s.in_norm = take_norm(a, c, T);
  s.branch_in = s.in_norm.y ? s.in_norm.y : x_in;
  s.branch_out = a.take(Td);
  if (p == Placement::sandwich || p == Placement::olmo2) s.out_norm = take_norm(a, c, T);
  s.increment = s.out_norm.y ? s.out_norm.y : s.branch_out;
  if ((p == Placement::post || p == Placement::deepnorm) && !norm_spec(c.norm).identity()) {
    s.sum = a.take(Td);
    s.post_norm = take_norm(a, c, T, x_out);
  } else {
    s.sum = x_out;
  }
}

float* bind(std::vector<float>& v, long offset) { return offset == kAbsent ? nullptr : v.data() + offset; }
NormWeights bind(std::vector<float>& v, const NormOffsets& n) {
  NormWeights w{};
  for (int i = 0; i < kMaxNormParams; ++i) w[i] = bind(v, n.param[i]);
  return w;
}

ModelWeights bind_all(std::vector<float>& v, const ParamLayout& layout) {
  ModelWeights w;
  w.embed = bind(v, layout.embed);
  w.pos_embed = bind(v, layout.pos_embed);
  w.lm_head = bind(v, layout.lm_head);
  w.final_norm = bind(v, layout.final_norm);
  for (const LayerOffsets& L : layout.layers) {
    LayerWeights lw;
    lw.attn_norm = bind(v, L.attn_norm);
    lw.attn_out_norm = bind(v, L.attn_out_norm);
    lw.mlp_norm = bind(v, L.mlp_norm);
    lw.mlp_out_norm = bind(v, L.mlp_out_norm);
    lw.q = bind(v, L.q), lw.k = bind(v, L.k), lw.v = bind(v, L.v), lw.o = bind(v, L.o);
    lw.q_norm = bind(v, L.q_norm), lw.k_norm = bind(v, L.k_norm);
    lw.up = bind(v, L.up), lw.gate = bind(v, L.gate), lw.down = bind(v, L.down);
    w.layers.push_back(lw);
  }
  return w;
}

// New parameters discard the last forward: a backward must not mix them with activations of the old ones.
void discard_forward(ModelState& st) {
  st.T = 0;
  st.has_targets = st.has_backward = false;
}

}  // namespace

std::uint64_t assign_buffers(ModelState& st, float* base) {
  const Config& c = st.config;
  Arena a{base};
  const std::uint64_t T = c.context_length, d = c.d_model, f = c.ffn_width(), V = c.vocab_size, H = c.n_heads;
  const std::uint64_t L = c.n_layers, Td = T * d;
  st.streams.assign(2 * L + 1, nullptr);
  for (float*& s : st.streams) s = a.take(Td);
  st.layers.assign(L, LayerActs{});
  for (std::uint64_t l = 0; l < L; ++l) {
    LayerActs& la = st.layers[l];
    assign_sublayer(a, c, T, la.attn_sub, st.streams[2 * l], st.streams[2 * l + 1]);
    assign_sublayer(a, c, T, la.mlp_sub, st.streams[2 * l + 1], st.streams[2 * l + 2]);
    AttentionActs& at = la.attn;
    at.q = a.take(Td), at.k = a.take(Td), at.v = a.take(Td);
    if (c.qk_norm) {
      at.qn = a.take(Td), at.kn = a.take(Td), at.q_rstd = a.take(T * H), at.k_rstd = a.take(T * H);
    } else {
      at.qn = at.q, at.kn = at.k;
    }
    if (c.rope) {
      at.qr = a.take(Td), at.kr = a.take(Td);
    } else {
      at.qr = at.qn, at.kr = at.kn;
    }
    at.scores = a.take(H * T * T), at.probs = a.take(H * T * T), at.att_y = a.take(Td);
    la.mlp.up = a.take(T * f), la.mlp.act = a.take(T * f);
    if (c.mlp == MlpKind::swiglu) la.mlp.gate = a.take(T * f);
  }
  st.final_norm = c.has_final_norm() ? take_norm(a, c, T) : NormActs{};
  st.final_in = st.final_norm.y ? st.final_norm.y : st.streams[2 * L];
  st.logits = a.take(T * V);
  st.logits_raw = c.final_softcap > 0 ? a.take(T * V) : st.logits;
  st.probs = a.take(T * V);
  Scratch& s = st.s;
  s.d_stream = a.take(Td), s.d_a = a.take(Td), s.d_b = a.take(Td), s.d_c = a.take(Td);
  s.dq = a.take(Td), s.dk = a.take(Td), s.dv = a.take(Td), s.d_att_y = a.take(Td);
  s.dqn = c.qk_norm ? a.take(Td) : s.dq;
  s.dkn = c.qk_norm ? a.take(Td) : s.dk;
  s.d_probs = a.take(T * T), s.d_scores = a.take(T * T), s.d_raw = a.take(T * T);
  s.d_up = a.take(T * f), s.d_gate = a.take(T * f), s.d_act = a.take(T * f);
  s.d_logits = a.take(T * V);
  s.d_logits_raw = c.final_softcap > 0 ? a.take(T * V) : s.d_logits;
  return a.used;
}

void bind_weights(ModelState& st) {
  st.w = bind_all(st.params, st.layout);
  st.dw = bind_all(st.grads, st.layout);
}

std::uint64_t model_bytes(const Config& config) {
  ModelState probe;
  probe.config = config;
  const std::uint64_t floats = 2 * count_params(config) + assign_buffers(probe, nullptr) +
                               2 * (2 * static_cast<std::uint64_t>(config.n_layers) + 1) * config.context_length;
  return floats * sizeof(float);
}

Model::Model(std::unique_ptr<ModelState> state) : state_(std::move(state)) {}
Model::~Model() = default;

std::unique_ptr<Model> Model::create(const Config& config, std::string* error) {
  const std::string message = validate_config(config);
  if (!message.empty()) {
    if (error) *error = message;
    return nullptr;
  }
  MemoryReservation memory;
  const std::string refused =
      reserve_memory(model_bytes(config), "a decoder (parameters, gradients and activations)", &memory);
  if (!refused.empty()) {
    if (error) *error = refused;
    return nullptr;
  }
  auto st = std::make_unique<ModelState>();
  st->memory = std::move(memory);
  st->config = config;
  st->layout = build_layout(config);
  st->params.assign(st->layout.total, 0.0f);
  st->grads.assign(st->layout.total, 0.0f);
  st->arena.assign(static_cast<std::size_t>(assign_buffers(*st, nullptr)), 0.0f);
  assign_buffers(*st, st->arena.data());
  bind_weights(*st);
  st->stream_grad_norm.assign((2 * static_cast<std::size_t>(config.n_layers) + 1) * config.context_length, 0.0f);
  st->tokens.reserve(config.context_length);
  st->targets.reserve(config.context_length);
  init_weights(*st);
  if (error) error->clear();
  return std::unique_ptr<Model>(new Model(std::move(st)));
}

const Config& Model::config() const { return state_->config; }
const ParamLayout& Model::layout() const { return state_->layout; }
std::size_t Model::num_params() const { return state_->params.size(); }
std::span<float> Model::params() { return state_->params; }
std::span<const float> Model::params() const { return state_->params; }
std::span<float> Model::grads() { return state_->grads; }
std::span<const float> Model::grads() const { return state_->grads; }
void Model::zero_grad() { std::fill(state_->grads.begin(), state_->grads.end(), 0.0f); }
void Model::init_params() {
  init_weights(*state_);
  discard_forward(*state_);
}
int Model::seq_len() const { return state_->T; }

const char* forward_status_name(ForwardStatus status) {
  switch (status) {
    case ForwardStatus::ok: return "ok";
    case ForwardStatus::nonfinite_logits: return "nonfinite_logits";
    case ForwardStatus::nonfinite_loss: return "nonfinite_loss";
  }
  return "unknown";
}

ForwardStatus Model::forward_status() const { return state_->T > 0 ? state_->forward_status : ForwardStatus::ok; }

float Model::loss() const { return state_->has_targets ? state_->loss : std::numeric_limits<float>::quiet_NaN(); }

std::span<const float> Model::logits() const {
  return {state_->logits, static_cast<std::size_t>(state_->T) * state_->config.vocab_size};
}

std::string Model::set_params(std::span<const float> values) {
  if (values.size() != state_->params.size())
    return "expected " + std::to_string(state_->params.size()) + " parameters, got " + std::to_string(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!std::isfinite(values[i])) {
      int t = 0;
      while (t + 1 < static_cast<int>(state_->layout.tensors.size()) && state_->layout.tensors[t + 1].offset <= i) ++t;
      return "parameter " + std::to_string(i) + " (" + state_->layout.tensors[t].name + ") is not finite";
    }
  }
  std::copy(values.begin(), values.end(), state_->params.begin());
  discard_forward(*state_);
  return "";
}

}  // namespace rl::decoder
