// Eigen, included once for all references and tests, and the references' vector type.
// GCC 12 with -march=native reports a false "may be used uninitialized" inside Eigen's AVX-512 reductions;
// the diagnostic is tied to the location of the intrinsics header, so it is silenced around the include only.
#pragma once
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Dense>
#pragma GCC diagnostic pop
#else
#include <Eigen/Dense>
#endif

namespace rl::ref {
using Vec = Eigen::ArrayXd;  // one row, float64
}  // namespace rl::ref
