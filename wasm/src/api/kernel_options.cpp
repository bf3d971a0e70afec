#include "api/kernel_options.hpp"

namespace rl::api {
namespace {

using namespace options;

const Table& rows() {
  static const Table table = {
      number("eps", 1e-5, 0, kInfinity, "added to the mean square (RMSNorm) or the variance (LayerNorm)"),
      number("weightOffset", 0, -kInfinity, kInfinity,
             "the multiplier is weightOffset + g: 0 is Llama's x / rms * g, 1 is Gemma's x / rms * (1 + g)"),
      number("alpha", 0.5, -kInfinity, kInfinity, "DyT's scale inside the tanh: y = gamma * tanh(alpha * x) + beta"),
      choice("precision", "fp32", {"fp32", "bf16"},
             "bf16 emulates a pipeline without float32 upcasting (every value and partial sum in bfloat16)"),
  };
  return table;
}

Table pick(std::initializer_list<const char*> names) {
  Table t;
  for (const char* n : names) t.push_back(kernel_option(n));
  return t;
}

}  // namespace

const Option& kernel_option(const char* name) { return *find(rows(), name); }

const std::vector<std::pair<std::string, Table>>& kernel_option_tables() {
  static const std::vector<std::pair<std::string, Table>> tables = {
      {"rmsNorm", pick({"eps", "weightOffset", "precision"})},
      {"rmsNormBackward", pick({"eps", "weightOffset"})},
      {"rmsNormSteps", pick({"eps", "weightOffset"})},
      {"layerNorm", pick({"eps"})},
      {"layerNormBackward", pick({"eps"})},
      {"layerNormSteps", pick({"eps"})},
      {"dynamicTanh", pick({"alpha"})},
      {"dynamicTanhBackward", pick({"alpha"})},
      {"dynamicTanhSteps", pick({"alpha"})},
  };
  return tables;
}

}  // namespace rl::api
