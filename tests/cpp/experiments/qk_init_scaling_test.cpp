// Experiments 5 (QK-Norm bound) and 6 (1/sqrt(2L) init scaling).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "experiments/init_scaling.hpp"
#include "experiments/qk_logit_growth.hpp"

using namespace rl::experiments;

TEST_CASE("with QK-Norm the attention logit never exceeds sqrt(d_head)", "[experiments][qk]") {
  for (int heads : {4, 2}) {  // d_head 16 and 32: bounds 4 and 5.66
    QkLogitGrowthOptions o;
    o.model.n_heads = heads;
    o.model.n_layers = 2;
    o.model.norm = rl::decoder::NormKind::rmsnorm;
    o.gains = {0.5, 1, 2, 4, 8, 16, 32, 64, 256};
    const QkLogitGrowthResult r = qk_logit_growth(o);
    REQUIRE(r.error.empty());
    CHECK(r.bound == Approx(std::sqrt(64.0 / heads)));
    for (size_t i = 0; i < o.gains.size(); ++i) {
      CHECK(r.max_logit_qk_norm[i] <= r.bound);
      // RMSNorm is scale-invariant: the gain drops out, up to eps = 1e-5 against q's mean square (about
      // 0.0256 g^2 per head row, smaller in some rows): a relative 0.2% at g = 0.5, less for larger g
      CHECK(r.max_logit_qk_norm[i] == Approx(r.max_logit_qk_norm.back()).epsilon(5e-3));
      CHECK(r.entropy_qk_norm[i] == Approx(r.entropy_qk_norm.back()).epsilon(5e-3));
      // without it, layer 0's logits are q.k / sqrt(d_head) with q, k both proportional to the gain: g^2 exactly
      CHECK(r.layer0_max_logit_plain[i] / (o.gains[i] * o.gains[i]) ==
            Approx(r.layer0_max_logit_plain[1]).epsilon(1e-4));
    }
    CHECK(r.max_logit_plain.back() > 100 * r.bound);  // gain 256 without QK-Norm: far past the bound
    // the softmax collapses onto one key: entropy falls from about ln(t) averaged over positions to near 0
    CHECK(r.entropy_plain[1] > 3.0);
    CHECK(r.entropy_plain.back() < 0.05);
    for (size_t i = 3; i + 1 < o.gains.size(); ++i) CHECK(r.entropy_plain[i + 1] < r.entropy_plain[i]);
  }
  QkLogitGrowthOptions bad;
  bad.gains = {1, -2};
  CHECK(qk_logit_growth(bad).error.find("gain") != std::string::npos);
  bad = {};
  bad.model.init.zero_qk = true;
  CHECK(validate(bad).find("zeroQK") != std::string::npos);
}

TEST_CASE("1/sqrt(2L) keeps the stream's variance flat in depth, without it it grows linearly",
          "[experiments][init_scaling]") {
  InitScalingOptions o;  // pre-norm, LayerNorm, std 0.02, depths 1 .. 64
  const InitScalingResult r = init_scaling(o);
  REQUIRE(r.error.empty());
  REQUIRE(r.final_variance_plain.size() == 7);
  REQUIRE(r.profile_plain.size() == 129);
  // the embedding: token and position rows, each N(0, 0.02^2) per coordinate: mean square 2 * 0.0004
  const double embedding = r.profile_plain[0];
  CHECK(embedding == Approx(0.0008).epsilon(0.1));
  // scaled: embedding + 2L increments of variance v / (2L) = embedding + v at every depth (flat within 10%)
  const auto [lo, hi] = std::minmax_element(r.final_variance_scaled.begin(), r.final_variance_scaled.end());
  CHECK(*hi / *lo < 1.1);
  // plain: embedding + 2L v grows with L; doubling the depth from 32 to 64 doubles the part above the
  // embedding if the increments were independent (2.0); correlated attention outputs push it up a little
  const auto& plain = r.final_variance_plain;
  CHECK(plain[6] / plain[0] > 20);
  const double doubling = (plain[6] - embedding) / (plain[5] - embedding);
  CHECK(doubling > 1.7);
  CHECK(doubling < 2.6);
  for (size_t i = 0; i + 1 < plain.size(); ++i) CHECK(plain[i + 1] > plain[i]);
  // within one 64-layer model the plain profile climbs all the way up, the scaled one stays within 2x
  CHECK(r.profile_plain.back() > 20 * r.profile_plain[0]);
  CHECK(*std::max_element(r.profile_scaled.begin(), r.profile_scaled.end()) < 2 * r.profile_scaled[0]);

  InitScalingOptions bad;
  bad.depths = {4, 200};
  CHECK(init_scaling(bad).error.find("depth") != std::string::npos);
}
