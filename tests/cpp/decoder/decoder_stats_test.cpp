// Forward statistics, dL/dh norms and the logit lens against the float64 reference and closed forms.
#include <catch2/catch.hpp>

#include <cmath>

#include "decoder_test_util.hpp"

using namespace rl;
using namespace rl::test;

namespace {

double norm_of(const double* x, int d) {
  double s = 0;
  for (int i = 0; i < d; ++i) s += x[i] * x[i];
  return std::sqrt(s);
}

}  // namespace

TEST_CASE("stream norms, increments and ratios match the reference's streams", "[decoder][stats]") {
  for (decoder::Placement placement : kAllPlacements)
    for (decoder::NormKind norm : {decoder::NormKind::rmsnorm, decoder::NormKind::none}) {
      decoder::Config c = tiny_config(norm, placement, false, false);
      INFO(describe(c));
      auto model = make_model(c);
      randomize(*model, 3);
      Rng rng(5);
      const auto tokens = random_tokens(rng, 5, c.vocab_size);
      REQUIRE(model->forward(tokens) == "");
      const decoder::ForwardStats s = model->forward_stats();
      std::vector<double> p(model->params().begin(), model->params().end());
      ReferenceDecoder<double> ref(c, model->layout(), p);
      std::vector<std::vector<double>> streams;
      ref.loss(tokens, {}, nullptr, &streams);
      const int T = 5, d = c.d_model, points = 2 * c.n_layers + 1;
      REQUIRE(static_cast<int>(streams.size()) == points);
      REQUIRE(s.stream_norm.size() == static_cast<std::size_t>(points * T));
      for (int pt = 0; pt < points; ++pt) {
        double mean = 0;
        for (int t = 0; t < T; ++t) {
          const double want = norm_of(streams[pt].data() + t * d, d);
          CHECK(s.stream_norm[pt * T + t] == Approx(want).epsilon(1e-4));
          mean += want / T;
        }
        CHECK(s.stream_norm_mean[pt] == Approx(mean).epsilon(1e-4));
      }
      // where the stream is h + increment (pre, sandwich, olmo2 with residual), the increment is the difference
      const bool additive = placement == decoder::Placement::pre || placement == decoder::Placement::sandwich ||
                            placement == decoder::Placement::olmo2;
      for (int j = 0; j < 2 * c.n_layers; ++j) {
        double ratio = 0;
        for (int t = 0; t < T; ++t) {
          const float inc = s.increment_norm[j * T + t];
          ratio += inc / s.stream_norm[j * T + t] / T;
          if (additive) {
            std::vector<double> diff(d);
            for (int i = 0; i < d; ++i) diff[i] = streams[j + 1][t * d + i] - streams[j][t * d + i];
            CHECK(inc == Approx(norm_of(diff.data(), d)).epsilon(1e-4).margin(1e-6));
          }
        }
        CHECK(s.increment_ratio[j] == Approx(ratio).epsilon(1e-5));
      }
    }
}

TEST_CASE("uniform attention has entropy log(t + 1) and zero logits", "[decoder][stats]") {
  // zero q and k weights: every score is 0, so query t spreads 1/(t+1) over its t + 1 keys
  decoder::Config c = tiny_config(decoder::NormKind::layernorm, decoder::Placement::pre, false, false);
  c.init.zero_qk = true;
  auto model = make_model(c);
  REQUIRE(model->forward(std::vector<std::int32_t>{1, 2, 3, 4, 5, 6}) == "");
  const decoder::ForwardStats s = model->forward_stats();
  double want = 0;
  for (int t = 0; t < 6; ++t) want += std::log(t + 1.0) / 6;
  for (int i = 0; i < c.n_layers * c.n_heads; ++i) {
    CHECK(s.attn_entropy[i] == Approx(want).epsilon(1e-6));
    CHECK(s.max_attn_logit[i] == 0.0f);
  }
}

TEST_CASE("with QK-Norm (g = 1) no attention logit exceeds sqrt(d_head), however large q and k grow",
          "[decoder][stats]") {
  for (float gain : {1.0f, 30.0f, 1000.0f}) {
    decoder::Config c = tiny_config(decoder::NormKind::rmsnorm, decoder::Placement::pre, true, false);
    c.init.std = 0.3f, c.init.qk_gain = gain;
    auto with_qk = make_model(c);
    c.qk_norm = false;
    auto without_qk = make_model(c);
    const std::vector<std::int32_t> tokens{3, 1, 4, 1, 5, 9};
    REQUIRE(with_qk->forward(tokens) == "");
    REQUIRE(without_qk->forward(tokens) == "");
    const float bound = std::sqrt(static_cast<float>(c.d_head()));  // |q| = |k| = sqrt(dh): q.k / sqrt(dh) <= sqrt(dh)
    float largest_with = 0, largest_without = 0;
    for (float v : with_qk->forward_stats().max_attn_logit) largest_with = std::max(largest_with, v);
    for (float v : without_qk->forward_stats().max_attn_logit) largest_without = std::max(largest_without, v);
    INFO("gain " << gain << ": max logit with QK-Norm " << largest_with << ", without " << largest_without);
    CHECK(largest_with <= bound * (1 + 1e-6f));
    if (gain >= 30) CHECK(largest_without > 10 * bound);
  }
}

TEST_CASE("dL/dh norms per stream point match finite differences of the reference", "[decoder][stats][gradcheck]") {
  for (decoder::Placement placement : kAllPlacements) {
    decoder::Config c =
        tiny_config(decoder::NormKind::layernorm, placement, placement == decoder::Placement::pre, true);
    INFO(describe(c));
    auto model = make_model(c);
    randomize(*model, 21);
    Rng rng(22);
    const int T = 4, d = c.d_model;
    const auto tokens = random_tokens(rng, T, c.vocab_size), targets = random_tokens(rng, T, c.vocab_size);
    REQUIRE(model->forward(tokens, targets) == "");
    model->zero_grad();
    REQUIRE(model->backward() == "");
    const decoder::GradStats g = model->grad_stats();
    std::vector<double> p(model->params().begin(), model->params().end());
    ReferenceDecoder<double> ref(c, model->layout(), p);
    for (int pt = 0; pt <= 2 * c.n_layers; ++pt) {
      double total = 0;
      for (int t = 0; t < T; ++t) {
        double sq = 0;
        for (int i = 0; i < d; ++i) {
          ref.bump_point = pt, ref.bump_index = t * d + i, ref.bump = 1e-5;
          const double up = ref.loss(tokens, targets);
          ref.bump = -1e-5;
          const double down = ref.loss(tokens, targets);
          const double grad = (up - down) / 2e-5;
          sq += grad * grad;
        }
        CHECK(g.stream_grad_norm_per_position[pt * T + t] == Approx(std::sqrt(sq)).epsilon(2e-3).margin(1e-6));
        total += sq;
      }
      CHECK(g.stream_grad_norm[pt] == Approx(std::sqrt(total)).epsilon(2e-3).margin(1e-6));
    }
    // per-tensor norms are the norms of grads(), and they add up to the total
    double total = 0;
    for (std::size_t i = 0; i < model->layout().tensors.size(); ++i) {
      const auto& t = model->layout().tensors[i];
      double sq = 0;
      for (std::size_t k = 0; k < t.size; ++k)
        sq += double(model->grads()[t.offset + k]) * model->grads()[t.offset + k];
      CHECK(g.param_grad_norm[i] == Approx(std::sqrt(sq)).epsilon(1e-6));
      total += sq;
    }
    CHECK(g.total_grad_norm == Approx(std::sqrt(total)).epsilon(1e-6));
  }
}

TEST_CASE("logit lens reads each stream through the final norm and lm_head", "[decoder][lens]") {
  for (decoder::Placement placement : kAllPlacements) {
    decoder::Config c =
        tiny_config(decoder::NormKind::rmsnorm, placement, false, placement == decoder::Placement::olmo2);
    INFO(describe(c));
    auto model = make_model(c);
    randomize(*model, 31);
    const std::vector<std::int32_t> tokens{2, 7, 1, 8, 2};
    REQUIRE(model->forward(tokens) == "");
    const int k = 3, T = 5, V = c.vocab_size, points = 2 * c.n_layers + 1;
    const decoder::LogitLens lens = model->logit_lens(k);
    REQUIRE(lens.points == points);
    std::vector<double> p(model->params().begin(), model->params().end());
    ReferenceDecoder<double> ref(c, model->layout(), p);
    std::vector<std::vector<double>> streams;
    ref.loss(tokens, {}, nullptr, &streams);
    for (int pt = 0; pt < points; ++pt) {
      const std::vector<double> logits = ref.read_out(streams[pt], T);
      for (int t = 0; t < T; ++t) {
        const double* row = logits.data() + t * V;
        double m = row[0], sum = 0;
        for (int j = 0; j < V; ++j) m = std::max(m, row[j]);
        for (int j = 0; j < V; ++j) sum += std::exp(row[j] - m);
        for (int i = 0; i < k; ++i) {
          const std::size_t at = (static_cast<std::size_t>(pt) * T + t) * k + i;
          const int token = lens.top_tokens[at];
          CHECK(lens.top_probs[at] == Approx(std::exp(row[token] - m) / sum).epsilon(1e-4));
          if (i > 0) CHECK(lens.top_probs[at] <= lens.top_probs[at - 1]);
          int rank = 0;  // how many tokens the reference puts clearly above this one
          for (int j = 0; j < V; ++j) rank += row[j] > row[token] + 1e-4;
          CHECK(rank <= i);
        }
      }
    }
    // the last point is the model's own output
    const auto logits = model->logits();
    for (int t = 0; t < T; ++t) {
      const int top = lens.top_tokens[(static_cast<std::size_t>(points - 1) * T + t) * k];
      for (int j = 0; j < V; ++j) CHECK(logits[t * V + j] <= logits[t * V + top]);
    }
  }
}
