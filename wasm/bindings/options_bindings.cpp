// lab.describe(): every option table (api/all_options.hpp) as one JSON text, which web/lib/residual-lab.js parses.
#include <emscripten/bind.h>

#include "api/all_options.hpp"

EMSCRIPTEN_BINDINGS(residual_lab_options) { emscripten::function("describeOptions", &rl::options::describe_json); }
