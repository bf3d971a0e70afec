// Divergence is reported with its cause and first step, not hidden.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "train/divergence.hpp"

using namespace rl::train;

TEST_CASE("a steadily falling loss is never flagged", "[train][divergence]") {
  DivergenceMonitor monitor;
  for (int t = 0; t < 200; ++t) CHECK(monitor.observe(3.6 * std::exp(-t / 80.0) + 1.0, 1.0) == TrainStatus::ok);
  CHECK_FALSE(monitor.diverged());
  CHECK(monitor.first_divergent_step() == -1);
}

TEST_CASE("one noisy batch does not count, a sustained climb does", "[train][divergence]") {
  DivergenceMonitor monitor;  // smoothing 0.9, factor 1.5, 10 warmup observations
  for (int t = 0; t < 50; ++t) monitor.observe(2.0, 1.0);
  // a single batch at 4.0 lifts the average to 0.9 * 2 + 0.1 * 4 = 2.2 < 1.5 * 2 = 3
  CHECK(monitor.observe(4.0, 1.0) == TrainStatus::ok);
  for (int t = 0; t < 5; ++t) monitor.observe(2.0, 1.0);
  CHECK_FALSE(monitor.diverged());
  // a sustained 5.0: smoothed_k = 5 - 3 * 0.9^k (approximately) passes 3 when 0.9^k < 2/3, i.e. at k = 4
  int flagged_at = -1;
  for (int k = 1; k <= 10 && flagged_at < 0; ++k)
    if (monitor.observe(5.0, 1.0) == TrainStatus::loss_exploded) flagged_at = k;
  CHECK(flagged_at == 4);
  CHECK(monitor.diverged());
  CHECK(monitor.first_status() == TrainStatus::loss_exploded);
  CHECK(monitor.first_divergent_step() == 56 + 3);
  CHECK(std::string(status_name(monitor.first_status())) == "loss_exploded");
}

TEST_CASE("NaN loss and infinite gradients are reported", "[train][divergence]") {
  DivergenceMonitor monitor;
  monitor.observe(3.0, 1.0);
  CHECK(monitor.observe(2.9, std::numeric_limits<double>::infinity()) == TrainStatus::nonfinite_gradient);
  CHECK(monitor.observe(std::nan(""), 1.0) == TrainStatus::nonfinite_loss);
  CHECK(monitor.first_status() == TrainStatus::nonfinite_gradient);  // the first cause is latched
  CHECK(monitor.first_divergent_step() == 1);
  CHECK(std::isfinite(monitor.smoothed_loss()));  // a NaN never poisons the average
}

TEST_CASE("divergence settings are validated", "[train][divergence]") {
  DivergenceConfig c;
  CHECK(validate(c).empty());
  c.explode_factor = 1.0;
  CHECK(validate(c).find("explode factor") != std::string::npos);
  c = {};
  c.smoothing = 1.0;
  CHECK_FALSE(validate(c).empty());
}

TEST_CASE("a loss that jumps tenfold is flagged on that step", "[train][divergence]") {
  DivergenceMonitor first;  // no history: compared with the first step's loss
  CHECK(first.observe(4.24, 1.0) == TrainStatus::ok);
  CHECK(first.observe(1599.0, 1.0) == TrainStatus::loss_exploded);
  CHECK(first.first_divergent_step() == 1);
  DivergenceConfig spikes_only;
  spikes_only.warmup_observations = 1000;  // the smoothed-loss rule stays quiet
  DivergenceMonitor later(spikes_only);    // with history: compared with the smoothed loss
  for (int t = 0; t < 20; ++t) CHECK(later.observe(3.0, 1.0) == TrainStatus::ok);
  CHECK(later.observe(29.0, 1.0) == TrainStatus::ok);  // 29 < 10 x 3
  CHECK_FALSE(later.diverged());
  CHECK(later.observe(57.0, 1.0) == TrainStatus::loss_exploded);  // 57 > 10 x (0.9 x 3 + 0.1 x 29) = 56
  CHECK(later.first_divergent_step() == 21);
  DivergenceMonitor after_nan;  // the level starts at the first finite loss, not at 0
  CHECK(after_nan.observe(std::nan(""), 1.0) == TrainStatus::nonfinite_loss);
  CHECK(after_nan.observe(4.0, 1.0) == TrainStatus::ok);
  CHECK(after_nan.observe(4.1, 1.0) == TrainStatus::ok);
  CHECK(after_nan.smoothed_loss() == Approx(4.01));
  DivergenceConfig c;
  c.spike_factor = 1.0;
  CHECK(validate(c).find("spike factor") != std::string::npos);
}
