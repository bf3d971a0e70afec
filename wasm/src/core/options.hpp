// Option tables: the one home of every option the public API takes (the decoder config, its init, trainStep,
// each experiment, each kernel). This file is the machinery (rows, lookup, checks); each layer owns its tables
// and api/all_options.hpp lists them all. A row says the option's JS name, type, default, bounds or allowed
// values and its meaning in one line. The C++ validators check values against these rows, the bindings export
// them (lab.describe()), and the JS validation, the widgets' controls and the README's option reference are
// derived from that export.
#pragma once
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rl::options {

inline constexpr double kInfinity = std::numeric_limits<double>::infinity();
inline constexpr double kFloat32Max = std::numeric_limits<float>::max();  // 3.40282347e+38
inline constexpr double kFloat32Min = std::numeric_limits<float>::min();  // 1.17549435e-38, the smallest normal

enum class Type { integer, number, boolean, choice, list, object };
const char* to_string(Type type);

struct Option {
  std::string name;  // as the JS API spells it: "nLayers"
  Type type = Type::number;
  std::string meaning;  // one line
  // Default: `number` for integer, number and boolean (0 / 1); `text` for choice; `numbers` or `texts` for lists.
  double number = 0;
  std::string text;
  std::vector<double> numbers;
  std::vector<std::string> texts;
  bool nullable = false;  // null is accepted and means what `meaning` says (off, automatic); it is the default
  // integer and number (and list items of those types): inclusive bounds, or an exclusive lower bound.
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_exclusive = false;
  // number (and lists of numbers): the value reaches the C++ as a float32, so it must be 0 or of a magnitude
  // float32 holds at full precision, kFloat32Min to kFloat32Max; beyond, it would become Infinity, below, a
  // subnormal or 0 (a softcap of 1e-50 would turn into 0, "off"). Set by number() and positive().
  bool float32 = false;
  std::vector<std::string> choices;  // choice (and list items of type choice)
  Type item = Type::number;          // list: the type of its entries
  int min_length = 0, max_length = 0;
  std::vector<Option> fields;  // object: its own table

  // The same option with another default or narrower bounds (an experiment's model, a smaller budget).
  Option with_default(double value) const;
  Option with_default(std::string value) const;
  Option within(double lo, double hi) const;
};

using Table = std::vector<Option>;

// A table as JSON, the form lab.describe() returns: an array of rows { name, type, meaning, default, nullable,
// and by type min, max, minExclusive, float32 / choices / item, minLength, maxLength / fields }. One string
// crosses into JavaScript (JSON.parse) instead of a JS object built property by property from the WASM, which
// cost the lab's loading 10-30 ms. Unbounded limits are written 1e999 and -1e999, which JSON.parse reads as
// Infinity and -Infinity; numbers are written with 17 significant digits, so every double reads back exact.
std::string to_json(const Table& table);
// Named tables as one JSON object, each table under its name, a dotted name nested in its group:
// {"decoder": ..., "experiments.warmup": ...} is written {"decoder":[...],"experiments":{"warmup":[...]}}.
std::string to_json(const std::vector<std::pair<std::string, Table>>& named);

Option integer(std::string name, double def, double min, double max, std::string meaning);
Option number(std::string name, double def, double min, double max, std::string meaning);
Option positive(std::string name, double def, double max, std::string meaning);  // min exclusive 0
Option boolean(std::string name, bool def, std::string meaning);
Option choice(std::string name, std::string def, std::vector<std::string> choices, std::string meaning);
Option object(std::string name, Table fields, std::string meaning);
Option number_list(std::string name, std::vector<double> def, Option item, int min_length, int max_length,
                   std::string meaning);
Option choice_list(std::string name, std::vector<std::string> def, std::vector<std::string> choices, int min_length,
                   int max_length, std::string meaning);

// The row named `name` (a dotted path reaches into objects: "init.std"); a missing row is a programming
// error in the caller's table, reported by the tests that build every table.
const Option* find(const Table& table, std::string_view name);
Option* find(Table& table, std::string_view name);

// Whether `value` fits a number or integer row: what check_number accepts, without building a message (kernel
// calls check their options on every call). in_bounds is the row's type and range; fits_float32 its float32 rule.
inline bool fits_float32(double value) {
  return value == 0 || (std::fabs(value) >= kFloat32Min && std::fabs(value) <= kFloat32Max);
}
inline bool in_bounds(const Option& row, double value) {
  const Type type = row.type == Type::list ? row.item : row.type;
  return std::isfinite(value) && (type != Type::integer || value == std::floor(value)) &&
         (row.min_exclusive ? value > row.min : value >= row.min) && value <= row.max;
}
inline bool fits_number(const Option& row, double value) {
  return in_bounds(row, value) && (!row.float32 || fits_float32(value));
}

// "" when `value` fits the row, else one sentence: "nLayers must be an integer from 1 to 1024 (got 0)",
// "eps must be representable as a float32: 1e+39 would become Infinity (...)".
// `label` replaces the row's name in the message (for list entries: "depths[3]").
std::string check_number(const Option& row, double value, std::string_view label = {});
// "" when `value` is 0 or of a magnitude from kFloat32Min to kFloat32Max, else the sentence above.
std::string check_float32(double value, std::string_view name);
std::string check_choice(const Option& row, std::string_view value, std::string_view label = {});
// Looks the row up by name and checks; a name the table lacks gives a message saying so.
std::string check(const Table& table, std::string_view name, double value);
std::string check(const Table& table, std::string_view name, std::string_view value);

// A table with some rows removed (the options an experiment sets itself) and some defaults changed.
Table without(const Table& table, const std::vector<std::string>& names);

}  // namespace rl::options
