#include "lib/where/like.h"

#include <vector>

#include "lib/util/utf8.h"

namespace cub::where::internal {
namespace {

// One pattern element: a literal character, '_' or '%'.
struct Item {
  enum Kind { kChar, kOne, kAny } kind;
  char32_t cp;
};

char32_t Fold(char32_t c, bool fold) { return fold && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

std::vector<char32_t> Decode(std::string_view s, bool fold) {
  std::vector<char32_t> out;
  char32_t cp;
  for (size_t i = 0; i < s.size();) {
    NextCodePoint(s, &i, &cp);
    out.push_back(Fold(cp, fold));
  }
  return out;
}

}  // namespace

bool LikePatternValid(std::string_view pattern) {
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '\\') {
      if (i + 1 == pattern.size()) return false;
      ++i;
    }
  }
  return true;
}

bool LikeMatch(std::string_view text, std::string_view pattern, bool case_insensitive) {
  const std::vector<char32_t> t = Decode(text, case_insensitive);
  std::vector<Item> p;
  {
    const std::vector<char32_t> raw = Decode(pattern, case_insensitive);
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '\\' && i + 1 < raw.size()) {
        p.push_back({Item::kChar, raw[++i]});
      } else if (raw[i] == '%') {
        p.push_back({Item::kAny, 0});
      } else if (raw[i] == '_') {
        p.push_back({Item::kOne, 0});
      } else {
        p.push_back({Item::kChar, raw[i]});
      }
    }
  }
  // Greedy matching with backtracking to the last '%': O(|t| * |p|) at worst.
  size_t ti = 0, pi = 0;
  size_t star = p.size(), star_t = 0;
  while (ti < t.size()) {
    if (pi < p.size() &&
        (p[pi].kind == Item::kOne || (p[pi].kind == Item::kChar && p[pi].cp == t[ti]))) {
      ++ti;
      ++pi;
    } else if (pi < p.size() && p[pi].kind == Item::kAny) {
      star = pi++;
      star_t = ti;
    } else if (star != p.size()) {
      pi = star + 1;
      ti = ++star_t;
    } else {
      return false;
    }
  }
  while (pi < p.size() && p[pi].kind == Item::kAny) ++pi;
  return pi == p.size();
}

}  // namespace cub::where::internal
