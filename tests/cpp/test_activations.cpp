// softcap and softmax, forward and backward, against the float64 reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "kernels/activations.hpp"
#include "reference/activations_reference.hpp"
#include "test_util.hpp"

using rl::test::check_close;
using rl::test::random_normal;
using rl::test::Rng;
using rl::test::to_double;

TEST_CASE("softcap forward and backward match float64 reference", "[activations][softcap]") {
  const int n = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  const float cap = GENERATE(1.0f, 30.0f, 50.0f);
  CAPTURE(n, cap);
  Rng rng(5000 + n);
  const std::vector<float> x = random_normal(rng, n, 0.0, 40.0), dy = random_normal(rng, n);
  std::vector<float> y(n);
  rl::softcap_forward(y.data(), x.data(), n, cap);
  check_close("y", y, rl::ref::softcap_forward(to_double(x), cap), 1e-6 * cap, 1e-6);
  const std::vector<float> dx0 = random_normal(rng, n);
  std::vector<float> dx = dx0;
  rl::softcap_backward(dx.data(), dy.data(), x.data(), n, cap);
  check_close("dx (accumulated)", dx, to_double(dx0) + rl::ref::softcap_backward(to_double(dy), to_double(x), cap),
              2e-6, 2e-6);
}

TEST_CASE("softcap is about x for small x and never exceeds the cap", "[activations][softcap]") {
  const std::vector<float> x = {0.01f, -0.5f, 1e4f, -1e30f};
  std::vector<float> y(4);
  rl::softcap_forward(y.data(), x.data(), 4, 30.0f);
  CHECK(y[0] == Approx(0.01f).epsilon(1e-6));
  CHECK(y[1] == Approx(-0.5f).epsilon(1e-3));
  CHECK(y[2] == 30.0f);
  CHECK(y[3] == -30.0f);
}

TEST_CASE("softmax forward and backward match float64 reference, rows > 1", "[activations][softmax]") {
  const int n = GENERATE(1, 3, 4, 7, 33, 4096, 5003);
  CAPTURE(n);
  Rng rng(6000 + n);
  const int rows = 3;
  // large logits: without subtracting the max, exp would overflow
  std::vector<float> x = random_normal(rng, std::size_t(rows) * n, 0.0, 5.0);
  for (float& v : x) v += 500.0f;
  const std::vector<float> dy = random_normal(rng, x.size());
  std::vector<float> y(x.size());
  rl::softmax_forward(y.data(), x.data(), rows, n);
  const std::vector<float> dx0 = random_normal(rng, x.size());
  std::vector<float> dx = dx0;
  rl::softmax_backward(dx.data(), dy.data(), y.data(), rows, n);
  for (int r = 0; r < rows; ++r) {
    const Eigen::ArrayXd want_y = rl::ref::softmax_forward(to_double(x.data() + r * n, n));
    check_close("y row " + std::to_string(r), y.data() + r * n, want_y, 1e-7, 1e-5);
    CHECK(to_double(y.data() + r * n, n).sum() == Approx(1.0).epsilon(1e-5));
    check_close("dx row " + std::to_string(r), dx.data() + r * n,
                to_double(dx0.data() + r * n, n) + rl::ref::softmax_backward(to_double(dy.data() + r * n, n), want_y),
                1e-6, 1e-5);
  }
}
