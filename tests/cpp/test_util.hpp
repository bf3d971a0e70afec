// Helpers shared by the kernel tests: seeded random vectors that are the same in every build (std:: random
// distributions differ between libstdc++ and libc++, so native and WASM would test different numbers), and the
// llm.c dev/cuda tolerance check |got - want| <= atol + |want| * rtol against a float64 reference.
#pragma once
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "reference/eigen.hpp"

namespace rl::test {

// The source tree's root (tests/cpp/source_dir.cpp), for reading fixture files.
std::string source_dir();

// Catch2 prints floats with 5 digits by default (1e-6 shows as 0.0f); show them all.
inline const int kFloatDigits = (Catch::StringMaker<float>::precision = 9);

// splitmix64: a tiny, well-mixed generator with a fixed output for a fixed seed.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double normal() {                                                           // Box-Muller
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t state_;
};

inline std::vector<float> random_normal(Rng& rng, std::size_t n, double mean = 0.0, double stddev = 1.0) {
  std::vector<float> v(n);
  for (float& x : v) x = static_cast<float>(mean + stddev * rng.normal());
  return v;
}

inline Eigen::ArrayXd to_double(const float* p, std::size_t n) {
  Eigen::ArrayXd a(static_cast<Eigen::Index>(n));
  for (std::size_t i = 0; i < n; ++i) a[static_cast<Eigen::Index>(i)] = p[i];
  return a;
}
inline Eigen::ArrayXd to_double(const std::vector<float>& v) { return to_double(v.data(), v.size()); }
// dL/dv_i ~ (L(v + h e_i) - L(v - h e_i)) / 2h, with h scaled to |v_i|: central differences, exact to about 1e-9
// on a float64 loss.
inline Eigen::ArrayXd numeric_gradient(const std::function<double(const Eigen::ArrayXd&)>& loss,
                                       const Eigen::ArrayXd& v) {
  Eigen::ArrayXd grad(v.size());
  for (Eigen::Index i = 0; i < v.size(); ++i) {
    const double h = 1e-5 * std::max(1.0, std::fabs(v[i]));
    Eigen::ArrayXd plus = v, minus = v;
    plus[i] += h;
    minus[i] -= h;
    grad[i] = (loss(plus) - loss(minus)) / (2.0 * h);
  }
  return grad;
}
inline Eigen::ArrayXd ones(std::size_t n) { return Eigen::ArrayXd::Ones(static_cast<Eigen::Index>(n)); }
inline Eigen::ArrayXd zeros(std::size_t n) { return Eigen::ArrayXd::Zero(static_cast<Eigen::Index>(n)); }

// Checks every element; on failure reports how many are off, the first one, and the worst |error| / bound.
template <class Got>
void check_close_impl(const std::string& what, const Got& got, const Eigen::ArrayXd& want, double atol, double rtol) {
  int failures = 0;
  Eigen::Index first = -1;
  double worst_ratio = 0.0;
  for (Eigen::Index i = 0; i < want.size(); ++i) {
    const double bound = atol + std::fabs(want[i]) * rtol;
    const double err = std::fabs(static_cast<double>(got[i]) - want[i]);
    const double ratio = err / bound;
    if (!(err <= bound)) {  // also catches NaN
      ++failures;
      if (first < 0) first = i;
    }
    if (ratio > worst_ratio || std::isnan(ratio)) worst_ratio = ratio;
  }
  INFO(what << ": " << failures << " of " << want.size() << " outside atol " << atol << " + rtol " << rtol
            << "; worst |err|/bound " << worst_ratio);
  if (first >= 0) INFO("first at [" << first << "]: got " << got[first] << ", want " << want[first]);
  CHECK(failures == 0);
}
inline void check_close(const std::string& what, const float* got, const Eigen::ArrayXd& want, double atol,
                        double rtol) {
  check_close_impl(what, got, want, atol, rtol);
}
inline void check_close(const std::string& what, const std::vector<float>& got, const Eigen::ArrayXd& want, double atol,
                        double rtol) {
  REQUIRE(static_cast<Eigen::Index>(got.size()) == want.size());
  check_close_impl(what, got.data(), want, atol, rtol);
}
inline void check_close(const std::string& what, const Eigen::ArrayXd& got, const Eigen::ArrayXd& want, double atol,
                        double rtol) {
  REQUIRE(got.size() == want.size());
  check_close_impl(what, got, want, atol, rtol);
}

}  // namespace rl::test
