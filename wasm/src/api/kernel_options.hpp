// The kernels' option tables (the trailing options object of lab.rmsNorm(x, g, { eps, ... }) and its kin).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/options.hpp"

namespace rl::api {

// "rmsNorm", "rmsNormBackward", "rmsNormSteps", "layerNorm", "layerNormBackward", "layerNormSteps",
// "dynamicTanh", "dynamicTanhBackward", "dynamicTanhSteps".
const std::vector<std::pair<std::string, options::Table>>& kernel_option_tables();
// The shared rows: "eps", "weightOffset", "precision", "alpha".
const options::Option& kernel_option(const char* name);

}  // namespace rl::api
