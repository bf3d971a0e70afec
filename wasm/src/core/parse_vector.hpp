// Parses the vector a reader types: "[2, -1, 3, 0]", "2 -1 3 0", "2,-1,3,0", full-width "［2，−1，3，0］",
// the Unicode minus "−" (U+2212), exponents "1e-3", ".5", "2.". Numbers are separated by commas (",", "，",
// "、") and/or whitespace; one trailing comma is allowed; one pair of square brackets around the whole list
// is optional. Full-width digits, "．", "＋", "－" and "ｅ" from a Chinese IME read as their ASCII forms.
//
// Everything else is an error that names where and what (see ParseError); the caller can show `message` or
// translate by `code`. Control characters (U+0000 to U+001F other than the separators tab, LF and CR, and
// U+007F) are unexpected_char, named by their code point; so is a lone surrogate (U+D800 to U+DFFF, which
// JavaScript strings can hold and web/lib/kernels.js encodes as the 3 bytes UTF-8 would use), never echoed. Rejected:
// no numbers at all, NaN / infinity, values that overflow float32, and more than kMaxVectorLength numbers. Numbers too
// small for float32 round to 0 or a subnormal, as float32 does.
//
// Header-only (the build compiles .cpp files from wasm/src/ and wasm/src/kernels/ only).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace rl {

inline constexpr int kMaxVectorLength = 1 << 20;  // 1,048,576
// Longest text read: 16 bytes for each of kMaxVectorLength numbers, room for float32's 9 significant digits with
// sign, exponent and separator ("-1.23456789e-30,"). Decoding costs sizeof(parse_detail::Char) per byte.
inline constexpr std::size_t kMaxVectorTextBytes = std::size_t(16) * kMaxVectorLength;

struct ParseError {
  // empty | too_long | unexpected_char | invalid_number | not_finite | out_of_range | underflow | missing_value
  // | unclosed_bracket | unmatched_bracket | nested_bracket | trailing_text | too_many_values | invalid_utf8
  std::string code;
  int position = 0;     // 0-based index in UTF-16 code units, as JavaScript indexes the string
  int column = 1;       // 1-based index in characters, as the message says it
  std::string text;     // the offending character or number, as typed ("U+0000 (a control character)" for one
                        // a message cannot quote)
  std::string message;  // plain English, e.g. "unexpected 'x' at character 7"
};

struct ParsedVector {
  bool ok = false;
  std::vector<float> values;  // when ok
  ParseError error;           // when !ok
};

namespace parse_detail {

// One decoded character: its code point, its ASCII reading (0 if none), where it starts, and its original bytes.
struct Char {
  std::uint32_t cp;
  char ascii;
  int position, column;
  std::string_view original;
};

inline bool is_surrogate(std::uint32_t cp) { return cp >= 0xD800 && cp <= 0xDFFF; }
// A character a message cannot quote: a control character (tab, LF and CR are separators) or a lone surrogate.
inline bool is_unprintable(std::uint32_t cp) {
  return (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F || is_surrogate(cp);
}

// "U+0000", "U+D800 (a lone surrogate)"
inline std::string code_point_name(std::uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "U+%04X", static_cast<unsigned>(cp));
  return std::string(buf) + (is_surrogate(cp) ? " (a lone surrogate)" : " (a control character)");
}

inline char ascii_reading(std::uint32_t cp) {
  if (cp < 0x80) return static_cast<char>(cp);
  if (cp >= 0xFF10 && cp <= 0xFF19) return static_cast<char>('0' + (cp - 0xFF10));  // full-width digits
  switch (cp) {
    case 0x00A0:
    case 0x202F:
    case 0x3000: return ' ';  // no-break, narrow no-break, ideographic space
    case 0xFF0C:
    case 0x3001: return ',';  // full-width comma, ideographic comma
    case 0x2212:
    case 0xFF0D: return '-';  // minus sign, full-width hyphen-minus
    case 0xFF0B: return '+';
    case 0xFF0E: return '.';
    case 0xFF45: return 'e';
    case 0xFF25: return 'E';
    case 0xFF3B: return '[';
    case 0xFF3D: return ']';
    default: return 0;
  }
}

// Decodes UTF-8; returns false and the index reached if the bytes are not valid UTF-8.
inline bool decode(std::string_view text, std::vector<Char>& out, int& bad_position, int& bad_column) {
  int position = 0, column = 1;
  for (std::size_t i = 0; i < text.size();) {
    const auto b0 = static_cast<unsigned char>(text[i]);
    int len = b0 < 0x80 ? 1 : (b0 >> 5) == 0x6 ? 2 : (b0 >> 4) == 0xE ? 3 : (b0 >> 3) == 0x1E ? 4 : 0;
    std::uint32_t cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1Fu) : len == 3 ? (b0 & 0x0Fu) : (b0 & 0x07u);
    bool valid = len > 0 && i + len <= text.size();
    for (int k = 1; valid && k < len; ++k) {
      const auto b = static_cast<unsigned char>(text[i + k]);
      valid = (b >> 6) == 0x2;
      cp = (cp << 6) | (b & 0x3Fu);
    }
    const std::uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    valid = valid && cp >= min_cp[len] && cp <= 0x10FFFF;  // surrogates decode; the parser reports them
    if (!valid) {
      bad_position = position;
      bad_column = column;
      return false;
    }
    out.push_back({cp, is_surrogate(cp) ? '\0' : ascii_reading(cp), position, column, text.substr(i, len)});
    position += cp >= 0x10000 ? 2 : 1;
    ++column;
    i += len;
  }
  return true;
}

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_number_char(char c) { return is_digit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'; }
inline bool is_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// Whether a valid number's digits before its exponent are not all zeros: a value that rounds to 0 was not typed 0.
inline bool has_nonzero_digit(const std::string& s) {
  for (char c : s) {
    if (c == 'e' || c == 'E') return false;
    if (c >= '1' && c <= '9') return true;
  }
  return false;
}

// sign? (digits ('.' digits*)? | '.' digits) (('e' | 'E') sign? digits)?
inline bool is_valid_number(const std::string& s) {
  std::size_t i = 0, n = s.size();
  if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
  std::size_t int_digits = 0, frac_digits = 0;
  while (i < n && is_digit(s[i])) ++i, ++int_digits;
  if (i < n && s[i] == '.') {
    ++i;
    while (i < n && is_digit(s[i])) ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t exp_digits = 0;
    while (i < n && is_digit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == n;
}

inline std::string lower(std::string s) {
  for (char& c : s) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return s;
}

inline ParsedVector fail(const char* code, int position, int column, std::string text, std::string message) {
  ParsedVector r;
  r.error = {code, position, column, std::move(text), std::move(message)};
  return r;
}

inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view part : parts) s.append(part);
  return s;
}

inline std::string at(int column) { return cat({" at character ", std::to_string(column)}); }

}  // namespace parse_detail

// "" when a text of `bytes` bytes may be parsed, else the too_long message.
inline std::string text_length_problem(std::size_t bytes) {
  if (bytes <= kMaxVectorTextBytes) return "";
  return "the text has " + std::to_string(bytes) + " bytes; at most 16,777,216 are read (16 per number)";
}

inline ParsedVector parse_vector(std::string_view text) {
  using namespace parse_detail;
  if (std::string problem = text_length_problem(text.size()); !problem.empty())
    return fail("too_long", 0, 1, "", std::move(problem));
  std::vector<Char> chars;
  chars.reserve(text.size());  // at most one per byte; no reallocation while decoding
  int bad_position = 0, bad_column = 1;
  if (!decode(text, chars, bad_position, bad_column))
    return fail("invalid_utf8", bad_position, bad_column, "", cat({"the text is not valid UTF-8", at(bad_column)}));
  const int end_position = chars.empty() ? 0 : chars.back().position + (chars.back().original.size() == 4 ? 2 : 1);
  const int end_column = static_cast<int>(chars.size()) + 1;
  const std::size_t n = chars.size();
  auto original = [&](std::size_t from, std::size_t to) {  // the typed text of chars [from, to)
    std::string s;
    for (std::size_t k = from; k < to; ++k) s += chars[k].original;
    return s;
  };

  ParsedVector result;
  const Char* open_bracket = nullptr;
  bool closed = false, after_comma = false;
  for (std::size_t i = 0; i < n;) {
    const Char& c = chars[i];
    if (is_unprintable(c.cp))
      return fail("unexpected_char", c.position, c.column, code_point_name(c.cp),
                  cat({"unexpected ", code_point_name(c.cp), at(c.column)}));
    if (is_space(c.ascii)) {
      ++i;
      continue;
    }
    const std::string typed = std::string(c.original);
    if (closed)
      return fail("trailing_text", c.position, c.column, typed,
                  cat({"unexpected '", typed, "'", at(c.column), " after the closing ']'"}));
    if (c.ascii == '[') {
      if (open_bracket != nullptr)
        return fail("nested_bracket", c.position, c.column, typed,
                    cat({"'", typed, "'", at(c.column), ": only one pair of brackets is allowed"}));
      if (!result.values.empty() || after_comma)
        return fail("unexpected_char", c.position, c.column, typed,
                    cat({"unexpected '", typed, "'", at(c.column), ": a bracket can only open the whole list"}));
      open_bracket = &c;
      ++i;
      continue;
    }
    if (c.ascii == ']') {
      if (open_bracket == nullptr)
        return fail("unmatched_bracket", c.position, c.column, typed,
                    cat({"'", typed, "'", at(c.column), " has no matching '['"}));
      closed = true;
      ++i;
      continue;
    }
    if (c.ascii == ',') {
      if (result.values.empty() || after_comma)
        return fail("missing_value", c.position, c.column, typed,
                    cat({"a number is missing before '", typed, "'", at(c.column)}));
      after_comma = true;
      ++i;
      continue;
    }
    // a word: nan / inf / infinity (with an optional sign) or a stray letter
    std::size_t j = i;
    if ((c.ascii == '+' || c.ascii == '-') && i + 1 < n && is_letter(chars[i + 1].ascii)) ++j;
    if (is_letter(chars[j].ascii)) {
      std::size_t k = j;
      std::string word;
      while (k < n && is_letter(chars[k].ascii)) word += chars[k++].ascii;
      word = lower(word);
      if (word == "nan" || word == "inf" || word == "infinity")
        return fail("not_finite", c.position, c.column, original(i, k),
                    cat({"'", original(i, k), "'", at(c.column), ": NaN and infinity are not allowed"}));
      const std::string letter = std::string(chars[j].original);
      return fail("unexpected_char", chars[j].position, chars[j].column, letter,
                  cat({"unexpected '", letter, "'", at(chars[j].column)}));
    }
    if (!is_number_char(c.ascii))
      return fail("unexpected_char", c.position, c.column, typed, cat({"unexpected '", typed, "'", at(c.column)}));
    // a number: the longest run of number characters, then checked as a whole
    std::string token;
    std::size_t k = i;
    while (k < n && is_number_char(chars[k].ascii)) token += chars[k++].ascii;
    const std::string typed_token = original(i, k);
    if (!is_valid_number(token))
      return fail("invalid_number", c.position, c.column, typed_token,
                  cat({"'", typed_token, "'", at(c.column), " is not a number"}));
    if (result.values.size() >= static_cast<std::size_t>(kMaxVectorLength))
      return fail("too_many_values", c.position, c.column, typed_token,
                  cat({"more than 1,048,576 numbers (the limit), the next one", at(c.column)}));
    const float value = std::strtof(token.c_str(), nullptr);
    if (std::isinf(value))
      return fail(
          "out_of_range", c.position, c.column, typed_token,
          cat({"'", typed_token, "'", at(c.column), " is too large for float32 (the largest is about 3.4e38)"}));
    if (value == 0.0f && has_nonzero_digit(token))
      return fail("underflow", c.position, c.column, typed_token,
                  cat({"'", typed_token, "'", at(c.column),
                       " is too small for float32: it would be 0 (the smallest is about 1.4e-45)"}));
    if (k < n && is_unprintable(chars[k].cp)) {
      const std::string name = code_point_name(chars[k].cp);
      return fail("unexpected_char", chars[k].position, chars[k].column, name,
                  cat({"unexpected ", name, at(chars[k].column), " after the number ", typed_token}));
    }
    if (k < n && !is_space(chars[k].ascii) && chars[k].ascii != ',' && chars[k].ascii != ']') {
      const std::string next = std::string(chars[k].original);
      return fail("unexpected_char", chars[k].position, chars[k].column, next,
                  cat({"unexpected '", next, "'", at(chars[k].column), " after the number ", typed_token}));
    }
    result.values.push_back(value);
    after_comma = false;
    i = k;
  }
  if (open_bracket != nullptr && !closed)
    return fail(
        "unclosed_bracket", end_position, end_column, std::string(open_bracket->original),
        cat({"the '", open_bracket->original, "'", at(open_bracket->column), " is never closed: add ']' at the end"}));
  if (result.values.empty()) return fail("empty", 0, 1, "", "no numbers found: type a vector such as [2, -1, 3, 0]");
  result.ok = true;
  return result;
}

}  // namespace rl
