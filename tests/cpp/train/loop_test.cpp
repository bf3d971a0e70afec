// The training loop on the real decoder and the shipped corpus.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "train/loop.hpp"

using namespace rl;

namespace {

decoder::Config tiny_config() {
  decoder::Config c;
  c.vocab_size = train::shipped_corpus().tokenizer.vocab_size();
  c.d_model = 32;
  c.n_heads = 4;
  c.n_layers = 2;
  c.context_length = 32;
  return c;
}

train::TrainOptions tiny_options(double lr) {
  train::TrainOptions o;
  o.schedule.peak_lr = lr;
  o.seq_len = 32;
  return o;
}

}  // namespace

TEST_CASE("training learns more than character frequencies", "[train][loop]") {
  std::string error;
  auto model = decoder::Model::create(tiny_config(), &error);
  REQUIRE(model);
  auto trainer = train::Trainer::create(*model, tiny_options(3e-3), &error);
  REQUIRE(trainer);
  const double before = trainer->evaluate(8);
  CHECK(before == Approx(std::log(38.0)).margin(0.05));  // std 0.02 init: near-uniform predictions
  for (int s = 0; s < 150; ++s) {
    const train::StepReport r = trainer->step();
    REQUIRE(r.error.empty());
    REQUIRE(r.updated);
    REQUIRE(r.lr == 3e-3);
  }
  const double h1 = train::unigram_entropy(train::shipped_corpus().train);  // 2.97 nats for the shipped corpus
  CHECK(h1 == Approx(2.97).margin(0.01));
  CHECK(trainer->evaluate(8) < h1 - 0.3);  // it uses context (the bigram entropy is 1.78)
  CHECK_FALSE(trainer->monitor().diverged());
  CHECK(trainer->steps_taken() == 150);
}

TEST_CASE("training is deterministic for fixed seeds", "[train][loop]") {
  std::string error;
  auto a = decoder::Model::create(tiny_config(), &error), b = decoder::Model::create(tiny_config(), &error);
  auto ta = train::Trainer::create(*a, tiny_options(1e-3), &error),
       tb = train::Trainer::create(*b, tiny_options(1e-3), &error);
  for (int s = 0; s < 5; ++s) {
    const auto ra = ta->step(), rb = tb->step();
    CHECK(ra.loss == rb.loss);
    CHECK(ra.grad_norm == rb.grad_norm);
  }
  CHECK(std::equal(a->params().begin(), a->params().end(), b->params().begin()));
}

TEST_CASE("a learning rate of 1 is reported as divergence", "[train][loop]") {
  std::string error;
  auto model = decoder::Model::create(tiny_config(), &error);
  train::TrainOptions o = tiny_options(1.0);
  o.clip_norm = 0;
  auto trainer = train::Trainer::create(*model, o, &error);
  int exploded_steps = 0;
  for (int s = 0; s < 40; ++s) exploded_steps += trainer->step().status == train::TrainStatus::loss_exploded;
  CHECK(trainer->monitor().diverged());
  CHECK(trainer->monitor().first_status() == train::TrainStatus::loss_exploded);
  // the smoothed loss passes 1.5 x its best as soon as the monitor may say so (10 observations)
  CHECK(trainer->monitor().first_divergent_step() < 15);
  CHECK(exploded_steps > 20);
  CHECK(trainer->monitor().smoothed_loss() > 2 * std::log(38.0));
}

TEST_CASE("with lr 10 the step whose loss jumps is the one flagged", "[train][loop]") {
  std::string error;
  auto model = decoder::Model::create(tiny_config(), &error);
  auto trainer = train::Trainer::create(*model, tiny_options(10.0), &error);
  const train::StepReport first = trainer->step();
  CHECK(first.status == train::TrainStatus::ok);
  int jump = -1;
  double previous = first.loss;
  for (int s = 1; s < 12 && jump < 0; ++s) {
    const train::StepReport r = trainer->step();
    if (r.loss > 10 * previous) {
      jump = s;
      CHECK(r.status == train::TrainStatus::loss_exploded);
    } else {
      CHECK(r.status == train::TrainStatus::ok);
    }
    previous = r.loss;
  }
  REQUIRE(jump >= 1);
  CHECK(trainer->monitor().first_divergent_step() == jump);
}

TEST_CASE("a NaN parameter is reported and the update skipped", "[train][loop]") {
  std::string error;
  auto model = decoder::Model::create(tiny_config(), &error);
  auto trainer = train::Trainer::create(*model, tiny_options(1e-3), &error);
  trainer->step();
  // poison lm_head.weight[0, 0]: token 0's logit, hence every position's softmax, becomes NaN
  const auto& head = model->layout().tensors[size_t(model->layout().find("lm_head.weight"))];
  model->params()[head.offset] = std::numeric_limits<float>::quiet_NaN();
  const train::StepReport r = trainer->step();
  CHECK(r.error.empty());
  CHECK_FALSE(r.updated);
  CHECK(std::isnan(r.loss));
  CHECK(r.status == train::TrainStatus::nonfinite_loss);
  CHECK(trainer->monitor().diverged());
  CHECK(trainer->monitor().first_divergent_step() == 1);
}

TEST_CASE("options that do not fit the model are refused with a message", "[train][loop]") {
  std::string error;
  auto model = decoder::Model::create(tiny_config(), &error);
  train::TrainOptions o = tiny_options(1e-3);
  o.seq_len = 64;  // context is 32
  CHECK_FALSE(train::Trainer::create(*model, o, &error));
  CHECK(error == "seqLen must be at most the model's contextLength (32), got 64");
  o = tiny_options(std::nan(""));
  CHECK_FALSE(train::Trainer::create(*model, o, &error));
  CHECK(error == "lr must be a finite number above 0 and at most 100 (got NaN)");
  decoder::Config small_vocab = tiny_config();
  small_vocab.vocab_size = 10;
  auto small = decoder::Model::create(small_vocab, &error);
  CHECK_FALSE(train::Trainer::create(*small, tiny_options(1e-3), &error));
  CHECK(error.find("vocabSize (10)") != std::string::npos);
}
