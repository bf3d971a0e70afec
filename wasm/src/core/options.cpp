#include "core/options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rl::options {

const char* to_string(Type type) {
  switch (type) {
    case Type::integer: return "integer";
    case Type::number: return "number";
    case Type::boolean: return "boolean";
    case Type::choice: return "choice";
    case Type::list: return "list";
    case Type::object: return "object";
  }
  return "?";
}

Option Option::with_default(double value) const {
  Option o = *this;
  o.number = value;
  return o;
}

Option Option::with_default(std::string value) const {
  Option o = *this;
  o.text = std::move(value);
  return o;
}

Option Option::within(double lo, double hi) const {
  Option o = *this;
  o.min = lo;
  o.max = hi;
  return o;
}

Option integer(std::string name, double def, double min, double max, std::string meaning) {
  Option o;
  o.name = std::move(name), o.type = Type::integer, o.meaning = std::move(meaning);
  o.number = def, o.min = min, o.max = max;
  return o;
}

Option number(std::string name, double def, double min, double max, std::string meaning) {
  Option o = integer(std::move(name), def, min, max, std::move(meaning));
  o.type = Type::number;
  o.float32 = true;
  return o;
}

Option positive(std::string name, double def, double max, std::string meaning) {
  Option o = number(std::move(name), def, 0, max, std::move(meaning));
  o.min_exclusive = true;
  return o;
}

Option boolean(std::string name, bool def, std::string meaning) {
  Option o;
  o.name = std::move(name), o.type = Type::boolean, o.meaning = std::move(meaning), o.number = def ? 1 : 0;
  return o;
}

Option choice(std::string name, std::string def, std::vector<std::string> choices, std::string meaning) {
  Option o;
  o.name = std::move(name), o.type = Type::choice, o.meaning = std::move(meaning);
  o.text = std::move(def), o.choices = std::move(choices);
  return o;
}

Option object(std::string name, Table fields, std::string meaning) {
  Option o;
  o.name = std::move(name), o.type = Type::object, o.meaning = std::move(meaning), o.fields = std::move(fields);
  return o;
}

Option number_list(std::string name, std::vector<double> def, Option item, int min_length, int max_length,
                   std::string meaning) {
  Option o = item;
  o.name = std::move(name), o.type = Type::list, o.meaning = std::move(meaning), o.item = item.type;
  o.numbers = std::move(def), o.min_length = min_length, o.max_length = max_length;
  return o;
}

Option choice_list(std::string name, std::vector<std::string> def, std::vector<std::string> choices, int min_length,
                   int max_length, std::string meaning) {
  Option o = choice(std::move(name), "", std::move(choices), std::move(meaning));
  o.type = Type::list, o.item = Type::choice;
  o.texts = std::move(def), o.min_length = min_length, o.max_length = max_length;
  return o;
}

const Option* find(const Table& table, std::string_view name) {
  const std::size_t dot = name.find('.');
  const std::string_view head = name.substr(0, dot);
  for (const Option& o : table) {
    if (o.name != head) continue;
    if (dot == std::string_view::npos) return &o;
    return o.type == Type::object ? find(o.fields, name.substr(dot + 1)) : nullptr;
  }
  return nullptr;
}

Option* find(Table& table, std::string_view name) {
  return const_cast<Option*>(find(static_cast<const Table&>(table), name));
}

namespace {

std::string shown(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  char text[32];
  std::snprintf(text, sizeof text, "%.10g", v);  // what a stream with precision 10 writes, without iostreams' weight
  return text;
}

}  // namespace

std::string check_number(const Option& row, double value, std::string_view label) {
  if (fits_number(row, value)) return "";
  const std::string name(label.empty() ? std::string_view(row.name) : label);
  const Type type = row.type == Type::list ? row.item : row.type;
  const bool integral = type == Type::integer;
  if (in_bounds(row, value)) return check_float32(value, name);
  std::string bounds;
  const bool bounded_below = std::isfinite(row.min), bounded_above = std::isfinite(row.max);
  if (bounded_below && bounded_above)
    bounds = row.min_exclusive ? " above " + shown(row.min) + " and at most " + shown(row.max)
                               : " from " + shown(row.min) + " to " + shown(row.max);
  else if (bounded_below) bounds = (row.min_exclusive ? " above " : " of at least ") + shown(row.min);
  else if (bounded_above) bounds = " of at most " + shown(row.max);
  return name + " must be " + (integral ? "an integer" : "a finite number") + bounds + " (got " + shown(value) + ")";
}

std::string check_float32(double value, std::string_view name) {
  if (fits_float32(value)) return "";
  const double magnitude = std::fabs(value);
  const std::string becomes = magnitude > kFloat32Max          ? (value > 0 ? "Infinity" : "-Infinity")
                              : static_cast<float>(value) == 0 ? "0"
                                                               : "a subnormal float32 (imprecise)";
  return std::string(name) + " must be representable as a float32: " + shown(value) + " would become " + becomes +
         " (nonzero magnitudes from 1.17549435e-38 to 3.40282347e+38)";
}

std::string check_choice(const Option& row, std::string_view value, std::string_view label) {
  for (const std::string& c : row.choices)
    if (c == value) return "";
  std::string list;
  for (const std::string& c : row.choices) list += (list.empty() ? "" : ", ") + c;
  return std::string(label.empty() ? std::string_view(row.name) : label) + " must be one of " + list + " (got \"" +
         std::string(value) + "\")";
}

std::string check(const Table& table, std::string_view name, double value) {
  const Option* row = find(table, name);
  return row ? check_number(*row, value, name) : "no option named " + std::string(name);
}

std::string check(const Table& table, std::string_view name, std::string_view value) {
  const Option* row = find(table, name);
  return row ? check_choice(*row, value, name) : "no option named " + std::string(name);
}

Table without(const Table& table, const std::vector<std::string>& names) {
  Table out;
  for (const Option& o : table) {
    bool drop = false;
    for (const std::string& n : names) drop = drop || n == o.name;
    if (drop) continue;
    Option kept = o;
    if (o.type == Type::object) {
      std::vector<std::string> inner;
      const std::string prefix = o.name + ".";
      for (const std::string& n : names)
        if (n.rfind(prefix, 0) == 0) inner.push_back(n.substr(prefix.size()));
      kept.fields = without(o.fields, inner);
    }
    out.push_back(std::move(kept));
  }
  return out;
}

namespace {

void append_json(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
      out += escaped;
    } else {
      out += c;  // UTF-8 passes through
    }
  }
  out += '"';
}

void append_json(std::string& out, double v) {
  if (std::isnan(v)) {
    out += "null";
    return;
  }
  if (std::isinf(v)) {
    out += v > 0 ? "1e999" : "-1e999";
    return;
  }
  char digits[32];
  std::snprintf(digits, sizeof digits, "%.17g", v);
  out += digits;
}

void append_json(std::string& out, const std::vector<std::string>& texts) {
  out += '[';
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (i) out += ',';
    append_json(out, texts[i]);
  }
  out += ']';
}

void append_default(std::string& out, const Option& o) {
  if (o.nullable) {
    out += "null";
    return;
  }
  switch (o.type) {
    case Type::integer:
    case Type::number: append_json(out, o.number); return;
    case Type::boolean: out += o.number != 0 ? "true" : "false"; return;
    case Type::choice: append_json(out, o.text); return;
    case Type::list:
      if (o.item == Type::choice) {
        append_json(out, o.texts);
        return;
      }
      out += '[';
      for (std::size_t i = 0; i < o.numbers.size(); ++i) {
        if (i) out += ',';
        append_json(out, o.numbers[i]);
      }
      out += ']';
      return;
    case Type::object:
      out += '{';
      for (std::size_t i = 0; i < o.fields.size(); ++i) {
        if (i) out += ',';
        append_json(out, o.fields[i].name);
        out += ':';
        append_default(out, o.fields[i]);
      }
      out += '}';
      return;
  }
}

// `,"key":` before a value
void append_key(std::string& out, const char* key) {
  out += ",\"";
  out += key;
  out += "\":";
}

void append_table(std::string& out, const Table& table) {
  out += '[';
  for (std::size_t i = 0; i < table.size(); ++i) {
    const Option& o = table[i];
    if (i) out += ',';
    out += "{\"name\":";
    append_json(out, o.name);
    append_key(out, "type");
    append_json(out, to_string(o.type));
    append_key(out, "meaning");
    append_json(out, o.meaning);
    append_key(out, "default");
    append_default(out, o);
    append_key(out, "nullable");
    out += o.nullable ? "true" : "false";
    const Type kind = o.type == Type::list ? o.item : o.type;
    if (kind == Type::integer || kind == Type::number) {
      append_key(out, "min");
      append_json(out, o.min);
      append_key(out, "max");
      append_json(out, o.max);
      append_key(out, "minExclusive");
      out += o.min_exclusive ? "true" : "false";
      append_key(out, "float32");
      out += o.float32 ? "true" : "false";
    }
    if (kind == Type::choice) {
      append_key(out, "choices");
      append_json(out, o.choices);
    }
    if (o.type == Type::list) {
      append_key(out, "item");
      append_json(out, to_string(o.item));
      append_key(out, "minLength");
      append_json(out, o.min_length);
      append_key(out, "maxLength");
      append_json(out, o.max_length);
    }
    if (o.type == Type::object) {
      append_key(out, "fields");
      append_table(out, o.fields);
    }
    out += '}';
  }
  out += ']';
}

}  // namespace

std::string to_json(const Table& table) {
  std::string out;
  append_table(out, table);
  return out;
}

std::string to_json(const std::vector<std::pair<std::string, Table>>& named) {
  struct Entry {
    std::string_view key;  // a table's name, or a group's ("experiments")
    bool group;
    std::vector<std::size_t> tables;  // indices into `named`, in order
  };
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < named.size(); ++i) {
    const std::string_view name = named[i].first;
    const std::size_t dot = name.find('.');
    if (dot == std::string_view::npos) {
      entries.push_back({name, false, {i}});
      continue;
    }
    const std::string_view group = name.substr(0, dot);
    auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry& e) { return e.group && e.key == group; });
    if (it == entries.end()) it = entries.insert(entries.end(), Entry{group, true, {}});
    it->tables.push_back(i);
  }
  std::string out = "{";
  for (const Entry& entry : entries) {
    if (out.size() > 1) out += ',';
    append_json(out, entry.key);
    out += ':';
    if (!entry.group) {
      append_table(out, named[entry.tables[0]].second);
      continue;
    }
    out += '{';
    for (std::size_t k = 0; k < entry.tables.size(); ++k) {
      if (k) out += ',';
      append_json(out, std::string_view(named[entry.tables[k]].first).substr(entry.key.size() + 1));
      out += ':';
      append_table(out, named[entry.tables[k]].second);
    }
    out += '}';
  }
  return out + '}';
}

}  // namespace rl::options
