// trainStep's option table: names as the JS API spells them, defaults, bounds; validate() checks TrainOptions
// against it before the schedule, AdamW and the divergence monitor check their own invariants.
#pragma once
#include "core/options.hpp"

namespace rl::train {

// lr, warmupSteps, decay, totalSteps, finalRatio, clipNorm, weightDecay, beta1, beta2, adamEps, seqLen, dataSeed.
const options::Table& step_options();

}  // namespace rl::train
