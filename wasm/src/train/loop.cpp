#include "train/loop.hpp"

#include <cmath>

namespace rl::train {

std::string validate(const TrainOptions& o, const decoder::Model& model) {
  const Corpus& corpus = shipped_corpus();
  if (model.config().vocab_size < corpus.tokenizer.vocab_size())
    return "the model's vocab_size (" + std::to_string(model.config().vocab_size) + ") is smaller than the corpus's " +
           std::to_string(corpus.tokenizer.vocab_size()) + " characters";
  if (o.seq_len < 2 || o.seq_len > model.config().context_length)
    return "seq_len must be between 2 and the model's context length (" +
           std::to_string(model.config().context_length) + "), got " + std::to_string(o.seq_len);
  if (!(o.clip_norm >= 0.0 && std::isfinite(o.clip_norm))) return "clip norm must be finite and >= 0 (0 = off)";
  for (const std::string& message : {validate(o.schedule), validate(o.adamw), validate(o.divergence)})
    if (!message.empty()) return message;
  return {};
}

std::unique_ptr<Trainer> Trainer::create(decoder::Model& model, const TrainOptions& options, std::string* error) {
  const std::string message = validate(options, model);
  if (error) *error = message;
  if (!message.empty()) return nullptr;
  return std::unique_ptr<Trainer>(new Trainer(model, options));
}

Trainer::Trainer(decoder::Model& model, const TrainOptions& options)
    : model_(model),
      options_(options),
      adamw_(model.num_params(), options.adamw),
      monitor_(options.divergence),
      sampler_(shipped_corpus().train, options.seq_len, options.data_seed) {
  std::vector<uint8_t> decay(model.num_params(), 0);
  for (const decoder::ParamTensor& t : model.layout().tensors)
    if (t.shape.size() == 2) std::fill(decay.begin() + long(t.offset), decay.begin() + long(t.offset + t.size), 1);
  adamw_.set_decay_mask(decay);
}

StepReport Trainer::step() {
  StepReport r;
  r.step = steps_++;
  const Sequence batch = sampler_.next();
  r.error = model_.forward(batch.tokens, batch.targets);
  if (!r.error.empty()) return r;
  r.loss = model_.loss();
  if (!std::isfinite(r.loss)) {  // nothing to learn from: report and skip
    r.grad_norm = std::nan("");
    r.status = monitor_.observe(r.loss, r.grad_norm);
    return r;
  }
  model_.zero_grad();
  r.error = model_.backward();
  if (!r.error.empty()) return r;
  auto grads = model_.grads();
  r.grad_norm = clip_global_norm(grads.data(), grads.size(), options_.clip_norm);
  r.status = monitor_.observe(r.loss, r.grad_norm);
  if (!std::isfinite(r.grad_norm)) return r;
  r.lr = learning_rate(options_.schedule, r.step);
  adamw_.step(model_.params().data(), grads.data(), r.lr);
  r.updated = true;
  return r;
}

double Trainer::evaluate(int windows) {
  const auto sequences = fixed_windows(shipped_corpus().validation, options_.seq_len, windows);
  double sum = 0.0;
  for (const Sequence& s : sequences) {
    if (!model_.forward(s.tokens, s.targets).empty()) return std::nan("");
    sum += model_.loss();
  }
  return sequences.empty() ? std::nan("") : sum / double(sequences.size());
}

}  // namespace rl::train
