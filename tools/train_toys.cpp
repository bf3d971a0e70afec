// Trains the lab's toy decoders on the shipped corpus and writes each as a Hugging Face checkpoint folder:
//   train_toys OUT_DIR  ->  OUT_DIR/<name>/{config.json, model.safetensors, tokenizer.json}, OUT_DIR/toys.json
// toys.json records, per toy, the engine config, the training options, the loss curve and the final losses (of the
// float32 weights trained), and the probe loss of the weights as shipped (rounded to F16).
// Deterministic: seeded initialisation, seeded data order, single-threaded kernels; the same build gives the same
// bytes. `npm run train-toys` (scripts/train-toys.mjs) builds this, runs it and records the files' SHA-256.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "decoder/model.hpp"
#include "train/corpus.hpp"
#include "tools/hf_export.hpp"
#include "train/loop.hpp"
#include "tools/toys.hpp"

namespace {

using namespace rl;

constexpr int kLogEvery = 50;  // loss curve: mean training loss of each 50 steps, validation loss after them
constexpr int kValidationWindows = 16;
constexpr int kProbeChars = 65;  // the probe: the validation split's first 65 characters, 64 predictions
// F16 keeps 11 significant bits where BF16 keeps 8, and the toys' weights (|w| well under 65504) need no more
// range: half the bytes of F32 for the page to fetch.
constexpr train::HfDtype kShippedDtype = train::HfDtype::f16;

std::string fixed(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

bool write_file(const std::filesystem::path& path, const void* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary);
  out.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) std::fprintf(stderr, "train_toys: cannot write %s\n", path.string().c_str());
  return static_cast<bool>(out);
}

bool write_text(const std::filesystem::path& path, const std::string& text) {
  return write_file(path, text.data(), text.size());
}

// Trains one toy, writes its folder; returns its toys.json entry ("" on failure).
std::string train_toy(const train::ToySpec& toy, const std::filesystem::path& out_dir) {
  const std::string name(toy.name);
  const train::HfArchitecture* arch = train::find_hf_architecture(toy.model_type);
  const decoder::Config config = train::toy_config(toy);
  const train::TrainOptions options = train::toy_train_options(toy);
  std::string error = train::check_exportable(config, *arch);
  auto model = error.empty() ? decoder::Model::create(config, &error) : nullptr;
  auto trainer = model ? train::Trainer::create(*model, options, &error) : nullptr;
  if (!trainer) {
    std::fprintf(stderr, "train_toys: %s: %s\n", name.c_str(), error.c_str());
    return "";
  }
  const auto start = std::chrono::steady_clock::now();
  std::string curve;
  double window_sum = 0, first_loss = 0, last_train = 0;
  for (int s = 0; s < toy.steps; ++s) {
    const train::StepReport r = trainer->step();
    if (!r.error.empty() || !r.updated) {
      std::fprintf(stderr, "train_toys: %s: step %d: %s\n", name.c_str(), s,
                   r.error.empty() ? "skipped" : r.error.c_str());
      return "";
    }
    if (s == 0) first_loss = r.loss;
    window_sum += r.loss;
    if ((s + 1) % kLogEvery == 0) {
      last_train = window_sum / kLogEvery;
      const double val = trainer->evaluate(kValidationWindows);
      curve += std::string(curve.empty() ? "" : ",\n") + "        [" + std::to_string(s + 1) + ", " +
               fixed(last_train) + ", " + fixed(val) + "]";
      std::fprintf(stderr, "%s step %d train %.4f val %.4f\n", name.c_str(), s + 1, last_train, val);
      window_sum = 0;
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double val = trainer->evaluate(kValidationWindows);
  std::fprintf(stderr, "%s: %d steps in %.1f s\n", name.c_str(), toy.steps, seconds);

  const std::filesystem::path dir = out_dir / name;
  std::filesystem::create_directories(dir);
  const std::vector<float> params(model->params().begin(), model->params().end());
  const auto tensors = train::safetensors_bytes(model->layout(), params, *arch, kShippedDtype);
  if (!write_text(dir / "config.json", train::hf_config_json(config, *arch, kShippedDtype)) ||
      !write_file(dir / "model.safetensors", tensors.data(), tensors.size()) ||
      !write_text(dir / "tokenizer.json", train::hf_tokenizer_json(train::shipped_corpus().tokenizer)))
    return "";

  // the probe: the loss of the weights as shipped on a fixed text, which a reader of the files can recompute
  std::vector<float> shipped(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) shipped[i] = train::stored_value(params[i], kShippedDtype);
  if (std::string e = model->set_params(shipped); !e.empty()) {
    std::fprintf(stderr, "train_toys: %s: %s\n", name.c_str(), e.c_str());
    return "";
  }
  const train::Corpus& corpus = train::shipped_corpus();
  const std::vector<std::int32_t> probe(corpus.validation.begin(), corpus.validation.begin() + kProbeChars);
  const std::vector<std::int32_t> inputs(probe.begin(), probe.end() - 1), targets(probe.begin() + 1, probe.end());
  if (!model->forward(inputs, targets).empty()) return "";
  char probe_loss[32];
  std::snprintf(probe_loss, sizeof probe_loss, "%.6f", model->loss());

  const decoder::Config& c = config;
  return std::string("    {\n      \"name\": \"") + name + "\",\n      \"modelType\": \"" +
         std::string(toy.model_type) + "\",\n      \"engineConfig\": {\"vocabSize\": " + std::to_string(c.vocab_size) +
         ", \"dModel\": " + std::to_string(c.d_model) + ", \"nHeads\": " + std::to_string(c.n_heads) +
         ", \"dFF\": " + std::to_string(c.d_ff) + ", \"nLayers\": " + std::to_string(c.n_layers) +
         ", \"contextLength\": " + std::to_string(c.context_length) + ", \"mlp\": \"swiglu\", \"norm\": \"rmsnorm\"" +
         ", \"placement\": \"" + decoder::to_string(c.placement) + "\", \"qkNorm\": " + (c.qk_norm ? "true" : "false") +
         ", \"qkNormShape\": \"" + decoder::to_string(c.qk_norm_shape) + "\", \"posEmbed\": false, \"rope\": true" +
         ", \"ropeTheta\": 10000, \"eps\": 1e-5},\n      \"numParams\": " + std::to_string(model->num_params()) +
         ",\n      \"probeText\": " + train::json_string(corpus.tokenizer.decode(probe)) +
         ",\n      \"probeLoss\": " + probe_loss + ",\n      \"steps\": " + std::to_string(toy.steps) +
         ",\n      \"peakLr\": " + fixed(toy.peak_lr) +
         ",\n      \"warmupSteps\": 100,\n      \"decay\": \"cosine\",\n      \"seqLen\": " +
         std::to_string(options.seq_len) + ",\n      \"seed\": " + std::to_string(toy.seed) +
         ",\n      \"validationWindows\": " + std::to_string(kValidationWindows) +
         ",\n      \"firstLoss\": " + fixed(first_loss) + ",\n      \"finalTrainLoss\": " + fixed(last_train) +
         ",\n      \"finalValidationLoss\": " + fixed(val) + ",\n      \"lossCurve\": [\n" + curve + "\n      ]\n    }";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: train_toys OUT_DIR\n");
    return 2;
  }
  const std::filesystem::path out_dir = argv[1];
  std::filesystem::create_directories(out_dir);
  const train::Corpus& corpus = train::shipped_corpus();
  std::string toys;
  for (const train::ToySpec& toy : train::toy_specs()) {
    const std::string entry = train_toy(toy, out_dir);
    if (entry.empty()) return 1;
    toys += (toys.empty() ? "" : ",\n") + entry;
  }
  const std::string record = "{\n  \"corpus\": {\"chars\": " + std::to_string(corpus.text.size()) +
                             ", \"vocabSize\": " + std::to_string(corpus.tokenizer.vocab_size()) +
                             ", \"unigramEntropy\": " + fixed(train::unigram_entropy(corpus.train)) +
                             "},\n  \"lossCurveColumns\": [\"step\", \"meanTrainLoss\", \"validationLoss\"]," +
                             "\n  \"toys\": [\n" + toys + "\n  ]\n}\n";
  return write_text(out_dir / "toys.json", record) ? 0 : 1;
}
