// parse_vector: every accepted form, and every error with its code, position and message.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "core/parse_vector.hpp"

namespace {
std::vector<float> parse_ok(const std::string& text) {
  const rl::ParsedVector r = rl::parse_vector(text);
  INFO("text: " << text << "  error: " << r.error.message);
  REQUIRE(r.ok);
  return r.values;
}

rl::ParseError parse_error(const std::string& text) {
  const rl::ParsedVector r = rl::parse_vector(text);
  INFO("text: " << text);
  REQUIRE_FALSE(r.ok);
  return r.error;
}
}  // namespace

TEST_CASE("parse_vector accepts what readers type", "[parse]") {
  const std::vector<float> worked = {2.0f, -1.0f, 3.0f, 0.0f};
  CHECK(parse_ok("[2, -1, 3, 0]") == worked);
  CHECK(parse_ok("2 -1 3 0") == worked);
  CHECK(parse_ok("2,-1,3,0") == worked);
  CHECK(parse_ok("  [ 2 ,-1,  3 ,0 ]  ") == worked);
  CHECK(parse_ok("2\t-1\n3\r\n0") == worked);
  CHECK(parse_ok("2, -1 3,0") == worked);           // commas and spaces mixed
  CHECK(parse_ok("[2, -1, 3, 0,]") == worked);      // one trailing comma
  CHECK(parse_ok("2，−1，3，0") == worked);         // full-width comma, Unicode minus U+2212
  CHECK(parse_ok("［2，－1，3，0］") == worked);    // full-width brackets and hyphen-minus
  CHECK(parse_ok("２、−１、３、０") == worked);     // full-width digits, ideographic comma
  CHECK(parse_ok("2\u3000-1\u00A03 0") == worked);  // ideographic and no-break spaces
  CHECK(parse_ok("+2 -1. 3.0 .0") == worked);       // explicit plus, "2.", ".0"
  CHECK(parse_ok("1e-3, 2.5E+2, −1e−3, 1ｅ3") == std::vector<float>{1e-3f, 250.0f, -1e-3f, 1000.0f});
  CHECK(parse_ok("7") == std::vector<float>{7.0f});
  CHECK(parse_ok("0.1")[0] == 0.1f);                      // correctly rounded to float32
  CHECK(parse_ok("3.4028234e38")[0] == 3.4028234e38f);    // the largest float32
  CHECK(parse_ok("1e-45")[0] == std::ldexp(1.0f, -149));  // the smallest subnormal float32
  CHECK(parse_ok("-0")[0] == 0.0f);
  CHECK(parse_ok("0e-999, 0.000e5")[1] == 0.0f);  // typed as 0: a 0 (1e-50 would be 0 too: refused below)
}

TEST_CASE("parse_vector: up to 1,048,576 numbers", "[parse]") {
  std::string text;
  for (int i = 0; i < (1 << 20); ++i) text += "1 ";
  CHECK(parse_ok(text).size() == (1u << 20));
  text += "2";
  const rl::ParseError e = parse_error(text);
  CHECK(e.code == "too_many_values");
  CHECK(e.position == 2 * (1 << 20));
}

TEST_CASE("parse_vector errors name the code, the position and the problem", "[parse]") {
  struct Case {
    const char* text;
    const char* code;
    int position;  // 0-based, UTF-16 code units
    const char* offending;
    const char* message;
  };
  const Case cases[] = {
      {"", "empty", 0, "", "no numbers found: type a vector such as [2, -1, 3, 0]"},
      {"  ", "empty", 0, "", "no numbers found: type a vector such as [2, -1, 3, 0]"},
      {"[]", "empty", 0, "", "no numbers found: type a vector such as [2, -1, 3, 0]"},
      {"[2, -1, x, 0]", "unexpected_char", 8, "x", "unexpected 'x' at character 9"},
      {"2; 3", "unexpected_char", 1, ";", "unexpected ';' at character 2 after the number 2"},
      {"2 3x", "unexpected_char", 3, "x", "unexpected 'x' at character 4 after the number 3"},
      {"1 2 [3]", "unexpected_char", 4, "[", "unexpected '[' at character 5: a bracket can only open the whole list"},
      {"1e", "invalid_number", 0, "1e", "'1e' at character 1 is not a number"},
      {"1, 1.2.3", "invalid_number", 3, "1.2.3", "'1.2.3' at character 4 is not a number"},
      {"2-1", "invalid_number", 0, "2-1", "'2-1' at character 1 is not a number"},
      {"1 - 2", "invalid_number", 2, "-", "'-' at character 3 is not a number"},
      {"1 . 2", "invalid_number", 2, ".", "'.' at character 3 is not a number"},
      {"1, NaN", "not_finite", 3, "NaN", "'NaN' at character 4: NaN and infinity are not allowed"},
      {"−inf 2", "not_finite", 0, "−inf", "'−inf' at character 1: NaN and infinity are not allowed"},
      {"1 Infinity", "not_finite", 2, "Infinity", "'Infinity' at character 3: NaN and infinity are not allowed"},
      {"1 nano", "unexpected_char", 2, "n", "unexpected 'n' at character 3"},
      {"1, 1e39", "out_of_range", 3, "1e39",
       "'1e39' at character 4 is too large for float32 (the largest is about 3.4e38)"},
      {"-3.5e38", "out_of_range", 0, "-3.5e38",
       "'-3.5e38' at character 1 is too large for float32 (the largest is about 3.4e38)"},
      {"2, 1e-200", "underflow", 3, "1e-200",
       "'1e-200' at character 4 is too small for float32: it would be 0 (the smallest is about 1.4e-45)"},
      {"-0.0000001e-39", "underflow", 0, "-0.0000001e-39",
       "'-0.0000001e-39' at character 1 is too small for float32: it would be 0 (the smallest is about 1.4e-45)"},
      {"1,,2", "missing_value", 2, ",", "a number is missing before ',' at character 3"},
      {", 1", "missing_value", 0, ",", "a number is missing before ',' at character 1"},
      {"[1, 2", "unclosed_bracket", 5, "[", "the '[' at character 1 is never closed: add ']' at the end"},
      {"1, 2]", "unmatched_bracket", 4, "]", "']' at character 5 has no matching '['"},
      {"[[1]]", "nested_bracket", 1, "[", "'[' at character 2: only one pair of brackets is allowed"},
      {"[1] 2", "trailing_text", 4, "2", "unexpected '2' at character 5 after the closing ']'"},
      {"1 \xff 2", "invalid_utf8", 2, "", "the text is not valid UTF-8 at character 3"},
  };
  for (const Case& c : cases) {
    const rl::ParseError e = parse_error(c.text);
    INFO("text: \"" << c.text << "\"");
    CHECK(e.code == c.code);
    CHECK(e.position == c.position);
    CHECK(e.text == c.offending);
    CHECK(e.message == c.message);
  }
}

TEST_CASE("parse_vector: control characters and lone surrogates are errors named by code point", "[parse][edges]") {
  using namespace std::string_view_literals;
  // NUL is a character like any other (the text is a string_view with its length, not a C string)
  rl::ParsedVector r = rl::parse_vector("1 2\0 junk"sv);
  REQUIRE_FALSE(r.ok);
  CHECK(r.error.code == "unexpected_char");
  CHECK(r.error.position == 3);
  CHECK(r.error.text == "U+0000 (a control character)");
  CHECK(r.error.message == "unexpected U+0000 (a control character) at character 4 after the number 2");
  r = rl::parse_vector("1 \0"sv);
  CHECK(r.error.message == "unexpected U+0000 (a control character) at character 3");
  r = rl::parse_vector("1\x1b[2]");
  CHECK(r.error.message == "unexpected U+001B (a control character) at character 2 after the number 1");
  r = rl::parse_vector("1\v2");
  CHECK(r.error.code == "unexpected_char");
  CHECK(r.error.position == 1);
  r = rl::parse_vector("1 \x7f");
  CHECK(r.error.message == "unexpected U+007F (a control character) at character 3");
  // tab, LF and CR separate numbers
  r = rl::parse_vector("1\t2\r\n3\n");
  REQUIRE(r.ok);
  CHECK(r.values == std::vector<float>{1, 2, 3});
  // a lone surrogate, as web/lib/kernels.js encodes one from a JavaScript string (3 bytes, 1 UTF-16 unit)
  r = rl::parse_vector("1, \xED\xA0\x80 2");
  REQUIRE_FALSE(r.ok);
  CHECK(r.error.code == "unexpected_char");
  CHECK(r.error.position == 3);
  CHECK(r.error.text == "U+D800 (a lone surrogate)");
  CHECK(r.error.message == "unexpected U+D800 (a lone surrogate) at character 4");
  r = rl::parse_vector(
      "\xE2\x88\x92"
      "1 \xED\xBF\xBF");  // "−1 ": the minus is 3 bytes, 1 character
  CHECK(r.error.position == 3);
  CHECK(r.error.column == 4);
  CHECK(r.error.message == "unexpected U+DFFF (a lone surrogate) at character 4");
}

TEST_CASE("parse_vector positions count characters, not bytes", "[parse]") {
  // "，" and "−" are 3 bytes in UTF-8 but one character (one UTF-16 unit) in JavaScript
  rl::ParseError e = parse_error("1，−2，x");
  CHECK(e.position == 5);
  CHECK(e.column == 6);
  CHECK(e.message == "unexpected 'x' at character 6");
  // an emoji is one character but two UTF-16 units
  e = parse_error("1 \xF0\x9F\x98\x80 2");
  CHECK(e.code == "unexpected_char");
  CHECK(e.position == 2);
  CHECK(e.text == "\xF0\x9F\x98\x80");
  e = parse_error("\xF0\x9F\x98\x80\xF0\x9F\x98\x80");
  CHECK(e.position == 0);
  e = parse_error("[1 \xF0\x9F\x98\x80");
  CHECK(e.code == "unexpected_char");
  e = parse_error("[1, 2 ");
  CHECK(e.code == "unclosed_bracket");
  CHECK(e.position == 6);  // the end of the text, where ']' is missing
  CHECK(e.column == 7);
}
