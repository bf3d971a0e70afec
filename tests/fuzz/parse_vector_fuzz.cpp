// libFuzzer target: rl::parse_vector on arbitrary bytes (what a reader can type, and what they cannot).
// Invariants: it never crashes (ASan, UBSan); on success there is at least one value, every value is finite,
// the count equals the number of number tokens in the text (counted here without the parser) and the values
// survive a round trip through their "%.9g" spelling bit for bit; on failure the error has a known code, a
// message, and a position and column inside the text (or just past its end).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "core/parse_vector.hpp"
#include "fuzz_check.hpp"

namespace {

// The separators the parser documents, as UTF-8: ASCII whitespace, ',', '[' and ']', and the non-ASCII spaces,
// commas and brackets it reads as those. Returns the byte length of a separator starting at s[i], else 0.
std::size_t separator_at(std::string_view s, std::size_t i) {
  static const char* const multi[] = {
      "\xC2\xA0",      // U+00A0 no-break space
      "\xE2\x80\xAF",  // U+202F narrow no-break space
      "\xE3\x80\x80",  // U+3000 ideographic space
      "\xEF\xBC\x8C",  // U+FF0C full-width comma
      "\xE3\x80\x81",  // U+3001 ideographic comma
      "\xEF\xBC\xBB",  // U+FF3B full-width [
      "\xEF\xBC\xBD",  // U+FF3D full-width ]
  };
  const char c = s[i];
  if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == ',' || c == '[' || c == ']')
    return 1;
  for (const char* m : multi) {
    const std::size_t n = std::strlen(m);
    if (s.substr(i, n) == m) return n;
  }
  return 0;
}

// Runs of non-separator bytes: in an accepted text each is exactly one number.
std::size_t count_tokens(std::string_view s) {
  std::size_t count = 0;
  bool in_token = false;
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t sep = separator_at(s, i);
    if (sep) {
      in_token = false;
      i += sep;
    } else {
      if (!in_token) ++count;
      in_token = true;
      ++i;
    }
  }
  return count;
}

const std::set<std::string> kCodes = {
    "empty",         "unexpected_char", "invalid_number",   "not_finite",        "out_of_range",
    "underflow",     "missing_value",   "unclosed_bracket", "unmatched_bracket", "nested_bracket",
    "trailing_text", "too_many_values", "invalid_utf8"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const rl::ParsedVector r = rl::parse_vector(text);
  if (!r.ok) {
    const rl::ParseError& e = r.error;
    FUZZ_CHECK(kCodes.count(e.code) == 1, "unknown error code '%s'", e.code.c_str());
    FUZZ_CHECK(!e.message.empty(), "error %s without a message", e.code.c_str());
    // UTF-16 units and characters never outnumber the bytes; the end of the text is a valid position.
    FUZZ_CHECK(e.position >= 0 && static_cast<std::size_t>(e.position) <= size, "position %d outside a %zu-byte text",
               e.position, size);
    FUZZ_CHECK(e.column >= 1 && static_cast<std::size_t>(e.column) <= size + 1, "column %d outside a %zu-byte text",
               e.column, size);
    FUZZ_CHECK(e.position + 1 >= e.column, "position %d is before column %d - 1", e.position, e.column);
    return 0;
  }
  FUZZ_CHECK(!r.values.empty(), "accepted with no values");
  FUZZ_CHECK(r.values.size() <= static_cast<std::size_t>(rl::kMaxVectorLength), "%zu values", r.values.size());
  for (std::size_t i = 0; i < r.values.size(); ++i)
    FUZZ_CHECK(std::isfinite(r.values[i]), "value %zu is %g", i, static_cast<double>(r.values[i]));
  const std::size_t tokens = count_tokens(text);
  FUZZ_CHECK(r.values.size() == tokens, "%zu values from %zu number tokens", r.values.size(), tokens);

  // Nine significant digits identify every float32, so the spelled-out list parses to the same bits.
  std::string spelled = "[";
  for (float v : r.values) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
    spelled += (spelled.size() > 1 ? ", " : "") + std::string(buf);
  }
  spelled += "]";
  const rl::ParsedVector again = rl::parse_vector(spelled);
  FUZZ_CHECK(again.ok, "its own spelling %s is rejected: %s", spelled.c_str(), again.error.message.c_str());
  FUZZ_CHECK(again.values.size() == r.values.size() &&
                 std::memcmp(again.values.data(), r.values.data(), r.values.size() * sizeof(float)) == 0,
             "round trip through %s changes the values", spelled.c_str());
  return 0;
}
