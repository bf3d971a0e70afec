// AdamW against hand-computed steps, the learning-rate schedule, and gradient clipping.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "train/adamw.hpp"
#include "train/schedule.hpp"

using namespace rl::train;

TEST_CASE("AdamW matches two steps computed by hand", "[train][adamw]") {
  AdamWConfig config;  // beta1 0.9, beta2 0.999, eps 1e-8
  config.weight_decay = 0.01;
  AdamW opt(3, config);
  REQUIRE(opt.set_decay_mask({1, 1, 0}));
  // p[0]: gradient 0.5 then -0.2.  p[1]: decays only (zero gradient).  p[2]: no decay, zero gradient.
  std::vector<float> p = {1.0f, 2.0f, 3.0f};
  const double lr = 0.1;

  std::vector<float> g1 = {0.5f, 0.0f, 0.0f};
  opt.step(p.data(), g1.data(), lr);
  // t = 1: p = 1 * (1 - 0.1 * 0.01) = 0.999;  m = 0.1 * 0.5 = 0.05;  v = 0.001 * 0.25 = 0.00025
  //   m^ = 0.05 / (1 - 0.9) = 0.5;  v^ = 0.00025 / (1 - 0.999) = 0.25;  update = 0.1 * 0.5 / (0.5 + 1e-8) = 0.099999998
  //   p = 0.999 - 0.099999998 = 0.899000002   (Adam's first step moves by lr in the gradient's sign)
  CHECK(p[0] == Approx(0.899000002).epsilon(2e-7));
  CHECK(p[1] == Approx(2.0 * 0.999).epsilon(1e-7));
  CHECK(p[2] == 3.0f);

  std::vector<float> g2 = {-0.2f, 0.0f, 0.0f};
  opt.step(p.data(), g2.data(), lr);
  // t = 2: p = 0.899000002 * 0.999 = 0.898101002;  m = 0.9 * 0.05 + 0.1 * (-0.2) = 0.025
  //   v = 0.999 * 0.00025 + 0.001 * 0.04 = 0.00028975;  m^ = 0.025 / 0.19 = 0.131578947
  //   v^ = 0.00028975 / 0.001999 = 0.144947474, sqrt = 0.380720;  update = 0.1 * 0.131579 / 0.380720 = 0.0345606
  //   p = 0.898101002 - 0.0345606 = 0.8635404  (m still points along the first gradient, so p keeps falling)
  CHECK(p[0] == Approx(0.8635404181).epsilon(2e-7));
  CHECK(p[1] == Approx(2.0 * 0.999 * 0.999).epsilon(1e-7));
  CHECK(p[2] == 3.0f);
  CHECK(opt.steps_taken() == 2);
}

TEST_CASE("AdamW rejects bad settings and a wrong-sized decay mask", "[train][adamw]") {
  AdamWConfig c;
  CHECK(validate(c).empty());
  c.beta1 = 1.0;
  CHECK(validate(c).find("beta1") != std::string::npos);
  c = {};
  c.eps = std::nan("");
  CHECK(validate(c).find("eps") != std::string::npos);
  c = {};
  c.weight_decay = -1;
  CHECK(validate(c).find("weight decay") != std::string::npos);
  AdamW opt(4, AdamWConfig{});
  CHECK_FALSE(opt.set_decay_mask({1, 1}));
}

TEST_CASE("warmup ramps linearly to the peak, cosine ends at the floor", "[train][schedule]") {
  LrSchedule s;
  s.peak_lr = 1e-3;
  s.warmup_steps = 10;
  s.decay = LrDecay::constant;
  CHECK(learning_rate(s, 0) == Approx(1e-4));  // (0 + 1) / 10 of the peak
  CHECK(learning_rate(s, 4) == Approx(5e-4));
  CHECK(learning_rate(s, 9) == Approx(1e-3));
  CHECK(learning_rate(s, 500) == Approx(1e-3));

  s.decay = LrDecay::cosine;
  s.total_steps = 110;
  s.final_ratio = 0.1;
  CHECK(learning_rate(s, 10) == Approx(1e-3));                 // cos(0) = 1: the peak
  CHECK(learning_rate(s, 60) == Approx(0.5 * (1e-3 + 1e-4)));  // halfway: cos(pi / 2) = 0, the midpoint
  CHECK(learning_rate(s, 110) == Approx(1e-4));                // cos(pi) = -1: the floor
  CHECK(learning_rate(s, 1000) == Approx(1e-4));               // stays at the floor

  s.warmup_steps = 0;
  CHECK(learning_rate(s, 0) == Approx(1e-3));
  CHECK(validate(s).empty());
  s.warmup_steps = 200;
  CHECK_FALSE(validate(s).empty());
  s = {};
  s.peak_lr = std::numeric_limits<double>::infinity();
  CHECK(validate(s).find("learning rate") != std::string::npos);
}

TEST_CASE("clipping rescales to the max norm and reports the norm before", "[train][clip]") {
  std::vector<float> g = {3.0f, 4.0f, 0.0f, -12.0f};  // norm sqrt(9 + 16 + 144) = 13
  CHECK(global_norm(g.data(), g.size()) == Approx(13.0));
  CHECK(clip_global_norm(g.data(), g.size(), 1.0) == Approx(13.0));
  CHECK(global_norm(g.data(), g.size()) == Approx(1.0).epsilon(1e-6));
  CHECK(g[0] == Approx(3.0 / 13.0).epsilon(1e-6));  // direction kept

  std::vector<float> small = {0.3f, 0.4f};  // norm 0.5 under the limit: untouched
  CHECK(clip_global_norm(small.data(), 2, 1.0) == Approx(0.5));
  CHECK(small[0] == 0.3f);
  CHECK(clip_global_norm(small.data(), 2, 0.0) == Approx(0.5));  // max_norm 0: clipping off

  std::vector<float> bad = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  CHECK(std::isnan(clip_global_norm(bad.data(), 2, 1.0)));
  CHECK(bad[0] == 1.0f);  // left for the caller to report, not scaled into garbage
}

TEST_CASE("an update with grad_scale equals clipping the gradients first, bit for bit", "[train][clip][adamw]") {
  std::vector<float> g(11);
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = std::sin(1.7f * float(i) + 0.3f) * 5.0f;  // norm about 11
  const double norm = global_norm(g.data(), g.size());
  const float scale = clip_scale(norm, 1.0);
  REQUIRE(scale < 1.0f);
  AdamWConfig config;
  config.weight_decay = 0.01;
  AdamW fused(g.size(), config), separate(g.size(), config);
  std::vector<float> p_fused(g.size(), 0.5f), p_separate(g.size(), 0.5f), clipped = g;
  REQUIRE(clip_global_norm(clipped.data(), clipped.size(), 1.0) == norm);
  for (int step = 0; step < 3; ++step) {  // 11 parameters: two 4-lane blocks and a scalar tail of 3
    fused.step(p_fused.data(), g.data(), 1e-2, scale);
    separate.step(p_separate.data(), clipped.data(), 1e-2);
  }
  CHECK(p_fused == p_separate);
  CHECK(clip_scale(0.5, 1.0) == 1.0f);
  CHECK(clip_scale(13.0, 0.0) == 1.0f);
  CHECK(clip_scale(std::nan(""), 1.0) == 1.0f);
  CHECK(clip_scale(13.0, 1.0) == float(1.0 / (13.0 + 1e-6)));
}
