#include "api/all_options.hpp"

#include "api/kernel_options.hpp"
#include "decoder/config_options.hpp"
#include "experiments/options.hpp"
#include "train/options.hpp"

namespace rl::options {

const std::vector<std::pair<std::string, Table>>& all_tables() {
  static const std::vector<std::pair<std::string, Table>> tables = [] {
    std::vector<std::pair<std::string, Table>> t = {{"decoder", decoder::config_options()},
                                                    {"train", train::step_options()}};
    for (const auto& [name, table] : experiments::option_tables()) t.emplace_back("experiments." + name, table);
    for (const auto& [name, table] : api::kernel_option_tables()) t.emplace_back("kernels." + name, table);
    return t;
  }();
  return tables;
}

}  // namespace rl::options
