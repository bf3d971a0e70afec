// The decoder config's option table (and its init's): names as the JS API spells them, defaults, bounds.
#pragma once
#include "core/options.hpp"

namespace rl::decoder {

// vocabSize, dModel, nHeads, dFF, nLayers, contextLength, mlp, norm, placement, residual, qkNorm, attnSoftcap,
// finalSoftcap, posEmbed, eps, init { scheme, std, residualScaling, embedScale, zeroQK, qkGain, seed }.
const options::Table& config_options();

}  // namespace rl::decoder
