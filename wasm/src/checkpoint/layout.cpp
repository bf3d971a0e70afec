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
constexpr std::array<Named<Placement>, 3> kPlacements{{
    {Placement::pre, "pre"},
    {Placement::sandwich, "sandwich"},
    {Placement::olmo2, "olmo2"},
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
static_assert(in_order(kPlacements), "kPlacements must list checkpoint::Placement in its order");
static_assert(in_order(kQkNorms), "kQkNorms must list checkpoint::QkNorm in its order");
static_assert(in_order(kActivations), "kActivations must list checkpoint::Activation in its order");

template <typename T>
T from_float(float v) {
  if constexpr (std::is_same_v<T, float>) return v;
  else if constexpr (std::is_enum_v<T>) return static_cast<T>(static_cast<int>(v));
  else return static_cast<T>(v);
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

template <typename E, std::size_t N>
std::string names(const std::array<Named<E>, N>& table) {
  std::string out = "[";
  for (std::size_t i = 0; i < N; ++i) out += (i ? "," : "") + quoted(table[i].name);
  return out + "]";
}

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

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
  std::string dtypes = "{";
#define RL_DTYPE_JSON(name, code, values, bytes)                                                           \
  dtypes += (dtypes.size() > 1 ? "," : "") + quoted(upper(#name)) + ":{\"code\":" + std::to_string(code) + \
            ",\"blockValues\":" + std::to_string(values) + ",\"blockBytes\":" + std::to_string(bytes) + "}";
  RL_CHECKPOINT_DTYPES(RL_DTYPE_JSON)
#undef RL_DTYPE_JSON
  dtypes += "}";

  std::string spec = "[";
  int offset = 0;
#define RL_SPEC_JSON(field, kind)                                                                              \
  spec += (offset ? "," : "") + std::string("{\"name\":\"" #field "\",\"offset\":") + std::to_string(offset) + \
          ",\"kind\":\"" #kind "\"}";                                                                          \
  ++offset;
  RL_LAYER_SPEC_FIELDS(RL_SPEC_JSON)
#undef RL_SPEC_JSON
  spec += "]";

  std::string observed = "[";
  for (std::size_t i = 0; i < kObservedNorms.size(); ++i)
    observed += (i ? "," : "") + quoted(kSlots[kObservedNorms[i]].name);
  observed += "]";

  return "{\"slots\":" + names(kSlots) + ",\"dtypes\":" + dtypes + ",\"placements\":" + names(kPlacements) +
         ",\"qkNorms\":" + names(kQkNorms) + ",\"activations\":" + names(kActivations) +
         ",\"spec\":{\"floats\":" + std::to_string(kSpecFloats) + ",\"fields\":" + spec + "}" +
         ",\"observedNorms\":" + observed + ",\"panelRows\":" + std::to_string(kPanelRows) +
         ",\"backwardPanelRows\":" + std::to_string(kBackwardPanelRows) +
         ",\"headStats\":" + std::to_string(kHeadStats) + "}";
}

}  // namespace rl::checkpoint
