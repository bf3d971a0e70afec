// The option tables are the one home of every option's default and bounds. Where C++ structs keep defaults of
// their own (Config, InitConfig, TrainOptions, the experiments' options), these tests fail when the two
// disagree; every row's default must pass its own check, and every row is reachable by its name.
#include <catch2/catch.hpp>

#include <functional>
#include <limits>

#include <cmath>

#include "api/all_options.hpp"
#include "api/kernel_options.hpp"
#include "core/options.hpp"
#include "decoder/config.hpp"
#include "decoder/config_options.hpp"
#include "experiments/gradient_decay.hpp"
#include "experiments/init_gradients.hpp"
#include "experiments/init_scaling.hpp"
#include "experiments/options.hpp"
#include "experiments/qk_logit_growth.hpp"
#include "experiments/residual_growth.hpp"
#include "experiments/warmup.hpp"
#include "train/loop.hpp"
#include "train/options.hpp"

using namespace rl;
using options::Option;
using options::Table;
using options::Type;

namespace {

double number_default(const Table& t, const char* name) {
  const Option* row = options::find(t, name);
  REQUIRE(row);
  return row->number;
}

std::string text_default(const Table& t, const char* name) {
  const Option* row = options::find(t, name);
  REQUIRE(row);
  return row->text;
}

void check_rows_accept_their_defaults(const Table& table, const std::string& where) {
  for (const Option& o : table) {
    INFO(where << "." << o.name);
    CHECK_FALSE(o.meaning.empty());
    switch (o.type) {
      case Type::integer:
      case Type::number:
        if (!o.nullable) CHECK(options::check_number(o, o.number) == "");
        break;
      case Type::choice: CHECK(options::check_choice(o, o.text) == ""); break;
      case Type::list:
        CHECK(int(o.item == Type::choice ? o.texts.size() : o.numbers.size()) >= o.min_length);
        for (double v : o.numbers) CHECK(options::check_number(o, v) == "");
        for (const std::string& v : o.texts) CHECK(options::check_choice(o, v) == "");
        break;
      case Type::object: check_rows_accept_their_defaults(o.fields, where + "." + o.name); break;
      case Type::boolean: CHECK((o.number == 0 || o.number == 1)); break;
    }
  }
}

void check_model_defaults(const Table& t, const experiments::ModelOptions& m) {
  CHECK(number_default(t, "dModel") == m.d_model);
  CHECK(number_default(t, "nHeads") == m.n_heads);
  CHECK(number_default(t, "contextLength") == m.context_length);
  CHECK(text_default(t, "norm") == decoder::to_string(m.norm));
  if (options::find(t, "nLayers")) CHECK(number_default(t, "nLayers") == m.n_layers);
  if (options::find(t, "placement")) CHECK(text_default(t, "placement") == decoder::to_string(m.placement));
  CHECK(text_default(t, "init.scheme") == decoder::to_string(m.init.scheme));
  CHECK(float(number_default(t, "init.std")) == m.init.std);
}

}  // namespace

TEST_CASE("every option table row accepts its own default", "[options]") {
  for (const auto& [name, table] : options::all_tables()) check_rows_accept_their_defaults(table, name);
}

TEST_CASE("a row's check names the option, its bounds and the value", "[options]") {
  const Table& t = decoder::config_options();
  CHECK(options::check(t, "nLayers", 0) == "nLayers must be an integer from 1 to 1024 (got 0)");
  CHECK(options::check(t, "nLayers", 2.5) == "nLayers must be an integer from 1 to 1024 (got 2.5)");
  CHECK(options::check(t, "eps", 0) == "eps must be a finite number above 0 and at most 1 (got 0)");
  CHECK(options::check(t, "init.std", NAN) == "init.std must be a finite number from 0 to 100 (got NaN)");
  CHECK(options::check(t, "placement", "middle") ==
        "placement must be one of pre, post, sandwich, olmo2, deepnorm (got \"middle\")");
  CHECK(options::check(t, "noSuchOption", 1) == "no option named noSuchOption");
  CHECK(options::check(t, "nLayers", 1) == "");
}

// The float32 rule is the one web/lib/options.js applies to rows with float32 set (tests/js/api.test.mjs
// checks the same values and sentences).
TEST_CASE("number rows refuse values float32 cannot hold, quoting them as given", "[options][edges]") {
  const Table& t = decoder::config_options();
  CHECK(options::check(t, "attnSoftcap", 1e-50) ==
        "attnSoftcap must be representable as a float32: 1e-50 would become 0 (nonzero magnitudes from "
        "1.17549435e-38 to 3.40282347e+38)");
  CHECK(options::check(t, "finalSoftcap", 1e39) ==
        "finalSoftcap must be representable as a float32: 1e+39 would become Infinity (nonzero magnitudes from "
        "1.17549435e-38 to 3.40282347e+38)");
  CHECK(options::check(t, "eps", 1e-40) ==
        "eps must be representable as a float32: 1e-40 would become a subnormal float32 (imprecise) (nonzero "
        "magnitudes from 1.17549435e-38 to 3.40282347e+38)");
  CHECK(options::check(t, "attnSoftcap", std::numeric_limits<float>::min()) == "");
  CHECK(options::check(t, "attnSoftcap", std::numeric_limits<float>::max()) == "");
  const Table& k = api::kernel_option_tables().front().second;  // rmsNorm
  CHECK(options::check(k, "eps", 1e39).find("1e+39 would become Infinity") != std::string::npos);
  CHECK(options::check(k, "weightOffset", -1e39).find("-1e+39 would become -Infinity") != std::string::npos);
  CHECK(options::check(k, "eps", 0) == "");
  // every number row, at any depth, carries the flag; integer rows fit an int32 or are seeds (read as doubles)
  std::function<void(const Table&, const std::string&)> walk = [&](const Table& table, const std::string& where) {
    for (const options::Option& row : table) {
      INFO(where << "." << row.name);
      const options::Type kind = row.type == options::Type::list ? row.item : row.type;
      if (kind == options::Type::number) CHECK(row.float32);
      if (kind == options::Type::integer && row.name.find("eed") == std::string::npos) {
        CHECK(row.min >= -2147483648.0);
        CHECK(row.max <= 2147483647.0);
      }
      if (row.type == options::Type::object) walk(row.fields, where + "." + row.name);
    }
  };
  for (const auto& [name, table] : options::all_tables()) walk(table, name);
}

TEST_CASE("the decoder's and trainStep's C++ defaults are the tables' defaults", "[options]") {
  const decoder::Config c;
  const Table& t = decoder::config_options();
  CHECK(number_default(t, "vocabSize") == c.vocab_size);
  CHECK(number_default(t, "dModel") == c.d_model);
  CHECK(number_default(t, "nHeads") == c.n_heads);
  CHECK(options::find(t, "dFF")->nullable);
  CHECK(c.d_ff == 0);  // null: 4 * dModel
  CHECK(number_default(t, "nLayers") == c.n_layers);
  CHECK(number_default(t, "contextLength") == c.context_length);
  CHECK(text_default(t, "mlp") == decoder::to_string(c.mlp));
  CHECK(text_default(t, "norm") == decoder::to_string(c.norm));
  CHECK(text_default(t, "placement") == decoder::to_string(c.placement));
  CHECK(number_default(t, "residual") == c.residual);
  CHECK(number_default(t, "qkNorm") == c.qk_norm);
  CHECK(number_default(t, "posEmbed") == c.pos_embed);
  CHECK(float(number_default(t, "eps")) == c.eps);
  CHECK(text_default(t, "init.scheme") == decoder::to_string(c.init.scheme));
  CHECK(float(number_default(t, "init.std")) == c.init.std);
  CHECK(number_default(t, "init.residualScaling") == c.init.residual_scaling);
  CHECK(float(number_default(t, "init.embedScale")) == c.init.embed_scale);
  CHECK(number_default(t, "init.zeroQK") == c.init.zero_qk);
  CHECK(float(number_default(t, "init.qkGain")) == c.init.qk_gain);
  CHECK(number_default(t, "init.seed") == double(c.init.seed));

  const train::TrainOptions o;
  const Table& tr = train::step_options();
  CHECK(number_default(tr, "lr") == o.schedule.peak_lr);
  CHECK(number_default(tr, "warmupSteps") == o.schedule.warmup_steps);
  CHECK(number_default(tr, "totalSteps") == o.schedule.total_steps);
  CHECK(number_default(tr, "finalRatio") == o.schedule.final_ratio);
  CHECK(number_default(tr, "clipNorm") == o.clip_norm);
  CHECK(number_default(tr, "beta1") == o.adamw.beta1);
  CHECK(number_default(tr, "beta2") == o.adamw.beta2);
  CHECK(number_default(tr, "adamEps") == o.adamw.eps);
  CHECK(number_default(tr, "dataSeed") == double(o.data_seed));
}

TEST_CASE("each experiment's C++ defaults are its table's defaults", "[options][experiments]") {
  using namespace experiments;
  const GradientDecayOptions g;
  const Table& gt = option_table("gradientDecay");
  CHECK(number_default(gt, "nLayers") == g.n_layers);
  CHECK(number_default(gt, "gain") == g.gain);
  CHECK(number_default(gt, "width") == g.width);
  CHECK(number_default(gt, "residual") == g.residual);
  CHECK(text_default(gt, "variant") == (g.variant == GradientDecayVariant::linear ? "linear" : "mlp"));

  const InitGradientsOptions ig;
  const Table& igt = option_table("initGradients");
  check_model_defaults(igt, ig.model);
  CHECK(number_default(igt, "samples") == ig.samples);
  CHECK(options::find(igt, "depths")->numbers == std::vector<double>(ig.depths.begin(), ig.depths.end()));
  std::vector<std::string> placements;
  for (decoder::Placement p : ig.placements) placements.emplace_back(decoder::to_string(p));
  CHECK(options::find(igt, "placements")->texts == placements);

  const ResidualGrowthOptions rg;
  const Table& rgt = option_table("residualGrowth");
  check_model_defaults(rgt, rg.model);
  CHECK(number_default(rgt, "trainSteps") == rg.train_steps);
  CHECK(number_default(rgt, "lr") == rg.lr);

  const WarmupOptions w;
  const Table& wt = option_table("warmup");
  check_model_defaults(wt, w.model);
  CHECK(number_default(wt, "steps") == w.steps);
  CHECK(number_default(wt, "lr") == w.lr);
  CHECK(number_default(wt, "warmupSteps") == w.warmup_steps);
  CHECK(number_default(wt, "clipNorm") == w.clip_norm);
  CHECK(number_default(wt, "beta2") == w.beta2);
  CHECK(number_default(wt, "evalWindows") == w.eval_windows);

  const QkLogitGrowthOptions q;
  check_model_defaults(option_table("qkLogitGrowth"), q.model);
  CHECK(options::find(option_table("qkLogitGrowth"), "gains")->numbers == q.gains);

  const InitScalingOptions s;
  check_model_defaults(option_table("initScaling"), s.model);
  const std::vector<int>& depths = s.depths;
  CHECK(options::find(option_table("initScaling"), "depths")->numbers ==
        std::vector<double>(depths.begin(), depths.end()));
}

TEST_CASE("options an experiment sets itself are not in its table", "[options][experiments]") {
  using experiments::option_table;
  CHECK_FALSE(options::find(option_table("warmup"), "placement"));
  CHECK_FALSE(options::find(option_table("initGradients"), "placement"));
  CHECK_FALSE(options::find(option_table("initScaling"), "nLayers"));
  CHECK_FALSE(options::find(option_table("initScaling"), "init.residualScaling"));
  CHECK_FALSE(options::find(option_table("qkLogitGrowth"), "qkNorm"));
  CHECK(options::find(option_table("warmup"), "init.seed"));
}

TEST_CASE("a table's JSON is what lab.describe() returns: every field, exact numbers, escaped text", "[options]") {
  using namespace rl::options;
  Option nullable_cap = positive("cap", 30, kInfinity, "off when null");
  nullable_cap.nullable = true;
  const Table table = {
      integer("layers", 4, 1, 64, "say \"deep\" \\ or\nnot"),
      nullable_cap,
      boolean("zeroQK", true, "QK-Norm 归一化"),
      object("init", {number("std", 0.02, -kInfinity, 1, "weights")}, "how weights start"),
      choice_list("norms", {"rms"}, {"rms", "layer"}, 1, 2, "kinds"),
      number_list("xs", {0.1, -2}, number("x", 0, -1e300, 1e300, "item"), 0, 8, "values"),
  };
  CHECK(to_json(table) ==
        "[{\"name\":\"layers\",\"type\":\"integer\",\"meaning\":\"say \\\"deep\\\" \\\\ or\\u000anot\",\"default\":4,"
        "\"nullable\":false,\"min\":1,\"max\":64,\"minExclusive\":false,\"float32\":false},"
        "{\"name\":\"cap\",\"type\":\"number\",\"meaning\":\"off when null\",\"default\":null,\"nullable\":true,"
        "\"min\":0,\"max\":1e999,\"minExclusive\":true,\"float32\":true},"
        "{\"name\":\"zeroQK\",\"type\":\"boolean\",\"meaning\":\"QK-Norm 归一化\",\"default\":true,\"nullable\":false},"
        "{\"name\":\"init\",\"type\":\"object\",\"meaning\":\"how weights start\",\"default\":{\"std\":"
        "0.02},\"nullable\":false,\"fields\":[{\"name\":\"std\",\"type\":\"number\",\"meaning\":"
        "\"weights\",\"default\":0.02,\"nullable\":false,\"min\":-1e999,\"max\":1,"
        "\"minExclusive\":false,\"float32\":true}]},"
        "{\"name\":\"norms\",\"type\":\"list\",\"meaning\":\"kinds\",\"default\":[\"rms\"],\"nullable\":false,"
        "\"choices\":[\"rms\",\"layer\"],\"item\":\"choice\",\"minLength\":1,\"maxLength\":2},"
        "{\"name\":\"xs\",\"type\":\"list\",\"meaning\":\"values\",\"default\":[0.10000000000000001,-2],"
        "\"nullable\":false,\"min\":-1.0000000000000001e+300,\"max\":1.0000000000000001e+300,\"minExclusive\":false,"
        "\"float32\":true,\"item\":\"number\",\"minLength\":0,\"maxLength\":8}]");
  // Named tables: one object, a dotted name nested under its group wherever the group's tables stand.
  const Table one = {boolean("on", false, "a switch")};
  CHECK(to_json({{"decoder", one}, {"experiments.warmup", table}, {"train", {}}, {"experiments.qk", one}}) ==
        "{\"decoder\":" + to_json(one) + ",\"experiments\":{\"warmup\":" + to_json(table) + ",\"qk\":" + to_json(one) +
            "},\"train\":[]}");
  const std::string all = to_json(all_tables());
  CHECK(all.rfind("{\"decoder\":" + to_json(decoder::config_options()) + ",\"train\":", 0) == 0);
  CHECK(all.find(",\"kernels\":{\"rmsNorm\":" + to_json(api::kernel_option_tables().front().second)) !=
        std::string::npos);
}
