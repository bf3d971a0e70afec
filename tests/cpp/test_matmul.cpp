// The register-tiled matmul (forward and both backward products) against a float64 reference, over shapes that
// hit every tile remainder: rows not a multiple of 4, columns not a multiple of 8 or 4, K = 1.
#include <catch2/catch.hpp>

#include "kernels/matmul.hpp"
#include "test_util.hpp"

using namespace rl;
using namespace rl::test;

namespace {

struct Shape {
  int M, K, N;
};

const Shape kShapes[] = {{1, 1, 1},    {1, 3, 5},     {3, 1, 7},     {4, 8, 8},    {5, 9, 13},    {7, 4, 12},
                         {16, 64, 64}, {16, 64, 256}, {16, 256, 64}, {33, 17, 65}, {12, 100, 11}, {64, 256, 100}};

// sum over k of products, in double; the bound for float32 rounding grows like sqrt(K) times the term size.
double tolerance(int K) { return 4e-7 * std::sqrt(static_cast<double>(K)) * 4.0; }

}  // namespace

TEST_CASE("matmul_forward computes y = x W^T like the float64 reference", "[decoder][matmul]") {
  Rng rng(11);
  for (const Shape& s : kShapes) {
    INFO("M=" << s.M << " K=" << s.K << " N=" << s.N);
    const auto x = random_normal(rng, static_cast<std::size_t>(s.M) * s.K);
    const auto w = random_normal(rng, static_cast<std::size_t>(s.N) * s.K);
    std::vector<float> y(static_cast<std::size_t>(s.M) * s.N, NAN);
    matmul_forward(y.data(), x.data(), w.data(), s.M, s.K, s.N);
    Eigen::ArrayXd want(y.size());
    for (int i = 0; i < s.M; ++i)
      for (int n = 0; n < s.N; ++n) {
        double sum = 0;
        for (int k = 0; k < s.K; ++k) sum += static_cast<double>(x[i * s.K + k]) * w[n * s.K + k];
        want[i * s.N + n] = sum;
      }
    check_close("y", y, want, tolerance(s.K), 1e-6);
  }
}

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

TEST_CASE("matmul_backward accumulates dx += dy W and dW += dy^T x", "[decoder][matmul]") {
  Rng rng(12);
  for (const Shape& s : kShapes) {
    INFO("M=" << s.M << " K=" << s.K << " N=" << s.N);
    const auto x = random_normal(rng, static_cast<std::size_t>(s.M) * s.K);
    const auto w = random_normal(rng, static_cast<std::size_t>(s.N) * s.K);
    const auto dy = random_normal(rng, static_cast<std::size_t>(s.M) * s.N);
    auto dx = random_normal(rng, x.size());  // prior contents must be kept (accumulation)
    auto dw = random_normal(rng, w.size());
    Eigen::ArrayXd want_dx = to_double(dx), want_dw = to_double(dw);
    for (int i = 0; i < s.M; ++i)
      for (int n = 0; n < s.N; ++n)
        for (int k = 0; k < s.K; ++k) {
          want_dx[i * s.K + k] += static_cast<double>(dy[i * s.N + n]) * w[n * s.K + k];
          want_dw[n * s.K + k] += static_cast<double>(dy[i * s.N + n]) * x[i * s.K + k];
        }
    matmul_backward(dx.data(), dw.data(), dy.data(), x.data(), w.data(), s.M, s.K, s.N);
    check_close("dx", dx, want_dx, tolerance(s.N), 1e-6);
    check_close("dw", dw, want_dw, tolerance(s.M), 1e-6);
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

TEST_CASE("matmul references agree with the tiled kernel", "[decoder][matmul]") {
  Rng rng(13);
  const Shape s{9, 21, 19};
  const auto x = random_normal(rng, s.M * s.K), w = random_normal(rng, s.N * s.K), dy = random_normal(rng, s.M * s.N);
  std::vector<float> y(s.M * s.N), y_ref(s.M * s.N);
  matmul_forward(y.data(), x.data(), w.data(), s.M, s.K, s.N);
  matmul_forward_reference(y_ref.data(), x.data(), w.data(), s.M, s.K, s.N);
  check_close("y", y, to_double(y_ref), 1e-5, 1e-5);
  std::vector<float> dx(x.size(), 0.5f), dw(w.size(), -0.25f), dx_ref = dx, dw_ref = dw;
  matmul_backward(dx.data(), dw.data(), dy.data(), x.data(), w.data(), s.M, s.K, s.N);
  matmul_backward_reference(dx_ref.data(), dw_ref.data(), dy.data(), x.data(), w.data(), s.M, s.K, s.N);
  check_close("dx", dx, to_double(dx_ref), 1e-5, 1e-5);
  check_close("dw", dw, to_double(dw_ref), 1e-5, 1e-5);
}
