#include "train/corpus.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

namespace rl::train {
namespace {

constexpr std::array<const char*, 6> kNames = {"anna", "ben", "cara", "dan", "eva", "finn"};
constexpr std::array<const char*, 8> kNouns = {"cat", "dog", "bird", "fox", "cow", "hen", "pig", "frog"};
constexpr std::array<const char*, 8> kAdjectives = {"red", "big", "small", "old", "young", "brown", "quick", "lazy"};
constexpr std::array<const char*, 6> kVerbs = {"sees", "likes", "finds", "helps", "follows", "feeds"};
constexpr std::array<const char*, 5> kPlaces = {"home", "out", "at school", "in the park", "by the river"};
constexpr std::array<const char*, 10> kNumbers = {"one", "two",   "three", "four", "five",
                                                  "six", "seven", "eight", "nine", "ten"};

std::string plural(const std::string& noun) { return noun + (noun.back() == 'x' ? "es" : "s"); }  // fox -> foxes

template <class Words>
const char* pick(Rng& rng, const Words& words) {
  return words[uniform_below(rng, uint32_t(words.size()))];
}

// One sentence from one of five templates, each with a pattern a small model can pick up. Every word is drawn
// in its own statement: the operands of one `a + f() + g()` expression may be evaluated in any order (GCC and
// Clang differ), which would make the text differ between the native and the WASM build.
std::string sentence(Rng& rng) {
  std::string s;
  switch (uniform_below(rng, 5)) {
    case 0: {  // the quick fox sees the lazy dog.
      const std::string adjective1 = pick(rng, kAdjectives), noun1 = pick(rng, kNouns), verb = pick(rng, kVerbs);
      const std::string adjective2 = pick(rng, kAdjectives), noun2 = pick(rng, kNouns);
      s = "the " + adjective1 + " " + noun1 + " " + verb + " the " + adjective2 + " " + noun2 + ".";
      break;
    }
    case 1: {  // ben has three cats.   (plural agreement)
      const uint32_t n = uniform_below(rng, uint32_t(kNumbers.size()));
      const std::string name = pick(rng, kNames), noun = pick(rng, kNouns);
      s = name + " has " + kNumbers[n] + " " + (n == 0 ? noun : plural(noun)) + ".";
      break;
    }
    case 2: {  // eva counts one, two, three.
      const uint32_t count = 2 + uniform_below(rng, 5);
      s = std::string(pick(rng, kNames)) + " counts";
      for (uint32_t i = 0; i < count; ++i) s += std::string(i == 0 ? " " : ", ") + kNumbers[i];
      s += ".";
      break;
    }
    case 3: {  // if dan is home, dan is not out.   (the name repeats)
      const std::string name = pick(rng, kNames);
      const uint32_t a = uniform_below(rng, uint32_t(kPlaces.size()));
      const uint32_t b = (a + 1 + uniform_below(rng, uint32_t(kPlaces.size()) - 1)) % uint32_t(kPlaces.size());
      s = "if " + name + " is " + kPlaces[a] + ", " + name + " is not " + kPlaces[b] + ".";
      break;
    }
    default: {  // 3 and 4 make 7.
      const uint32_t a = uniform_below(rng, 5);
      const uint32_t b = uniform_below(rng, 5);
      s = std::to_string(a) + " and " + std::to_string(b) + " make " + std::to_string(a + b) + ".";
      break;
    }
  }
  return s;
}

}  // namespace

std::string generate_corpus(uint64_t seed, size_t min_chars) {
  Rng rng(seed);
  std::string text;
  while (text.size() < min_chars) {
    const uint32_t sentences = 2 + uniform_below(rng, 3);
    for (uint32_t i = 0; i < sentences; ++i) text += (i ? " " : "") + sentence(rng);
    text += "\n";
  }
  return text;
}

CharTokenizer::CharTokenizer(const std::string& text) {
  bool seen[256] = {};
  for (unsigned char c : text) seen[c] = true;
  for (int c = 0; c < 256; ++c) {
    id_of_[c] = -1;
    if (seen[c]) {
      id_of_[c] = int16_t(chars_.size());
      chars_.push_back(char(c));
    }
  }
}

bool CharTokenizer::encode(const std::string& text, std::vector<int32_t>& out) const {
  std::vector<int32_t> ids;
  ids.reserve(text.size());
  for (unsigned char c : text) {
    if (id_of_[c] < 0) return false;
    ids.push_back(id_of_[c]);
  }
  out = std::move(ids);
  return true;
}

std::string CharTokenizer::decode(const std::vector<int32_t>& tokens) const {
  std::string s;
  for (int32_t t : tokens) s.push_back(t >= 0 && t < vocab_size() ? chars_[size_t(t)] : '?');
  return s;
}

const Corpus& shipped_corpus() {
  static const Corpus corpus = [] {
    std::string text = generate_corpus(kCorpusSeed, kCorpusChars);
    CharTokenizer tokenizer(text);
    std::vector<int32_t> ids;
    tokenizer.encode(text, ids);  // cannot fail: the vocabulary comes from this text
    const size_t split = ids.size() * 9 / 10;
    return Corpus{text, tokenizer, std::vector<int32_t>(ids.begin(), ids.begin() + long(split)),
                  std::vector<int32_t>(ids.begin() + long(split), ids.end())};
  }();
  return corpus;
}

double unigram_entropy(const std::vector<int32_t>& tokens) {
  std::map<int32_t, size_t> counts;
  for (int32_t t : tokens) ++counts[t];
  double h = 0;
  for (const auto& [token, n] : counts) {
    const double p = double(n) / double(tokens.size());
    h -= p * std::log(p);
  }
  return h;
}

Sequence BatchSampler::next() {
  const size_t window = size_t(seq_len_) + 1;
  const size_t starts = data_->size() >= window ? data_->size() - window + 1 : 1;
  const size_t start = uniform_below(rng_, uint32_t(starts));
  const size_t len = std::min(window, data_->size() - start);
  Sequence seq;
  for (size_t i = 0; i + 1 < len; ++i) {
    seq.tokens.push_back((*data_)[start + i]);
    seq.targets.push_back((*data_)[start + i + 1]);
  }
  return seq;
}

std::vector<Sequence> fixed_windows(const std::vector<int32_t>& data, int seq_len, int count) {
  std::vector<Sequence> windows;
  const size_t window = size_t(seq_len) + 1;
  for (size_t start = 0; int(windows.size()) < count && start + window <= data.size(); start += size_t(seq_len)) {
    Sequence seq;
    seq.tokens.assign(data.begin() + long(start), data.begin() + long(start + window - 1));
    seq.targets.assign(data.begin() + long(start + 1), data.begin() + long(start + window));
    windows.push_back(std::move(seq));
  }
  return windows;
}

}  // namespace rl::train
