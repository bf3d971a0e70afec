// The training text, written by the project itself: a deterministic generator of short, patterned English
// sentences (a few templates over small word lists, counting, one-digit sums), so a tiny character-level
// model has structure to learn within a few hundred steps. No outside text is used.
// Also here: a character tokenizer and a seeded sampler of (tokens, next-token targets) windows.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/random.hpp"

namespace rl::train {

// At least min_chars characters of generated text (whole sentences, one paragraph per line).
std::string generate_corpus(uint64_t seed, size_t min_chars);

class CharTokenizer {
 public:
  explicit CharTokenizer(const std::string& text);  // vocabulary: the distinct bytes of text, sorted
  int vocab_size() const { return int(chars_.size()); }
  const std::string& chars() const { return chars_; }
  // Token ids of text; false (and out untouched) if a character is not in the vocabulary.
  bool encode(const std::string& text, std::vector<int32_t>& out) const;
  std::string decode(const std::vector<int32_t>& tokens) const;  // ids outside the vocabulary become '?'

 private:
  std::string chars_;
  int16_t id_of_[256];
};

struct Sequence {
  std::vector<int32_t> tokens;   // x[0..T)
  std::vector<int32_t> targets;  // x[1..T]: the next character at each position
};

// The shipped corpus: generated text, its tokenizer, a 90 / 10 train / validation split.
struct Corpus {
  std::string text;
  CharTokenizer tokenizer;
  std::vector<int32_t> train, validation;
};

constexpr uint64_t kCorpusSeed = 8;
constexpr size_t kCorpusChars = 12000;

const Corpus& shipped_corpus();  // built once, on first use

// H = -sum_c p_c ln p_c over the tokens' frequencies p_c (nats): the lowest loss a model that ignores context can
// reach on this text, where a training run that learns nothing from context plateaus. 0 for no tokens.
double unigram_entropy(const std::vector<int32_t>& tokens);

// Draws windows of seq_len + 1 consecutive tokens at uniformly random offsets.
class BatchSampler {
 public:
  BatchSampler(const std::vector<int32_t>& data, int seq_len, uint64_t seed)
      : data_(&data), seq_len_(seq_len), rng_(seed) {}
  Sequence next();

 private:
  const std::vector<int32_t>* data_;
  int seq_len_;
  Rng rng_;
};

// count non-overlapping windows from the start of data (fewer if data is short): a fixed evaluation set.
std::vector<Sequence> fixed_windows(const std::vector<int32_t>& data, int seq_len, int count);

}  // namespace rl::train
