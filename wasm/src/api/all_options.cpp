#include "api/all_options.hpp"

#include <algorithm>

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

std::string describe_json() {
  // The groups ("experiments", "kernels") in the order they first appear, each with its tables.
  std::vector<std::pair<std::string, std::vector<const std::pair<std::string, Table>*>>> groups;
  std::string out = "{";
  for (const auto& entry : all_tables()) {
    const std::size_t dot = entry.first.find('.');
    if (dot == std::string::npos) {
      if (out.size() > 1) out += ',';
      out += '"' + entry.first + "\":" + to_json(entry.second);
      continue;
    }
    const std::string group = entry.first.substr(0, dot);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == group; });
    if (it == groups.end()) it = groups.insert(groups.end(), {group, {}});
    it->second.push_back(&entry);
  }
  for (const auto& [group, tables] : groups) {
    if (out.size() > 1) out += ',';
    out += '"' + group + "\":{";
    for (std::size_t i = 0; i < tables.size(); ++i) {
      if (i) out += ',';
      out += '"' + tables[i]->first.substr(group.size() + 1) + "\":" + to_json(tables[i]->second);
    }
    out += '}';
  }
  return out + '}';
}

}  // namespace rl::options
