#include "checkpoint/layout.hpp"

#include <array>
#include <cctype>
#include <string_view>
#include <type_traits>

#include "checkpoint/backward.hpp"

namespace rl::checkpoint {
namespace {

// Each table lists its enum's values beside their names; the static_asserts below hold the order to the enum.
template <typename E>
struct Named {
  E value;
  std::string_view name;
};

constexpr std::array<Named<Slot>, kSlotCount> kSlots{{
    {kAttnNormBefore, "attnNormBefore"},
    {kAttnNormAfter, "attnNormAfter"},
    {kMlpNormBefore, "mlpNormBefore"},
    {kMlpNormAfter, "mlpNormAfter"},
    {kQNorm, "qNorm"},
    {kKNorm, "kNorm"},
    {kQ, "q"},
    {kK, "k"},
    {kV, "v"},
    {kO, "o"},
    {kQBias, "qBias"},
    {kKBias, "kBias"},
    {kVBias, "vBias"},
    {kOBias, "oBias"},
    {kGate, "gate"},
    {kUp, "up"},
    {kDown, "down"},
}};
constexpr std::array<Named<HfPlacement>, 3> kPlacements{{
    {HfPlacement::pre, "pre"},
    {HfPlacement::sandwich, "sandwich"},
    {HfPlacement::olmo2, "olmo2"},
}};
constexpr std::array<Named<QkNorm>, 3> kQkNorms{{
    {QkNorm::none, "none"},
    {QkNorm::per_head, "per_head"},
    {QkNorm::whole, "whole"},
}};
constexpr std::array<Named<Activation>, 2> kActivations{{
    {Activation::silu, "silu"},
    {Activation::gelu_tanh, "gelu_tanh"},
}};
// LayerObservations::norm_inputs' first four rows: N1 .. N4 of forward.hpp's layer comment.
constexpr std::array<Slot, 4> kObservedNorms{kAttnNormBefore, kAttnNormAfter, kMlpNormBefore, kMlpNormAfter};

template <typename E, std::size_t N>
constexpr bool in_order(const std::array<Named<E>, N>& table) {
  for (std::size_t i = 0; i < N; ++i)
    if (static_cast<std::size_t>(table[i].value) != i) return false;
  return true;
}
static_assert(in_order(kSlots), "kSlots must list checkpoint::Slot in its order");
static_assert(in_order(kPlacements), "kPlacements must list checkpoint::HfPlacement in its order");
static_assert(in_order(kQkNorms), "kQkNorms must list checkpoint::QkNorm in its order");
static_assert(in_order(kActivations), "kActivations must list checkpoint::Activation in its order");

template <typename T>
T from_float(float v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else if constexpr (std::is_enum_v<T>) return static_cast<T>(static_cast<int>(v));
  else return static_cast<T>(v);
}

// A JSON array of the names.
void append_names(std::string& out, const std::string_view* names, std::size_t n) {
  out += '[';
  for (std::size_t i = 0; i < n; ++i) {
    if (i) out += ',';
    out += '"';
    out += names[i];
    out += '"';
  }
  out += ']';
}

template <typename E, std::size_t N>
void append_names(std::string& out, const std::array<Named<E>, N>& table) {
  std::array<std::string_view, N> names;
  for (std::size_t i = 0; i < N; ++i) names[i] = table[i].name;
  append_names(out, names.data(), N);
}

// "key":value, the value quoted when `quote`.
void append_field(std::string& out, std::string_view key, std::string_view value, bool quote) {
  out += '"';
  out += key;
  out += "\":";
  if (quote) out += '"';
  out += value;
  if (quote) out += '"';
}

struct DtypeRow {
  std::string_view name;
  int code, values, bytes;
};
// GGUF's and safetensors' names: upper case (bf16 -> BF16, q8_0 -> Q8_0)
constexpr DtypeRow kDtypeRows[] = {
#define RL_DTYPE_ROW(name, code, values, bytes) {#name, code, values, bytes},
    RL_CHECKPOINT_DTYPES(RL_DTYPE_ROW)
#undef RL_DTYPE_ROW
};
static_assert(std::size(kDtypeRows) == kDtypeCount, "every dtype has a row");

struct SpecRow {
  std::string_view name, kind;
};
constexpr SpecRow kSpecRows[] = {
#define RL_SPEC_ROW(field, kind) {#field, #kind},
    RL_LAYER_SPEC_FIELDS(RL_SPEC_ROW)
#undef RL_SPEC_ROW
};

}  // namespace

LayerSpec read_layer_spec(const float* p) {
  LayerSpec s;
  int i = 0;
#define RL_READ_FIELD(field, kind) s.field = from_float<decltype(s.field)>(p[i++]);
  RL_LAYER_SPEC_FIELDS(RL_READ_FIELD)
#undef RL_READ_FIELD
  return s;
}

std::string layout_json() {
  std::string out = "{\"slots\":";
  append_names(out, kSlots);
  out += ",\"dtypes\":{";
  for (const DtypeRow& row : kDtypeRows) {
    if (&row != kDtypeRows) out += ',';
    std::string name(row.name);
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    out += '"' + name + "\":{";
    append_field(out, "code", std::to_string(row.code), false);
    out += ',';
    append_field(out, "blockValues", std::to_string(row.values), false);
    out += ',';
    append_field(out, "blockBytes", std::to_string(row.bytes), false);
    out += '}';
  }
  out += "},\"placements\":";
  append_names(out, kPlacements);
  out += ",\"qkNorms\":";
  append_names(out, kQkNorms);
  out += ",\"activations\":";
  append_names(out, kActivations);
  out += ",\"spec\":{\"floats\":" + std::to_string(kSpecFloats) + ",\"fields\":[";
  for (int i = 0; i < kSpecFloats; ++i) {
    if (i) out += ',';
    out += '{';
    append_field(out, "name", kSpecRows[i].name, true);
    out += ',';
    append_field(out, "offset", std::to_string(i), false);
    out += ',';
    append_field(out, "kind", kSpecRows[i].kind, true);
    out += '}';
  }
  out += "]},\"observedNorms\":";
  std::array<std::string_view, kObservedNorms.size()> observed;
  for (std::size_t i = 0; i < kObservedNorms.size(); ++i) observed[i] = kSlots[kObservedNorms[i]].name;
  append_names(out, observed.data(), observed.size());
  out += ",\"panelRows\":" + std::to_string(kPanelRows);
  out += ",\"backwardPanelRows\":" + std::to_string(kBackwardPanelRows);
  out += ",\"headStats\":" + std::to_string(kHeadStats) + "}";
  return out;
}

}  // namespace rl::checkpoint
