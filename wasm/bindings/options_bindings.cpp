// lab.describe(): every option table (api/all_options.hpp) as plain JS objects, for web/lib/options.js.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>

#include "api/all_options.hpp"
#include "core/options.hpp"

namespace {

using emscripten::val;
using rl::options::Option;
using rl::options::Table;
using rl::options::Type;

val strings(const std::vector<std::string>& v) {
  val out = val::array();
  for (const std::string& s : v) out.call<void>("push", s);
  return out;
}

val table_js(const Table& table);

val default_of(const Option& o) {
  if (o.nullable) return val::null();
  switch (o.type) {
    case Type::integer:
    case Type::number: return val(o.number);
    case Type::boolean: return val(o.number != 0);
    case Type::choice: return val(o.text);
    case Type::list: {
      if (o.item == Type::choice) return strings(o.texts);
      val out = val::array();
      for (double v : o.numbers) out.call<void>("push", v);
      return out;
    }
    case Type::object: {
      val out = val::object();
      for (const Option& f : o.fields) out.set(f.name, default_of(f));
      return out;
    }
  }
  return val::undefined();
}

val row_js(const Option& o) {
  val row = val::object();
  row.set("name", o.name);
  row.set("type", std::string(rl::options::to_string(o.type)));
  row.set("meaning", o.meaning);
  row.set("default", default_of(o));
  row.set("nullable", o.nullable);
  const Type kind = o.type == Type::list ? o.item : o.type;
  if (kind == Type::integer || kind == Type::number) {
    row.set("min", o.min);
    row.set("max", o.max);
    row.set("minExclusive", o.min_exclusive);
    row.set("float32", o.float32);
  }
  if (kind == Type::choice) row.set("choices", strings(o.choices));
  if (o.type == Type::list) {
    row.set("item", std::string(rl::options::to_string(o.item)));
    row.set("minLength", o.min_length);
    row.set("maxLength", o.max_length);
  }
  if (o.type == Type::object) row.set("fields", table_js(o.fields));
  return row;
}

val table_js(const Table& table) {
  val out = val::array();
  for (const Option& o : table) out.call<void>("push", row_js(o));
  return out;
}

// { decoder: [...], train: [...], experiments: { warmup: [...], ... }, kernels: { rmsNorm: [...], ... } }
val describe() {
  val out = val::object();
  for (const auto& [key, table] : rl::options::all_tables()) {
    const std::size_t dot = key.find('.');
    if (dot == std::string::npos) {
      out.set(key, table_js(table));
      continue;
    }
    const std::string group = key.substr(0, dot);
    if (out[group].isUndefined()) out.set(group, val::object());
    out[group].set(key.substr(dot + 1), table_js(table));
  }
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(residual_lab_options) { emscripten::function("describeOptions", &describe); }
