// The register-tiled products (matmul_nt, gemm) against a float64 reference, over shapes that hit every tile
// remainder: rows not a multiple of 4, columns not a multiple of 8 or 4, K = 1. The linear layer on them:
// test_linear.cpp.
#include <catch2/catch.hpp>

#include "kernels/matmul.hpp"
#include "matmul_shapes.hpp"
#include "test_util.hpp"

using namespace rl;
using namespace rl::test;

TEST_CASE("matmul_nt computes y = x W^T on strided views and writes nothing outside y's view", "[decoder][matmul]") {
  Rng rng(15);
  for (const Shape& s : kShapes) {
    INFO("M=" << s.M << " K=" << s.K << " N=" << s.N);
    // each operand a window of a wider matrix, as attention reads one head's columns of [T, d]
    const int ldx = s.K + 3, ldw = s.K + 5, ldy = s.N + 2;
    const auto x = random_normal(rng, static_cast<std::size_t>(s.M) * ldx);
    const auto w = random_normal(rng, static_cast<std::size_t>(s.N) * ldw);
    std::vector<float> y(static_cast<std::size_t>(s.M) * ldy, -7.0f);
    matmul_nt(y.data(), ldy, x.data() + 1, ldx, w.data() + 2, ldw, s.M, s.K, s.N);
    Eigen::ArrayXd want(static_cast<Eigen::Index>(s.M) * s.N);
    std::vector<float> got(want.size());
    for (int i = 0; i < s.M; ++i)
      for (int n = 0; n < s.N; ++n) {
        double sum = 0;
        for (int k = 0; k < s.K; ++k) sum += static_cast<double>(x[i * ldx + 1 + k]) * w[n * ldw + 2 + k];
        want[i * s.N + n] = sum;
        got[static_cast<std::size_t>(i) * s.N + n] = y[static_cast<std::size_t>(i) * ldy + n];
      }
    check_close("y", got, want, tolerance(s.K), 1e-6);
    for (int i = 0; i < s.M; ++i)
      for (int n = s.N; n < ldy; ++n) CHECK(y[static_cast<std::size_t>(i) * ldy + n] == -7.0f);
  }
}

TEST_CASE("gemm computes C = A B and C += A B with a transposed A view", "[decoder][matmul]") {
  Rng rng(14);
  for (const Shape& s : kShapes) {
    INFO("M=" << s.M << " K=" << s.K << " N=" << s.N);
    const auto a_t = random_normal(rng, static_cast<std::size_t>(s.K) * s.M);  // A stored as [K, M]
    const auto b = random_normal(rng, static_cast<std::size_t>(s.K) * s.N);
    auto c = random_normal(rng, static_cast<std::size_t>(s.M) * s.N);
    Eigen::ArrayXd want(c.size());
    for (int i = 0; i < s.M; ++i)
      for (int n = 0; n < s.N; ++n) {
        double sum = 0;
        for (int k = 0; k < s.K; ++k) sum += static_cast<double>(a_t[k * s.M + i]) * b[k * s.N + n];
        want[i * s.N + n] = sum;
      }
    gemm(c.data(), s.N, a_t.data(), 1, s.M, b.data(), s.N, s.M, s.N, s.K, false);
    check_close("C = A B", c, want, tolerance(s.K), 1e-6);
    gemm(c.data(), s.N, a_t.data(), 1, s.M, b.data(), s.N, s.M, s.N, s.K, true);
    check_close("C += A B", c, 2.0 * want, 2 * tolerance(s.K), 1e-6);
  }
}
