// The one random generator (initialisation, training batches, experiments), bit-identical natively, in WASM and
// in tests/fixtures/decoder/make_fixtures.py: splitmix64 for bits, Marsaglia's polar method for normals, and a
// logarithm built from frexp and a fixed atanh series. Only +, -, *, / and sqrt are used (IEEE correctly rounded
// everywhere, no libm whose last bit could differ between glibc and Emscripten's musl); std::normal_distribution
// differs between standard libraries.
#pragma once
#include <cmath>
#include <cstdint>
#include <string_view>

namespace rl {

// ln(x) for finite x > 0: x = m * 2^e with m in [sqrt(1/2), sqrt(2)), ln m = 2 atanh(t), t = (m - 1) / (m + 1),
// |t| < 0.172, so 12 odd terms of the series reach double precision.
inline double portable_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1)
  if (m < 0.7071067811865476) {
    m *= 2.0;
    e -= 1;
  }
  const double t = (m - 1.0) / (m + 1.0), t2 = t * t;
  double series = 0.0;
  for (int k = 23; k >= 1; k -= 2) series = series * t2 + 1.0 / k;  // sum t^(2j) / (2j + 1), Horner
  return 2.0 * t * series + e * 0.6931471805599453;
}

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  // Standard normal, polar method: (u, v) uniform in the unit disc, s = u^2 + v^2, u * sqrt(-2 ln s / s).
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    for (;;) {
      const double u = 2.0 * uniform() - 1.0, v = 2.0 * uniform() - 1.0, s = u * u + v * v;
      if (s <= 0.0 || s >= 1.0) continue;
      const double scale = std::sqrt(-2.0 * portable_log(s) / s);
      spare_ = v * scale;
      has_spare_ = true;
      return u * scale;
    }
  }

 private:
  std::uint64_t state_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// Seed of one tensor's stream: the model seed mixed with the FNV-1a hash of the tensor's name, so a tensor's
// initial values depend only on (seed, name, shape, init options), not on which other tensors the config has.
inline std::uint64_t tensor_seed(std::uint64_t seed, std::string_view name) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char ch : name) h = (h ^ static_cast<unsigned char>(ch)) * 0x100000001b3ull;
  Rng mix(seed ^ h);
  return mix.next();
}

// Uniform integer in [0, n), n >= 1: Lemire's multiply-shift on the top 32 bits (bias below n / 2^32).
inline std::uint32_t uniform_below(Rng& rng, std::uint32_t n) {
  return std::uint32_t(((rng.next() >> 32) * std::uint64_t(n)) >> 32);
}

// The seed of stream `stream` (a layer, a run) of an experiment seeded with `seed`: each stream is independent
// of the others and of the order in which they are drawn.
inline std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t stream) {
  Rng mixer(seed ^ (0xd1b54a32d192ed03ULL * (stream + 1)));
  return mixer.next();
}

}  // namespace rl
