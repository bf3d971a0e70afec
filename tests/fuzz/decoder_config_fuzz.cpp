// libFuzzer target: the decoder config's path from a JS object to a running model.
//   1. Each option gets what a caller could pass: nothing (the default), null where the row allows it, a small
//      value, a bound or just past it, NaN, an infinity, or any double; a choice gets one of its names or junk.
//      The row's check (options::check_number / check_choice, what web/lib/options.js applies) accepts or names it.
//   2. The values become a decoder::Config the way wasm/bindings/js_config.hpp reads it (an unknown name is the
//      enum value -1); values the JS side would have refused are clamped into int range instead, so
//      validate_config also sees configs no caller can send.
//   3. validate_config is the gate: whatever it accepts passes every row's check, nHeads divides dModel and the
//      model fits kMaxModelBytes; for values that passed the rows it may only add those last two objections.
//   4. An accepted config small enough to build quickly (kCreateBytes) must build, and a forward of a short
//      sequence (sometimes with a bad token, target or length) must give a finite loss or an error string.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "decoder/config.hpp"
#include "decoder/config_options.hpp"
#include "decoder/model.hpp"
#include "fuzz_check.hpp"

namespace {

using rl::options::Option;
using rl::options::Type;
namespace dec = rl::decoder;

// Models up to this size are built and run; larger accepted configs are only validated (a build costs time in
// proportion to its size, and the fuzzer needs thousands of runs per second).
constexpr std::uint64_t kCreateBytes = std::uint64_t(2) << 20;

struct Value {
  bool given = false;  // false: the key is absent, the default applies
  bool null = false;
  double number = 0;
  std::string text;
};

double some_number(FuzzedDataProvider& in, const Option& row) {
  const double lo = std::isfinite(row.min) ? row.min : -1e6, hi = std::isfinite(row.max) ? row.max : 1e6;
  // Mostly values inside the row (small ones keep the models cheap), so that most configs reach the model.
  switch (std::max(in.ConsumeIntegralInRange(0, 7) - 4, 0)) {
    case 0: {
      const int top = static_cast<int>(std::fmin(hi, lo + 16));
      return in.ConsumeIntegralInRange(static_cast<int>(lo) - 1, top + 1);
    }
    case 1: {
      const double edges[] = {lo,
                              hi,
                              std::nextafter(lo, -INFINITY),
                              std::nextafter(hi, INFINITY),
                              lo - 1,
                              hi + 1,
                              0.0,
                              -0.0,
                              0.5,
                              1e300,
                              -1e300,
                              NAN,
                              INFINITY,
                              -INFINITY,
                              4294967296.0 + lo};
      return edges[in.ConsumeIntegralInRange<std::size_t>(0, std::size(edges) - 1)];
    }
    case 2: {
      const std::uint64_t bits = in.ConsumeIntegral<std::uint64_t>();
      double v;
      std::memcpy(&v, &bits, sizeof v);
      return v;
    }
    default: return in.ConsumeFloatingPointInRange(lo, hi);
  }
}

// Picks a value for the row; returns false when the JS validation would refuse it (after checking its message).
bool pick(FuzzedDataProvider& in, const Option& row, const std::string& name, Value& v) {
  const int mode = in.ConsumeIntegralInRange(0, 7);
  if (mode == 0) return true;  // absent
  v.given = true;
  if (mode == 1 && row.nullable) return v.null = true, true;
  if (row.type == Type::boolean) return v.number = in.ConsumeBool(), true;
  std::string message;
  if (row.type == Type::choice) {
    v.text = in.ConsumeIntegralInRange(0, 3) == 3
                 ? in.ConsumeRandomLengthString(12)
                 : row.choices[in.ConsumeIntegralInRange<std::size_t>(0, row.choices.size() - 1)];
    message = rl::options::check_choice(row, v.text, name);
  } else {
    v.number = some_number(in, row);
    message = rl::options::check_number(row, v.number, name);
  }
  if (message.empty()) return true;
  FUZZ_CHECK(message.rfind(name + " must be ", 0) == 0, "the message for %s does not name it: %s", name.c_str(),
             message.c_str());
  return false;
}

// The JS number as js_config.hpp's field<int> reads a checked value; out of int range it clamps (unchecked path).
int as_int(const Value& v, int fallback) {
  if (!v.given || v.null) return fallback;
  if (std::isnan(v.number)) return std::numeric_limits<int>::min();
  return static_cast<int>(std::fmax(std::fmin(v.number, 2147483647.0), -2147483648.0));
}
// A double beyond float's range becomes an infinity (IEEE rounding, as JS's Math.fround).
float as_float(const Value& v, float fallback) { return !v.given || v.null ? fallback : static_cast<float>(v.number); }
bool as_bool(const Value& v, bool fallback) { return !v.given ? fallback : v.number != 0; }
template <class Enum>
Enum as_enum(const Value& v, Enum fallback, bool (*parse)(std::string_view, Enum*)) {
  if (!v.given) return fallback;
  Enum out = fallback;
  return parse(v.text, &out) ? out : static_cast<Enum>(-1);
}

// Every row's check on the config's own values (what validate_config must guarantee when it accepts).
std::string first_row_failure(const dec::Config& c) {
  const rl::options::Table& t = dec::config_options();
  const std::string checks[] = {
      rl::options::check(t, "vocabSize", c.vocab_size),
      rl::options::check(t, "dModel", c.d_model),
      rl::options::check(t, "nHeads", c.n_heads),
      c.d_ff == 0 ? "" : rl::options::check(t, "dFF", c.d_ff),
      rl::options::check(t, "nLayers", c.n_layers),
      rl::options::check(t, "contextLength", c.context_length),
      rl::options::check(t, "mlp", dec::to_string(c.mlp)),
      rl::options::check(t, "norm", dec::to_string(c.norm)),
      rl::options::check(t, "placement", dec::to_string(c.placement)),
      c.attn_softcap == 0 ? "" : rl::options::check(t, "attnSoftcap", c.attn_softcap),
      c.final_softcap == 0 ? "" : rl::options::check(t, "finalSoftcap", c.final_softcap),
      rl::options::check(t, "eps", c.eps),
      rl::options::check(t, "init.scheme", dec::to_string(c.init.scheme)),
      rl::options::check(t, "init.std", c.init.std),
      rl::options::check(t, "init.embedScale", c.init.embed_scale),
      rl::options::check(t, "init.qkGain", c.init.qk_gain),
  };
  for (const std::string& e : checks)
    if (!e.empty()) return e;
  return "";
}

// How the forward goes wrong, read before the config (from the input's last bytes) so that every input length
// reaches each choice: 0-11 not at all, 12 an empty sequence, 13 one token past contextLength, 14 a token id
// outside [0, vocabSize), 15 a bad target (outside the vocabulary, or one too many).
struct ForwardPlan {
  int fault = 0;
  bool with_targets = true;
};

void run_model(FuzzedDataProvider& in, const dec::Config& c, const ForwardPlan& plan) {
  std::string error;
  const auto model = dec::Model::create(c, &error);
  FUZZ_CHECK(model != nullptr && error.empty(), "an accepted config of %llu bytes did not build: %s",
             static_cast<unsigned long long>(dec::model_bytes(c)), error.c_str());
  // An exhausted input reads as zeros: T = 1 and token 0.
  const int V = c.vocab_size;
  const int fault = plan.fault;
  int T = 1 + in.ConsumeIntegralInRange(0, std::min(c.context_length, 6) - 1);
  if (fault == 12) T = 0;
  if (fault == 13) T = c.context_length + 1;
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(T)), targets;
  for (auto& t : tokens) t = in.ConsumeIntegralInRange(0, V - 1);
  if (plan.with_targets || fault == 15) {
    targets.resize(static_cast<std::size_t>(fault == 15 && in.ConsumeBool() ? T + 1 : T));
    for (auto& t : targets) t = in.ConsumeIntegralInRange(0, V - 1);
  }
  if (fault >= 14 && T >= 1) {  // one id just outside [0, V)
    auto& ids = fault == 14 || targets.empty() ? tokens : targets;
    if (!ids.empty()) ids[in.ConsumeIntegralInRange<std::size_t>(0, ids.size() - 1)] = in.ConsumeBool() ? -1 : V;
  }
  bool valid = T >= 1 && T <= c.context_length && (targets.empty() || targets.size() == tokens.size());
  for (auto t : tokens) valid = valid && t >= 0 && t < V;
  for (auto t : targets) valid = valid && t >= 0 && t < V;

  error = model->forward(tokens, targets);
  FUZZ_CHECK(error.empty() == valid, "forward of %d tokens (context %d, vocabulary %d) %s: '%s'", T, c.context_length,
             V, valid ? "failed" : "was accepted", error.c_str());
  if (!valid) return;
  FUZZ_CHECK(model->seq_len() == T && model->logits().size() == static_cast<std::size_t>(T) * V,
             "forward of %d tokens gave %zu logits", T, model->logits().size());
  if (targets.empty()) return;
  FUZZ_CHECK(std::isfinite(model->loss()), "forward gave loss %g without an error (%s, %s, std %g, embedScale %g)",
             double(model->loss()), dec::to_string(c.norm), dec::to_string(c.placement), double(c.init.std),
             double(c.init.embed_scale));
  model->zero_grad();
  error = model->backward();
  FUZZ_CHECK(error.empty(), "backward after a forward with targets failed: %s", error.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  ForwardPlan plan;
  plan.fault = in.ConsumeIntegralInRange(0, 15);
  plan.with_targets = in.ConsumeIntegralInRange(0, 3) != 3;
  const rl::options::Table& table = dec::config_options();
  const Option& init_row = *rl::options::find(table, "init");

  // The rows in table order, then init's: the decoder's names, so every row of the table is reached.
  std::vector<std::pair<std::string, const Option*>> rows;
  for (const Option& o : table)
    if (o.type != Type::object) rows.emplace_back(o.name, &o);
  for (const Option& o : init_row.fields) rows.emplace_back("init." + o.name, &o);

  std::vector<Value> values(rows.size());
  bool js_accepts = true;
  for (std::size_t i = 0; i < rows.size(); ++i)
    js_accepts = pick(in, *rows[i].second, rows[i].first, values[i]) && js_accepts;
  auto value = [&](const char* name) -> const Value& {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].first == name) return values[i];
    FUZZ_CHECK(false, "no row %s", name);
    return values[0];
  };

  dec::Config c;
  c.vocab_size = as_int(value("vocabSize"), c.vocab_size);
  c.d_model = as_int(value("dModel"), c.d_model);
  c.n_heads = as_int(value("nHeads"), c.n_heads);
  c.d_ff = as_int(value("dFF"), c.d_ff);
  c.n_layers = as_int(value("nLayers"), c.n_layers);
  c.context_length = as_int(value("contextLength"), c.context_length);
  c.mlp = as_enum(value("mlp"), c.mlp, dec::parse_mlp_kind);
  c.norm = as_enum(value("norm"), c.norm, dec::parse_norm_kind);
  c.placement = as_enum(value("placement"), c.placement, dec::parse_placement);
  c.residual = as_bool(value("residual"), c.residual);
  c.qk_norm = as_bool(value("qkNorm"), c.qk_norm);
  c.attn_softcap = as_float(value("attnSoftcap"), c.attn_softcap);
  c.final_softcap = as_float(value("finalSoftcap"), c.final_softcap);
  c.pos_embed = as_bool(value("posEmbed"), c.pos_embed);
  c.eps = as_float(value("eps"), c.eps);
  c.init.scheme = as_enum(value("init.scheme"), c.init.scheme, dec::parse_init_scheme);
  c.init.std = as_float(value("init.std"), c.init.std);
  c.init.residual_scaling = as_bool(value("init.residualScaling"), c.init.residual_scaling);
  c.init.embed_scale = as_float(value("init.embedScale"), c.init.embed_scale);
  c.init.zero_qk = as_bool(value("init.zeroQK"), c.init.zero_qk);
  c.init.qk_gain = as_float(value("init.qkGain"), c.init.qk_gain);
  const Value& seed = value("init.seed");
  if (seed.given && js_accepts) c.init.seed = static_cast<std::uint64_t>(seed.number);

  const std::string verdict = dec::validate_config(c);
  if (js_accepts)
    FUZZ_CHECK(verdict.empty() || verdict.rfind("nHeads (", 0) == 0 || verdict.rfind("model too large", 0) == 0,
               "validate_config refused values every row accepts: %s", verdict.c_str());
  if (!verdict.empty()) return 0;
  const std::string row_failure = first_row_failure(c);
  FUZZ_CHECK(row_failure.empty(), "validate_config accepted a config a row refuses: %s", row_failure.c_str());
  FUZZ_CHECK(c.n_heads >= 1 && c.d_model % c.n_heads == 0, "accepted nHeads %d for dModel %d", c.n_heads, c.d_model);
  const std::uint64_t bytes = dec::model_bytes(c);
  FUZZ_CHECK(bytes <= dec::kMaxModelBytes, "accepted a model of %llu bytes", static_cast<unsigned long long>(bytes));
  if (bytes <= kCreateBytes) run_model(in, c, plan);
  return 0;
}
