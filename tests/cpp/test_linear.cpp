// The linear layer (kernels/linear.hpp) against the float64 reference (reference/linear_reference.hpp), over shapes
// that hit every tile remainder of the products under it (rows not a multiple of 4, columns not a multiple of 12,
// 8 or 4, K = 1); its backward against finite differences; the column blocks a checkpoint runs its widened weights
// in; the weight gradient's norm from two Gram matrices.
#include <catch2/catch.hpp>

#include "kernels/linear.hpp"
#include "matmul_shapes.hpp"
#include "reference/linear_reference.hpp"
#include "test_util.hpp"

using namespace rl;
using namespace rl::test;

namespace {

ref::Mat matrix(const std::vector<float>& v, int rows, int cols) {
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(v.data(), rows, cols)
      .cast<double>();
}
Eigen::ArrayXd flat(const ref::Mat& m) { return Eigen::Map<const Eigen::ArrayXd>(m.data(), m.size()); }

}  // namespace

TEST_CASE("linear_forward computes y = x W^T + b like the float64 reference", "[kernels][linear]") {
  Rng rng(11);
  for (const Shape& s : kShapes)
    for (const bool with_bias : {false, true}) {
      INFO("M=" << s.M << " K=" << s.K << " N=" << s.N << " bias " << with_bias);
      const auto x = random_normal(rng, static_cast<std::size_t>(s.M) * s.K);
      const auto w = random_normal(rng, static_cast<std::size_t>(s.N) * s.K);
      const auto b = random_normal(rng, with_bias ? s.N : 0);
      std::vector<float> y(static_cast<std::size_t>(s.M) * s.N, NAN);
      linear_forward(y.data(), x.data(), w.data(), with_bias ? b.data() : nullptr, s.M, s.K, s.N);
      const ref::Mat want = ref::linear_forward(matrix(x, s.M, s.K), matrix(w, s.N, s.K), to_double(b));
      check_close("y", y, flat(want), tolerance(s.K), 1e-6);
    }
}

TEST_CASE("linear_backward accumulates dx += dy W, dW += dy^T x and db += the rows of dy", "[kernels][linear]") {
  Rng rng(12);
  for (const Shape& s : kShapes) {
    INFO("M=" << s.M << " K=" << s.K << " N=" << s.N);
    const auto x = random_normal(rng, static_cast<std::size_t>(s.M) * s.K);
    const auto w = random_normal(rng, static_cast<std::size_t>(s.N) * s.K);
    const auto dy = random_normal(rng, static_cast<std::size_t>(s.M) * s.N);
    auto dx = random_normal(rng, x.size());  // prior contents must be kept (accumulation)
    auto dw = random_normal(rng, w.size());
    auto db = random_normal(rng, s.N);
    const Eigen::ArrayXd before_dx = to_double(dx), before_dw = to_double(dw), before_db = to_double(db);
    const ref::LinearGrads want = ref::linear_backward(matrix(dy, s.M, s.N), matrix(x, s.M, s.K), matrix(w, s.N, s.K));
    linear_backward(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), s.M, s.K, s.N);
    check_close("dx", dx, before_dx + flat(want.dx), tolerance(s.N), 1e-6);
    check_close("dw", dw, before_dw + flat(want.dw), tolerance(s.M), 1e-6);
    check_close("db", db, before_db + want.db, tolerance(s.M), 1e-6);
    // a gradient not asked for (nullptr) is skipped, the others still computed
    std::vector<float> only_db(s.N, 0.0f);
    linear_backward(nullptr, nullptr, only_db.data(), dy.data(), nullptr, nullptr, s.M, s.K, s.N);
    check_close("db alone", only_db, want.db, tolerance(s.M), 1e-6);
  }
}

TEST_CASE("linear layer gradients match finite differences", "[kernels][linear][gradcheck]") {
  const Shape s = GENERATE(Shape{1, 1, 1}, Shape{3, 5, 7}, Shape{6, 4, 13});
  CAPTURE(s.M, s.K, s.N);
  Rng rng(7100 + s.N);
  const auto x = random_normal(rng, static_cast<std::size_t>(s.M) * s.K),
             w = random_normal(rng, std::size_t(s.N) * s.K);
  const auto b = random_normal(rng, s.N), r = random_normal(rng, static_cast<std::size_t>(s.M) * s.N);
  const ref::Mat X = matrix(x, s.M, s.K), W = matrix(w, s.N, s.K), R = matrix(r, s.M, s.N);
  const Eigen::ArrayXd B = to_double(b);
  // L = sum(r * (x W^T + b)); each argument varied in turn
  const auto loss = [&](const ref::Mat& x_, const ref::Mat& w_, const Eigen::ArrayXd& b_) {
    return (R.array() * ref::linear_forward(x_, w_, b_).array()).sum();
  };
  const auto as = [](const Eigen::ArrayXd& v, int rows, int cols) {
    return ref::Mat(Eigen::Map<const ref::Mat>(v.data(), rows, cols));
  };
  const Eigen::ArrayXd fd_dx = numeric_gradient([&](const auto& v) { return loss(as(v, s.M, s.K), W, B); }, flat(X));
  const Eigen::ArrayXd fd_dw = numeric_gradient([&](const auto& v) { return loss(X, as(v, s.N, s.K), B); }, flat(W));
  const Eigen::ArrayXd fd_db = numeric_gradient([&](const auto& v) { return loss(X, W, v); }, B);

  const ref::LinearGrads want = ref::linear_backward(R, X, W);
  check_close("reference dx", flat(want.dx), fd_dx, 1e-7, 1e-6);
  check_close("reference dw", flat(want.dw), fd_dw, 1e-7, 1e-6);
  check_close("reference db", want.db, fd_db, 1e-7, 1e-6);

  std::vector<float> dx(x.size(), 0.0f), dw(w.size(), 0.0f), db(b.size(), 0.0f);
  linear_backward(dx.data(), dw.data(), db.data(), r.data(), x.data(), w.data(), s.M, s.K, s.N);
  check_close("dx", dx, fd_dx, 2e-5, 2e-5);
  check_close("dw", dw, fd_dw, 2e-5, 2e-5);
  check_close("db", db, fd_db, 2e-5, 2e-5);
}

TEST_CASE("the linear layer on blocks of W's rows (row stride ldy) equals it on the whole W and writes nothing else",
          "[kernels][linear]") {
  Rng rng(16);
  for (const Shape& s : kShapes) {
    INFO("M=" << s.M << " K=" << s.K << " N=" << s.N);
    const auto x = random_normal(rng, static_cast<std::size_t>(s.M) * s.K);
    const auto w = random_normal(rng, static_cast<std::size_t>(s.N) * s.K);
    const auto b = random_normal(rng, s.N), dy = random_normal(rng, static_cast<std::size_t>(s.M) * s.N);
    std::vector<float> whole(static_cast<std::size_t>(s.M) * s.N), blocks(whole.size());
    std::vector<float> dx_whole(x.size(), 0.0f), dx_blocks(x.size(), 0.0f), db_whole(s.N, 0.0f), db_blocks(s.N, 0.0f);
    linear_forward(whole.data(), x.data(), w.data(), b.data(), s.M, s.K, s.N);
    linear_backward(dx_whole.data(), nullptr, db_whole.data(), dy.data(), x.data(), w.data(), s.M, s.K, s.N);
    // 4 rows of W at a time, as checkpoint/'s forward widens them; a guard column either side of each block
    const int block = 4;
    for (int n = 0; n < s.N; n += block) {
      const int rows = std::min(block, s.N - n);
      const float left = n > 0 ? blocks[n - 1] : 0.0f;
      linear_forward(blocks.data() + n, x.data(), w.data() + std::size_t(n) * s.K, b.data() + n, s.M, s.K, rows, s.N);
      if (n > 0) REQUIRE(blocks[n - 1] == left);
      linear_backward(dx_blocks.data(), nullptr, db_blocks.data() + n, dy.data() + n, nullptr,
                      w.data() + std::size_t(n) * s.K, s.M, s.K, rows, s.N);
    }
    // the same dot products: bit for bit
    for (std::size_t i = 0; i < whole.size(); ++i) REQUIRE(blocks[i] == whole[i]);
    // dx summed over n in another grouping: equal to float32 rounding
    check_close("dx by blocks", dx_blocks, to_double(dx_whole), tolerance(s.N), 1e-6);
    for (int n = 0; n < s.N; ++n) REQUIRE(db_blocks[n] == db_whole[n]);
  }
}

TEST_CASE("linear references agree with the tiled kernels", "[kernels][linear]") {
  Rng rng(13);
  const Shape s{9, 21, 19};
  const auto x = random_normal(rng, s.M * s.K), w = random_normal(rng, s.N * s.K), dy = random_normal(rng, s.M * s.N);
  const auto b = random_normal(rng, s.N);
  std::vector<float> y(s.M * s.N), y_ref(s.M * s.N);
  linear_forward(y.data(), x.data(), w.data(), b.data(), s.M, s.K, s.N);
  linear_forward_reference(y_ref.data(), x.data(), w.data(), b.data(), s.M, s.K, s.N);
  check_close("y", y, to_double(y_ref), 1e-5, 1e-5);
  std::vector<float> dx(x.size(), 0.5f), dw(w.size(), -0.25f), db(b.size(), 0.125f), dx_ref = dx, dw_ref = dw,
                                                                                     db_ref = db;
  linear_backward(dx.data(), dw.data(), db.data(), dy.data(), x.data(), w.data(), s.M, s.K, s.N);
  linear_backward_reference(dx_ref.data(), dw_ref.data(), db_ref.data(), dy.data(), x.data(), w.data(), s.M, s.K, s.N);
  check_close("dx", dx, to_double(dx_ref), 1e-5, 1e-5);
  check_close("dw", dw, to_double(dw_ref), 1e-5, 1e-5);
  check_close("db", db, to_double(db_ref), 1e-5, 1e-5);
}

TEST_CASE("||dW||_F^2 from two Gram matrices equals the sum of squares of dW = dy^T x", "[kernels][linear]") {
  Rng rng(21);
  for (const Shape& s : {Shape{6, 7, 5}, Shape{16, 64, 33}}) {
    INFO("M=" << s.M << " K=" << s.K << " N=" << s.N);
    const auto dy = random_normal(rng, std::size_t(s.M) * s.N), x = random_normal(rng, std::size_t(s.M) * s.K);
    const double want =
        ref::linear_backward(matrix(dy, s.M, s.N), matrix(x, s.M, s.K), ref::Mat(s.N, s.K)).dw.squaredNorm();
    REQUIRE(linear_weight_grad_square(dy.data(), x.data(), s.M, s.K, s.N) == Approx(want).epsilon(1e-6));
    // and the dW that linear_backward forms
    std::vector<float> dw(std::size_t(s.N) * s.K, 0.0f);
    linear_backward(nullptr, dw.data(), nullptr, dy.data(), x.data(), nullptr, s.M, s.K, s.N);
    double formed = 0;
    for (float v : dw) formed += double(v) * v;
    REQUIRE(formed == Approx(want).epsilon(1e-6));
  }
}
