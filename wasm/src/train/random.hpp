// Seeded randomness for training and the experiments, on top of the decoder's generator (decoder/rng.hpp:
// splitmix64 bits and polar-method normals from IEEE basic operations only, so every stream comes out
// bit-identical natively and in WASM; std::normal_distribution differs between standard libraries).
#pragma once
#include <cstdint>

#include "decoder/rng.hpp"

namespace rl::train {

using Rng = rl::decoder::InitRng;

// Uniform integer in [0, n), n >= 1: Lemire's multiply-shift on the top 32 bits (bias below n / 2^32).
inline uint32_t uniform_below(Rng& rng, uint32_t n) { return uint32_t(((rng.next() >> 32) * uint64_t(n)) >> 32); }

// The seed of stream `stream` (a layer, a run) of an experiment seeded with `seed`: each stream is independent
// of the others and of the order in which they are drawn.
inline uint64_t mix_seed(uint64_t seed, uint64_t stream) {
  Rng mixer(seed ^ (0xd1b54a32d192ed03ULL * (stream + 1)));
  return mixer.next();
}

}  // namespace rl::train
