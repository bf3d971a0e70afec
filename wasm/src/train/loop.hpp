// Training the lab's decoder on the shipped corpus, one step at a time so a page can draw progress and stop.
//
// One step:  sample a window -> forward with targets -> backward (gradients zeroed first) -> clip to the global
// norm -> AdamW at the scheduled learning rate. A non-finite loss or gradient skips the update, and every step's
// status (train/divergence.hpp) is reported with the loss, so divergence is visible, not hidden.
// Weight decay applies to matrices (tensors of rank 2) only, not to norm gains and biases.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/memory_budget.hpp"
#include "decoder/model.hpp"
#include "train/adamw.hpp"
#include "train/corpus.hpp"
#include "train/divergence.hpp"
#include "train/schedule.hpp"

namespace rl::train {

struct TrainOptions {
  LrSchedule schedule;
  AdamWConfig adamw;
  double clip_norm = 1.0;  // 0 = no clipping
  DivergenceConfig divergence;
  int seq_len = 64;        // tokens per step (one sequence); at most the model's context length
  uint64_t data_seed = 0;  // the sampler's stream (the model's init has its own seed)
};

struct StepReport {
  int step = 0;          // 0-based index of this step
  double loss = 0;       // the batch's loss before the update
  double grad_norm = 0;  // global gradient norm before clipping
  double lr = 0;         // learning rate used (0 when the update was skipped)
  TrainStatus status = TrainStatus::ok;
  bool updated = false;  // false when a non-finite loss or gradient skipped the update
  std::string error;     // non-empty only if the model refused the batch (a bug, not divergence)
};

// Empty when usable with this model, else a message naming the field.
std::string validate(const TrainOptions& options, const decoder::Model& model);

class Trainer {
 public:
  // nullptr and *error set when the options do not fit the model (vocabulary, context, bad numbers).
  // The model must outlive the trainer.
  static std::unique_ptr<Trainer> create(decoder::Model& model, const TrainOptions& options, std::string* error);

  StepReport step();
  // Mean loss over the first `windows` validation windows of seq_len tokens (no gradients).
  double evaluate(int windows);

  int steps_taken() const { return steps_; }
  const DivergenceMonitor& monitor() const { return monitor_; }
  const TrainOptions& options() const { return options_; }

 private:
  Trainer(decoder::Model& model, const TrainOptions& options);
  MemoryReservation memory_;  // AdamW's moments and decay mask, and the mask's construction
  decoder::Model& model_;
  TrainOptions options_;
  AdamW adamw_;
  DivergenceMonitor monitor_;
  BatchSampler sampler_;
  int steps_ = 0;
};

}  // namespace rl::train
