// The shipped corpus, its tokenizer and the seeded window sampler.
#include <catch2/catch.hpp>

#include <cmath>
#include <regex>
#include <set>

#include "train/corpus.hpp"

using namespace rl::train;

TEST_CASE("the generated corpus is deterministic, plain ASCII and patterned", "[train][corpus]") {
  const Corpus& c = shipped_corpus();
  CHECK(c.text == generate_corpus(kCorpusSeed, kCorpusChars));
  CHECK(c.text != generate_corpus(kCorpusSeed + 1, kCorpusChars));
  CHECK(c.text.size() >= kCorpusChars);
  CHECK(c.text.size() < kCorpusChars + 300);  // stops after the paragraph that crosses the size
  // Pinned: the same text natively and in WASM (this suite runs in both). The operands of `a + f() + g()` are
  // evaluated in different orders by GCC and Clang, which once made the two texts differ.
  CHECK(c.text.size() == 12029);
  uint64_t fnv1a = 0xcbf29ce484222325ULL;
  for (unsigned char ch : c.text) fnv1a = (fnv1a ^ ch) * 0x100000001b3ULL;
  CHECK(fnv1a == 0xbce62ac6502ca52cULL);
  for (unsigned char ch : c.text) REQUIRE((ch == '\n' || (ch >= 32 && ch < 127)));
  // lowercase letters, digits, space, comma, full stop, newline; 'j' never occurs in the word lists
  CHECK(c.tokenizer.vocab_size() == 38);
  CHECK(c.tokenizer.chars() == "\n ,.012345678abcdefghiklmnopqrstuvwxyz");
  // the sums are right and plurals agree with their number, as the model is meant to learn
  const std::regex sum(R"(([0-9]) and ([0-9]) make ([0-9]+)\.)");
  int sums = 0;
  for (auto it = std::sregex_iterator(c.text.begin(), c.text.end(), sum); it != std::sregex_iterator(); ++it, ++sums)
    CHECK(std::stoi((*it)[1]) + std::stoi((*it)[2]) == std::stoi((*it)[3]));
  CHECK(sums > 50);
  CHECK_FALSE(std::regex_search(c.text, std::regex(R"(has one [a-z]+s\.)")));
  CHECK_FALSE(std::regex_search(c.text, std::regex(R"(has (two|three|ten) [a-z]+[^s]\.)")));
  CHECK(c.text.find("foxes.") != std::string::npos);
  CHECK(c.text.find("foxs") == std::string::npos);
  CHECK(c.train.size() + c.validation.size() == c.text.size());
  CHECK(c.validation.size() == c.text.size() - c.text.size() * 9 / 10);
}

TEST_CASE("the tokenizer round-trips and refuses unknown characters", "[train][corpus]") {
  const CharTokenizer& tok = shipped_corpus().tokenizer;
  std::vector<int32_t> ids;
  REQUIRE(tok.encode("the fox.", ids));
  CHECK(ids.size() == 8);
  CHECK(tok.decode(ids) == "the fox.");
  CHECK(ids[3] == 1);  // ' ' is the second-smallest byte after '\n'
  std::vector<int32_t> untouched = {5};
  CHECK_FALSE(tok.encode("jump", untouched));  // 'j' is not in the vocabulary
  CHECK(untouched == std::vector<int32_t>{5});
  CHECK(tok.decode({0, 99, -1}) == "\n??");
}

TEST_CASE("the sampler draws reproducible windows with shifted targets", "[train][corpus]") {
  const Corpus& c = shipped_corpus();
  BatchSampler a(c.train, 128, 11), b(c.train, 128, 11), other(c.train, 128, 12);
  std::set<int32_t> firsts;
  for (int i = 0; i < 20; ++i) {
    const Sequence s = a.next(), t = b.next(), u = other.next();
    REQUIRE(s.tokens.size() == 128);
    REQUIRE(s.targets.size() == 128);
    CHECK(s.tokens == t.tokens);
    for (size_t k = 0; k + 1 < s.tokens.size(); ++k) REQUIRE(s.targets[k] == s.tokens[k + 1]);
    firsts.insert(s.tokens[0] * 1000 + u.tokens[0]);
  }
  CHECK(firsts.size() > 10);  // the two seeds do not walk in step

  const std::vector<int32_t> tiny = {1, 2, 3};  // shorter than a window: one short sequence
  BatchSampler short_sampler(tiny, 128, 0);
  const Sequence s = short_sampler.next();
  CHECK(s.tokens == std::vector<int32_t>{1, 2});
  CHECK(s.targets == std::vector<int32_t>{2, 3});

  const auto windows = fixed_windows(c.validation, 64, 4);
  REQUIRE(windows.size() == 4);
  CHECK(windows[1].tokens[0] == c.validation[64]);
  CHECK(windows[3].targets[63] == c.validation[4 * 64]);
}

TEST_CASE("the unigram entropy is -sum p ln p over token frequencies", "[train][corpus]") {
  CHECK(unigram_entropy({}) == 0.0);
  CHECK(unigram_entropy({5, 5, 5}) == 0.0);
  CHECK(unigram_entropy({0, 1, 0, 1}) == Approx(std::log(2.0)).epsilon(1e-15));
  // p = (3/4, 1/4): -(0.75 ln 0.75 + 0.25 ln 0.25) = 0.5623351446
  CHECK(unigram_entropy({2, 2, 7, 2}) == Approx(0.5623351446).epsilon(1e-9));
  // The shipped corpus's training text: 2.967 nats (docs/experiments.md), below ln 38 = 3.638 (uniform).
  const double h = unigram_entropy(shipped_corpus().train);
  CHECK(h == Approx(2.967).margin(0.0005));
  CHECK(h < std::log(double(shipped_corpus().tokenizer.vocab_size())));
}
