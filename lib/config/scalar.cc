#include "lib/config/scalar.h"

#include <charconv>
#include <cmath>
#include <limits>

namespace cub::config {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllOf(std::string_view s, bool (*pred)(char)) {
  for (char c : s) {
    if (!pred(c)) return false;
  }
  return true;
}

bool OneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (std::string_view o : options) {
    if (s == o) return true;
  }
  return false;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool MatchesFloat(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = 0, frac_digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++int_digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++frac_digits;
    if (int_digits == 0 && frac_digits == 0) return false;
  } else if (int_digits == 0) {
    return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// Parses a string already known to match MatchesFloat (from_chars takes no leading '+').
double ParseFloat(std::string_view s) {
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec == std::errc::result_out_of_range) {
    // Out of range: from_chars leaves v unset; decide between overflow and underflow.
    size_t e = s.find_first_of("eE");
    bool tiny = e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
    double mag = tiny ? 0.0 : std::numeric_limits<double>::infinity();
    v = s[0] == '-' ? -mag : mag;
  }
  return v;
}

// Fills `*out` and returns true if plain `s` resolves to something other than a string.
bool ResolveNonString(std::string_view s, Node* out) {
  if (s.empty() || OneOf(s, {"~", "null", "Null", "NULL"})) {
    *out = Node::Null();
    return true;
  }
  if (OneOf(s, {"true", "True", "TRUE"})) {
    *out = Node::Bool(true);
    return true;
  }
  if (OneOf(s, {"false", "False", "FALSE"})) {
    *out = Node::Bool(false);
    return true;
  }
  const char c0 = s[0];
  if (!IsDigit(c0) && c0 != '-' && c0 != '+' && c0 != '.') return false;  // fast path: words
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'o' || s[1] == 'x')) {
    const int base = s[1] == 'o' ? 8 : 16;
    std::string_view digits = s.substr(2);
    if (digits[0] == '-') return false;  // from_chars would accept a sign; YAML does not.
    int64_t v = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
    *out = Node::Int(v);
    return true;
  }
  {
    std::string_view digits = s;
    if (c0 == '-' || c0 == '+') digits.remove_prefix(1);
    if (!digits.empty() && AllOf(digits, IsDigit)) {
      std::string_view signed_digits = c0 == '+' ? digits : s;
      int64_t v = 0;
      auto [ptr, ec] =
          std::from_chars(signed_digits.data(), signed_digits.data() + signed_digits.size(), v);
      *out = ec == std::errc() ? Node::Int(v) : Node::Float(ParseFloat(s));
      return true;
    }
  }
  if (MatchesFloat(s)) {
    *out = Node::Float(ParseFloat(s));
    return true;
  }
  std::string_view body = s;
  double sign = 1;
  if (c0 == '-' || c0 == '+') {
    body.remove_prefix(1);
    if (c0 == '-') sign = -1;
  }
  if (OneOf(body, {".inf", ".Inf", ".INF"})) {
    *out = Node::Float(sign * std::numeric_limits<double>::infinity());
    return true;
  }
  if (OneOf(s, {".nan", ".NaN", ".NAN"})) {
    *out = Node::Float(std::numeric_limits<double>::quiet_NaN());
    return true;
  }
  return false;
}

bool IsYaml11NumberChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') || c == 'x' || c == 'X' ||
         c == 'o' || c == 'O' || c == '_' || c == ':' || c == '.' || c == '+' || c == '-';
}

}  // namespace

Node ResolvePlainScalar(std::string_view text) {
  Node n;
  if (ResolveNonString(text, &n)) return n;
  return Node::String(std::string(text), StringStyle::kPlain);
}

bool PlainIsString(std::string_view text) {
  Node n;
  return !ResolveNonString(text, &n);
}

bool AmbiguousInYaml11(std::string_view s) {
  if (!PlainIsString(s)) return true;
  if (OneOf(s, {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "on", "On", "ON", "off",
                "Off", "OFF", "<<", "="})) {
    return true;
  }
  // Timestamps: 2001-12-14, 2001-12-14t21:59:43.10-05:00 ...
  if (s.size() >= 8 && AllOf(s.substr(0, 4), IsDigit) && s[4] == '-') return true;
  // Numbers in 1.1 spellings: 0777, 0b1010, 1_000, 190:20:30, .5, 1e3 ...
  std::string_view body = s;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
  if (body.empty()) return false;
  const bool starts_numeric =
      IsDigit(body[0]) || (body[0] == '.' && body.size() > 1 && IsDigit(body[1]));
  return starts_numeric && AllOf(body, IsYaml11NumberChar);
}

std::string FormatFloat(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, end);
  const size_t e = s.find('e');
  const std::string_view mantissa = std::string_view(s).substr(0, e);
  if (mantissa.find('.') == std::string_view::npos) {
    s.insert(e == std::string::npos ? s.size() : e, ".0");
  }
  return s;
}

}  // namespace cub::config
