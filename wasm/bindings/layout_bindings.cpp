// ckpt layout: checkpoint/layout.hpp's table as one JSON text, which web/lib/checkpoint/layout.js parses.
#include <emscripten/bind.h>

#include "checkpoint/layout.hpp"

EMSCRIPTEN_BINDINGS(residual_lab_checkpoint_layout) {
  emscripten::function("describeCheckpointLayout", &rl::checkpoint::layout_json);
}
