// The experiments' option tables. A decoder experiment takes the decoder config's own options (same names,
// same meanings, experiment-sized bounds and defaults) plus its own; options an experiment sets itself (the
// placements it compares, the depths it sweeps) are not in its table.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/options.hpp"

namespace rl::experiments {

// "gradientDecay", "initGradients", "residualGrowth", "warmup", "qkLogitGrowth", "initScaling".
const std::vector<std::pair<std::string, options::Table>>& option_tables();
const options::Table& option_table(const std::string& experiment);

// "" when a list option has an allowed length and every entry fits the row: "depths[3] must be ...".
std::string check_length(const options::Table& table, const std::string& name, std::size_t length);
template <class T>
std::string check_items(const options::Table& table, const std::string& name, const std::vector<T>& values) {
  if (std::string e = check_length(table, name, values.size()); !e.empty()) return e;
  const options::Option& row = *options::find(table, name);
  for (std::size_t i = 0; i < values.size(); ++i)
    if (std::string e = options::check_number(row, double(values[i]), name + "[" + std::to_string(i) + "]"); !e.empty())
      return e;
  return "";
}

// The model rows every decoder experiment shares, with the bounds that keep a run within seconds in a browser.
const options::Table& model_rows();

}  // namespace rl::experiments
