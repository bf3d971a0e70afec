// Every option table of the public API in one list: the top layer gathers the tables that the decoder, train,
// experiments and kernel layers each own.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/options.hpp"

namespace rl::options {

// Every table, keyed the way lab.describe() returns them: "decoder", "train", "experiments.warmup",
// "kernels.rmsNorm", ...
const std::vector<std::pair<std::string, Table>>& all_tables();

}  // namespace rl::options
