#include "train/loop.hpp"

#include <cmath>

#include "train/options.hpp"

namespace rl::train {

std::string validate(const TrainOptions& o, const decoder::Model& model) {
  const Corpus& corpus = shipped_corpus();
  if (model.config().vocab_size < corpus.tokenizer.vocab_size())
    return "the model's vocabSize (" + std::to_string(model.config().vocab_size) + ") is smaller than the corpus's " +
           std::to_string(corpus.tokenizer.vocab_size()) + " characters";
  const options::Table& t = step_options();
  for (const std::string& message : {
           options::check(t, "lr", o.schedule.peak_lr),
           options::check(t, "warmupSteps", o.schedule.warmup_steps),
           options::check(t, "totalSteps", o.schedule.total_steps),
           options::check(t, "finalRatio", o.schedule.final_ratio),
           options::check(t, "clipNorm", o.clip_norm),
           options::check(t, "weightDecay", o.adamw.weight_decay),
           options::check(t, "beta1", o.adamw.beta1),
           options::check(t, "beta2", o.adamw.beta2),
           options::check(t, "adamEps", o.adamw.eps),
           options::check(t, "seqLen", o.seq_len),
       })
    if (!message.empty()) return message;
  if (o.seq_len > model.config().context_length)
    return "seqLen must be at most the model's contextLength (" + std::to_string(model.config().context_length) +
           "), got " + std::to_string(o.seq_len);
  for (const std::string& message : {validate(o.schedule), validate(o.adamw), validate(o.divergence)})
    if (!message.empty()) return message;
  return {};
}

std::unique_ptr<Trainer> Trainer::create(decoder::Model& model, const TrainOptions& options, std::string* error) {
  const std::string message = validate(options, model);
  if (error) *error = message;
  if (!message.empty()) return nullptr;
  // m and v (floats), the decay mask and its temporary (bytes), per parameter
  MemoryReservation memory;
  const std::string refused = reserve_memory(std::uint64_t(model.num_params()) * (2 * sizeof(float) + 2),
                                             "the optimizer state (AdamW)", &memory);
  if (!refused.empty()) {
    if (error) *error = refused;
    return nullptr;
  }
  std::unique_ptr<Trainer> trainer(new Trainer(model, options));
  trainer->memory_ = std::move(memory);
  return trainer;
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
  r.grad_norm = global_norm(grads.data(), grads.size());
  r.status = monitor_.observe(r.loss, r.grad_norm);
  if (!std::isfinite(r.grad_norm)) return r;
  r.lr = learning_rate(options_.schedule, r.step);
  adamw_.step(model_.params().data(), grads.data(), r.lr, clip_scale(r.grad_norm, options_.clip_norm));
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
