// lab.describe(): every option table (api/all_options.hpp) as one JSON text, which web/lib/residual-lab.js parses.
#include <emscripten/bind.h>

#include <string>

#include "api/all_options.hpp"

namespace {

std::string describe_options() { return rl::options::to_json(rl::options::all_tables()); }

}  // namespace

EMSCRIPTEN_BINDINGS(residual_lab_options) { emscripten::function("describeOptions", &describe_options); }
