#include "experiments/options.hpp"

#include "decoder/config.hpp"
#include "decoder/config_options.hpp"
#include "experiments/gradient_decay.hpp"
#include "experiments/warmup.hpp"

namespace rl::experiments {
namespace {

using namespace options;

constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 - 1

const Option& decoder_row(const char* name) { return *find(decoder::config_options(), name); }

Table build_model_rows() {
  return {
      decoder_row("nLayers").with_default(6).within(1, 128),
      decoder_row("dModel").within(4, 256),
      decoder_row("nHeads").within(1, 16),
      decoder_row("contextLength").with_default(64).within(2, 128),
      decoder_row("norm"),
      decoder_row("placement"),
      decoder_row("qkNorm"),
      decoder_row("init"),
  };
}

// The model rows with other defaults: {"nLayers", 12}, {"init.scheme", "xavier"}.
Table model(std::vector<std::pair<std::string, double>> numbers, std::vector<std::pair<std::string, std::string>> texts,
            const std::vector<std::string>& set_by_experiment) {
  Table t = without(model_rows(), set_by_experiment);
  for (auto& [name, value] : numbers) find(t, name)->number = value;
  for (auto& [name, value] : texts) find(t, name)->text = value;
  return t;
}

Table with(Table t, const Table& extra) {
  t.insert(t.end(), extra.begin(), extra.end());
  return t;
}

std::vector<std::pair<std::string, Table>> build() {
  const Option depth = integer("depth", 1, 1, 96, "");
  return {
      {"gradientDecay",
       {
           integer("nLayers", 32, 1, 256, "layers in the stack"),
           number("gain", 0.8, 0, 4, "each layer's scale (with residuals: the branch's scale)"),
           boolean("residual", false, "h + F(h) instead of F(h)"),
           choice("variant", "linear", {"linear", "mlp"},
                  "linear: random orthogonal matrices times gain; mlp: seeded GELU MLP layers"),
           integer("width", 256, 2, 1024, "width of the stack (mlp: at most " + std::to_string(kMaxMlpWidth) + ")"),
           integer("seed", 0, 0, kMaxSeed, "the random seed"),
       }},
      {"initGradients",
       with(model({{"nLayers", 12}}, {}, {"placement"}),
            {
                choice_list("placements", {"post", "pre"}, decoder_row("placement").choices, 1, 5,
                            "the placements compared"),
                number_list("depths", {6, 12, 24, 48}, depth, 1, 12, "depths of the last-layer-gradient curve"),
                integer("samples", 2, 1, 16, "text windows in the batch"),
            })},
      {"residualGrowth", with(model({{"nLayers", 8}}, {{"norm", "rmsnorm"}}, {}),
                              {
                                  integer("trainSteps", 0, 0, 2000, "AdamW steps (no warmup, clip 1) before measuring"),
                                  positive("lr", 1e-3, 1, "their learning rate"),
                              })},
      {"warmup",
       with(model({}, {{"init.scheme", "xavier"}}, {"placement"}),
            {
                integer("steps", 200, 10, 5000, "training steps of each of the four runs"),
                positive("lr", 3e-3, 1, "the peak learning rate of every run"),
                integer("warmupSteps", 50, 1, 5000, "the warmed-up runs' linear ramp (at most steps)"),
                number("clipNorm", 0, 0, 1e6, "gradient clipping; 0 is off"),
                number("beta2", 0.999, 0, 0.999999, "AdamW's second-moment decay"),
                integer("evalWindows", 8, 1, 16, "validation windows for the final loss"),
                choice_list("runs", warmup_run_names(), warmup_run_names(), 1, 4,
                            "which of the four runs to train; each gives the same curves alone as in the race, so "
                            "the race can be split across workers"),
            })},
      {"qkLogitGrowth", with(model({{"nLayers", 2}}, {{"norm", "rmsnorm"}}, {"qkNorm", "init.qkGain"}),
                             {
                                 number_list("gains", {1, 2, 4, 8, 16, 32, 64}, positive("gain", 1, 1000, ""), 1, 32,
                                             "factors on the q and k weights"),
                             })},
      {"initScaling",
       with(model({}, {}, {"nLayers", "init.residualScaling"}),
            {
                number_list("depths", {1, 2, 4, 8, 16, 32, 64}, depth.within(1, 128), 1, 12, "the depths compared"),
            })},
  };
}

}  // namespace

const Table& model_rows() {
  static const Table rows = build_model_rows();
  return rows;
}

const std::vector<std::pair<std::string, Table>>& option_tables() {
  static const std::vector<std::pair<std::string, Table>> tables = build();
  return tables;
}

std::string check_length(const Table& table, const std::string& name, std::size_t length) {
  const Option* row = find(table, name);
  if (!row) return "no option named " + name;
  if (length >= std::size_t(row->min_length) && length <= std::size_t(row->max_length)) return "";
  return name + " must have " + std::to_string(row->min_length) + " to " + std::to_string(row->max_length) +
         " entries (got " + std::to_string(length) + ")";
}

const Table& option_table(const std::string& experiment) {
  for (const auto& [name, table] : option_tables())
    if (name == experiment) return table;
  static const Table empty;
  return empty;
}

}  // namespace rl::experiments
