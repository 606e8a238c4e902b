#include "lib/cel/numbers.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "lib/cel/absl_compat.h"
#include "lib/cel/value.h"

namespace cub::cel {

using internal::Sv;

std::string FormatDouble(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  // Shortest %e text that reads back exactly.
  char buf[40];
  for (int prec = 0; prec < 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*e", prec, d);
    double back = 0;
    if (absl::SimpleAtod(buf, &back) && back == d) break;
  }
  // buf is [-]D[.DDD]e[+-]XX: split into sign, digits and decimal exponent.
  std::string text(buf);
  bool neg = text[0] == '-';
  if (neg) text.erase(0, 1);
  size_t e = text.find('e');
  int exp = std::atoi(text.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i) {
    if (text[i] != '.') digits.push_back(text[i]);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  std::string out = neg ? "-" : "";
  if (digits == "0") {
    out.append("0");
    return out;
  }
  // Go's 'g' with shortest precision: exponent form outside 1e-4 <= |d| < 1e6.
  if (exp < -4 || exp >= 6) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1, std::string::npos);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
    out.append(ebuf);
    return out;
  }
  int dp = exp + 1;  // digits before the decimal point
  if (dp <= 0) {
    out.append("0.");
    out.append(static_cast<size_t>(-dp), '0');
    out.append(digits);
  } else if (static_cast<size_t>(dp) >= digits.size()) {
    out.append(digits);
    out.append(dp - digits.size(), '0');
  } else {
    out.append(digits, 0, dp);
    out.push_back('.');
    out.append(digits, dp, std::string::npos);
  }
  return out;
}

std::optional<int64_t> ParseInt64(std::string_view s) {
  if (s.empty() || s.front() == '+' || absl::ascii_isspace(s.front()) ||
      absl::ascii_isspace(s.back())) {
    return std::nullopt;
  }
  int64_t v = 0;
  if (!absl::SimpleAtoi(Sv(s), &v)) return std::nullopt;
  return v;
}

std::optional<uint64_t> ParseUint64(std::string_view s) {
  if (s.empty() || !absl::ascii_isdigit(s.front()) || absl::ascii_isspace(s.back())) {
    return std::nullopt;
  }
  uint64_t v = 0;
  if (!absl::SimpleAtoi(Sv(s), &v)) return std::nullopt;
  return v;
}

std::optional<double> ParseDouble(std::string_view s) {
  if (s.empty() || absl::ascii_isspace(s.front()) || absl::ascii_isspace(s.back())) {
    return std::nullopt;
  }
  std::string_view body = s;
  bool neg = false;
  if (body.front() == '+' || body.front() == '-') {
    neg = body.front() == '-';
    body.remove_prefix(1);
  }
  if (absl::EqualsIgnoreCase(Sv(body), "nan")) return std::nan("");
  if (absl::EqualsIgnoreCase(Sv(body), "inf") || absl::EqualsIgnoreCase(Sv(body), "infinity")) {
    return neg ? -HUGE_VAL : HUGE_VAL;
  }
  // Digits, one optional '.', optional exponent; nothing else.
  bool digit = false;
  size_t i = 0;
  while (i < body.size() && absl::ascii_isdigit(body[i])) ++i, digit = true;
  if (i < body.size() && body[i] == '.') {
    ++i;
    while (i < body.size() && absl::ascii_isdigit(body[i])) ++i, digit = true;
  }
  if (!digit) return std::nullopt;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) ++i;
    bool exp_digit = false;
    while (i < body.size() && absl::ascii_isdigit(body[i])) ++i, exp_digit = true;
    if (!exp_digit) return std::nullopt;
  }
  if (i != body.size()) return std::nullopt;
  double d = 0;
  if (!absl::SimpleAtod(Sv(s), &d)) return std::nullopt;
  return d;
}

namespace {
template <typename T>
int Cmp(T a, T b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}
double AsDouble(const Value& v) {
  switch (v.kind()) {
    case Value::Kind::kInt:
      return static_cast<double>(v.int_value());
    case Value::Kind::kUint:
      return static_cast<double>(v.uint_value());
    default:
      return v.double_value();
  }
}
}  // namespace

int CompareNumbers(const Value& a, const Value& b) {
  using K = Value::Kind;
  if (a.kind() == K::kDouble || b.kind() == K::kDouble) {
    double x = AsDouble(a), y = AsDouble(b);
    if (std::isnan(x) || std::isnan(y)) return kUnordered;
    return Cmp(x, y);
  }
  if (a.kind() == K::kInt && b.kind() == K::kInt) return Cmp(a.int_value(), b.int_value());
  if (a.kind() == K::kUint && b.kind() == K::kUint) return Cmp(a.uint_value(), b.uint_value());
  if (a.kind() == K::kInt) {  // int vs uint
    if (a.int_value() < 0) return -1;
    return Cmp(static_cast<uint64_t>(a.int_value()), b.uint_value());
  }
  if (b.int_value() < 0) return 1;  // uint vs int
  return Cmp(a.uint_value(), static_cast<uint64_t>(b.int_value()));
}

}  // namespace cub::cel
