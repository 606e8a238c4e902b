#include "lib/workflow/names.h"

#include <algorithm>
#include <cctype>

#include "absl/strings/str_cat.h"

namespace cub::workflow {
namespace {

char Lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Levenshtein distance of the lowercased words, giving up (returning limit + 1) once every
// path exceeds `limit`.
size_t EditDistance(std::string_view a, std::string_view b, size_t limit) {
  if (a.size() > b.size() + limit || b.size() > a.size() + limit) return limit + 1;
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    size_t row_min = cur[0];
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t subst = prev[j - 1] + (Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, subst});
      row_min = std::min(row_min, cur[j]);
    }
    if (row_min > limit) return limit + 1;
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

bool IsValidName(std::string_view name) {
  if (name.empty() || name.size() > 128 || !IsAlnum(name[0])) return false;
  for (char c : name) {
    if (!IsAlnum(c) && c != '-' && c != '_' && c != '.') return false;
  }
  return true;
}

bool IsValidGroupName(std::string_view name) {
  if (name.empty() || name.size() > 256) return false;
  if (!IsAlnum(name[0]) && name[0] != '/' && name[0] != '@') return false;
  for (char c : name) {
    if (!IsAlnum(c) && std::string_view("-_.:/@+").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
}

std::string InvalidGroupNameMessage(std::string_view name) {
  if (name.empty()) return "group name is empty";
  return absl::StrCat("group name '", std::string(name),
                      "' is not valid: use 1-256 letters, digits, '-', '_', '.', ':', '/', '@' "
                      "or '+', starting with a letter, digit, '/' or '@'");
}

std::string InvalidNameMessage(std::string_view kind, std::string_view name) {
  if (name.empty()) return absl::StrCat(std::string(kind), " name is empty");
  return absl::StrCat(std::string(kind), " name '", std::string(name),
                      "' is not valid: use 1-128 letters, digits, '-', '_' or '.', starting "
                      "with a letter or digit");
}

bool IsUuid(std::string_view id) {
  if (id.size() != 36) return false;
  for (size_t i = 0; i < id.size(); ++i) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    if (dash ? id[i] != '-' : !std::isxdigit(static_cast<unsigned char>(id[i]))) return false;
  }
  return true;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

std::optional<std::string> ClosestMatch(std::string_view word,
                                        const std::vector<std::string>& candidates) {
  const size_t limit = word.size() <= 4 ? 1 : 2;
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    size_t d = EditDistance(word, c, limit);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  std::optional<std::string> m = ClosestMatch(word, candidates);
  return m ? absl::StrCat("; did you mean ", *m, "?") : std::string();
}

}  // namespace cub::workflow
