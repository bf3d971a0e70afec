// The lab's decoder-only transformer: one object owns its parameters, gradients and saved activations, each in one
// contiguous buffer sized once from the config. Nothing here throws or aborts: a bad config, a bad token or a bad
// parameter vector comes back as an error message ("" means success).
//
//   std::string error;
//   auto model = rl::decoder::Model::create(config, &error);   // nullptr + message if the config is bad
//   model->forward(tokens, targets);                            // one sequence, 1 <= T <= context_length
//   model->zero_grad();
//   model->backward();                                           // accumulates into grads()
//   float loss = model->loss();
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "decoder/config.hpp"
#include "decoder/layout.hpp"
#include "decoder/stats.hpp"

namespace rl::decoder {

struct ModelState;  // buffers and saved activations (decoder/model_state.hpp, internal)

// What a forward pass computed: finite logits and loss (ok), or an overflow reported rather than handed back as a
// number (parameters or an init scale large enough that a matmul or the stream overflows float32).
enum class ForwardStatus { ok = 0, nonfinite_logits = 1, nonfinite_loss = 2 };
const char* forward_status_name(ForwardStatus status);  // "ok", "nonfinite_logits", "nonfinite_loss"

class Model {
 public:
  // Validates the config and initialises the parameters from config.init (seeded, identical natively and in
  // WASM). Returns nullptr and sets *error when the config is unusable.
  static std::unique_ptr<Model> create(const Config& config, std::string* error);
  ~Model();
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;

  const Config& config() const;
  const ParamLayout& layout() const;
  std::size_t num_params() const;

  // Flat views in ParamLayout order. Writing through params() is how an optimizer updates the model.
  std::span<float> params();
  std::span<const float> params() const;
  std::span<float> grads();
  std::span<const float> grads() const;
  void zero_grad();
  // Copies a full parameter vector in; rejects a wrong length or a non-finite value. Like init_params(), it
  // discards the last forward (run forward again before backward or the stats).
  std::string set_params(std::span<const float> values);
  // Re-runs the seeded initialisation of config().init.
  void init_params();

  // Runs one sequence. With targets (same length as tokens) it also computes the mean cross-entropy over all
  // positions. Errors: empty or too long a sequence, a token or target outside [0, vocab_size), length mismatch.
  std::string forward(std::span<const std::int32_t> tokens, std::span<const std::int32_t> targets = {});
  int seq_len() const;  // T of the last successful forward (0 before any)
  float loss() const;   // NaN unless the last forward had targets
  // Of the last forward: nonfinite_logits if any logit is NaN or infinite, else nonfinite_loss if it had targets
  // and the loss is not finite, else ok (also before any forward).
  ForwardStatus forward_status() const;
  std::span<const float> logits() const;  // [T, vocab_size] of the last forward (after the final soft-cap)

  // Gradient of loss_scale * loss() for the last forward, ACCUMULATED (+=) into grads(): call zero_grad() first,
  // or sum several sequences' gradients (loss_scale = 1/B averages them). Needs a forward with targets.
  std::string backward(float loss_scale = 1.0f);

  ForwardStats forward_stats() const;  // of the last forward (empty before any)
  GradStats grad_stats() const;        // of grads() and the last backward's dL/dh (empty before any backward)
  LogitLens logit_lens(int k) const;   // of the last forward; k is clamped to [1, vocab_size]

  ModelState& state() { return *state_; }  // internal: for the decoder's own .cpp files
  const ModelState& state() const { return *state_; }

 private:
  explicit Model(std::unique_ptr<ModelState> state);
  std::unique_ptr<ModelState> state_;
};

}  // namespace rl::decoder
