#include "lib/functions/quantity.h"

#include <cmath>

namespace cub::functions {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Consumes digits from s[*pos]; returns how many.
size_t Digits(std::string_view s, size_t* pos) {
  const size_t start = *pos;
  while (*pos < s.size() && IsDigit(s[*pos])) ++*pos;
  return *pos - start;
}

bool IsSuffix(std::string_view s) {
  if (s.empty()) return true;
  if (s.size() == 1) return std::string_view("numkMGTPE").find(s[0]) != std::string_view::npos;
  if (s.size() == 2 && s[1] == 'i') {
    return std::string_view("KMGTPE").find(s[0]) != std::string_view::npos;
  }
  if (s[0] != 'e' && s[0] != 'E') return false;
  size_t pos = 1;
  if (s[pos] == '+' || s[pos] == '-') ++pos;
  return Digits(s, &pos) > 0 && pos == s.size();
}

}  // namespace

bool IsQuantity(std::string_view s) {
  size_t pos = 0;
  if (pos < s.size() && s[pos] == '+') ++pos;
  size_t digits = Digits(s, &pos);
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    digits += Digits(s, &pos);
  }
  return digits > 0 && IsSuffix(s.substr(pos));
}

bool IsQuantityNode(const config::Node& node) {
  switch (node.kind()) {
    case config::Node::Kind::kString:
      return IsQuantity(node.AsString());
    case config::Node::Kind::kInt:
      return node.AsInt() >= 0;
    case config::Node::Kind::kFloat:
      return std::isfinite(node.AsFloat()) && node.AsFloat() >= 0;
    default:
      return false;
  }
}

}  // namespace cub::functions
