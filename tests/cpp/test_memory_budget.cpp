// The memory budget: reservations add up and come back, a request that does not fit is refused with a message
// that says what was asked and what is left, and the decoder, the logit lens and the trainer reserve before they
// allocate.
#include <catch2/catch.hpp>

#include <memory>
#include <vector>

#include "core/memory_budget.hpp"
#include "core/parse_vector.hpp"
#include "decoder/model.hpp"
#include "train/loop.hpp"

using namespace rl;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("reservations add up, are refused past the budget and come back", "[memory]") {
  const std::uint64_t before = memory_used_bytes();
  const std::uint64_t left = kMemoryBudgetBytes - before;
  MemoryReservation a, b;
  CHECK(reserve_memory(left / 2, "a", &a).empty());
  CHECK(memory_used_bytes() == before + left / 2);
  const std::string refused = reserve_memory(left, "the second half", &b);
  CHECK(is_out_of_memory(refused));
  CHECK_THAT(refused, StartsWith("out of memory: the second half needs " + megabytes(left) + ", " +
                                 megabytes(left - left / 2) + " of the 768.0 MB memory budget is left"));
  CHECK(b.bytes() == 0);
  CHECK(memory_used_bytes() == before + left / 2);
  // reserving again through the same reservation counts what it holds as free
  CHECK(reserve_memory(left, "all of it", &a).empty());
  CHECK(memory_used_bytes() == kMemoryBudgetBytes);
  MemoryReservation moved = std::move(a);
  CHECK(a.bytes() == 0);
  CHECK(memory_used_bytes() == kMemoryBudgetBytes);
  moved.reset();
  CHECK(memory_used_bytes() == before);
}

TEST_CASE("models, their logit lens and their trainer reserve from the budget first", "[memory][decoder]") {
  const std::uint64_t before = memory_used_bytes();
  decoder::Config c;
  c.d_model = 16, c.n_heads = 2, c.n_layers = 2, c.context_length = 8, c.vocab_size = 128;
  std::string error;
  auto model = decoder::Model::create(c, &error);
  REQUIRE(model);
  train::TrainOptions train_options;
  train_options.seq_len = c.context_length;
  CHECK(memory_used_bytes() == before + decoder::model_bytes(c));

  // what is left is taken: the next model, a lens and a trainer are refused, and nothing is allocated
  MemoryReservation rest;
  REQUIRE(reserve_memory(kMemoryBudgetBytes - memory_used_bytes(), "the rest", &rest).empty());
  CHECK_FALSE(decoder::Model::create(c, &error));
  CHECK_THAT(error, StartsWith("out of memory: a decoder (parameters, gradients and activations) needs "));
  const std::vector<std::int32_t> tokens = {1, 2, 3};
  REQUIRE(model->forward(tokens, tokens).empty());
  const decoder::LogitLens refused_lens = model->logit_lens(5);
  CHECK_THAT(refused_lens.error, StartsWith("out of memory: the logit lens (k = 5) needs "));
  CHECK(refused_lens.top_tokens.empty());
  CHECK_FALSE(train::Trainer::create(*model, train_options, &error));
  CHECK_THAT(error, Contains("the optimizer state (AdamW)") && Contains("0.0 MB of the 768.0 MB"));

  rest.reset();
  {
    const decoder::LogitLens lens = model->logit_lens(5);
    CHECK(lens.error.empty());
    CHECK(lens.top_tokens.size() == std::size_t(5) * 3 * 5);
    CHECK(memory_used_bytes() > before + decoder::model_bytes(c));
    auto trainer = train::Trainer::create(*model, train_options, &error);
    REQUIRE(trainer);
    CHECK(trainer->step().error.empty());
  }
  CHECK(memory_used_bytes() == before + decoder::model_bytes(c));
  model.reset();
  CHECK(memory_used_bytes() == before);
}

TEST_CASE("parse_vector refuses a text longer than kMaxVectorTextBytes before decoding it", "[memory][parse]") {
  std::string text(kMaxVectorTextBytes, ' ');
  text.back() = '1';
  const ParsedVector longest = parse_vector(text);
  REQUIRE(longest.ok);
  CHECK(longest.values == std::vector<float>{1.0f});
  text += ' ';
  const ParsedVector refused = parse_vector(text);
  CHECK_FALSE(refused.ok);
  CHECK(refused.error.code == "too_long");
  CHECK(refused.error.message == "the text has 16777217 bytes; at most 16,777,216 are read (16 per number)");
}
