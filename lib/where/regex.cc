#include "lib/where/regex.h"

#include <cstring>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace cub::where::internal {
namespace {

// The class names both engines know, with the same members (in the C locale).
bool KnownClassName(std::string_view name) {
  for (const char* n : {"alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print",
                        "punct", "space", "upper", "xdigit"}) {
    if (name == n) return true;
  }
  return false;
}

// Why PostgreSQL would read `c` after a backslash differently, or nullopt when it would not.
std::optional<std::string> BadEscape(char c, bool in_brackets) {
  if (absl::ascii_ispunct(static_cast<unsigned char>(c))) return std::nullopt;  // itself
  if (std::strchr("dswtnrfva", c) != nullptr) return std::nullopt;
  if (!in_brackets && std::strchr("DSWA", c) != nullptr) return std::nullopt;
  const std::string esc = absl::StrCat("'\\", std::string(1, c), "'");
  if (c == 'b' || c == 'B') {
    return absl::StrCat("uses ", esc,
                        ", which PostgreSQL reads differently (not as a word boundary)");
  }
  if (in_brackets && std::strchr("DSW", c) != nullptr) {
    return absl::StrCat("uses ", esc, " inside brackets, which PostgreSQL refuses");
  }
  return absl::StrCat("uses the escape ", esc,
                      ", which the where language does not support (PostgreSQL reads it "
                      "differently or not at all); write the character itself");
}

// The first construct of `p` (which RE2 accepted) that PostgreSQL reads differently, as the
// end of a message, or nullopt.
std::optional<std::string> NonPortable(std::string_view p) {
  const size_t n = p.size();
  bool in_brackets = false;
  size_t brackets_body = 0;   // where the current bracket expression's members start
  bool after_anchor = false;  // the previous item was '^', '$' or '\A'
  for (size_t i = 0; i < n; ++i) {
    const char c = p[i];
    if (!in_brackets) {
      if (after_anchor && (c == '*' || c == '+' || c == '?' || c == '{')) {
        return std::string("repeats an anchor ('^', '$' or '\\A'), which PostgreSQL refuses");
      }
      after_anchor = c == '^' || c == '$' || (c == '\\' && i + 1 < n && p[i + 1] == 'A');
    }
    if (c == '\\') {
      if (i + 1 < n) {
        if (auto why = BadEscape(p[i + 1], in_brackets)) return why;
      }
      ++i;
      continue;
    }
    if (in_brackets) {
      if (c == '[' && i + 1 < n && (p[i + 1] == '.' || p[i + 1] == '=')) {
        return std::string("uses a collating element '[.' or '[=', which RE2 does not support");
      }
      if (c == '[' && i + 1 < n && p[i + 1] == ':') {
        const size_t end = p.find(":]", i + 2);
        if (end != std::string_view::npos) {
          const std::string_view name = p.substr(i + 2, end - i - 2);
          if (!KnownClassName(name)) {
            return absl::StrCat("uses the character class '[:", std::string(name),
                                ":]', which PostgreSQL and RE2 do not share");
          }
          i = end + 1;
          continue;
        }
      }
      if (c == ']' && i > brackets_body) in_brackets = false;
      continue;
    }
    switch (c) {
      case '[':
        in_brackets = true;
        brackets_body = i + 1;
        if (brackets_body < n && p[brackets_body] == '^') ++brackets_body;
        i = brackets_body - 1;  // a ']' right after '[' or '[^' is a member
        break;
      case '(':
        if (i + 1 < n && p[i + 1] == '?' && (i + 2 >= n || p[i + 2] != ':')) {
          return std::string(
              "uses '(?', which the where language supports only as '(?:' (no flags, named "
              "groups or look-arounds)");
        }
        break;
      case '{': {
        // {m}, {m,} or {m,n}; RE2 reads anything else as a literal brace, PostgreSQL does not.
        size_t j = i + 1;
        auto number = [&](int* out) {
          const size_t start = j;
          long v = 0;
          while (j < n && absl::ascii_isdigit(static_cast<unsigned char>(p[j]))) {
            if (v <= 1000) v = v * 10 + (p[j] - '0');
            ++j;
          }
          *out = static_cast<int>(v);
          return j > start;
        };
        int lo = 0, hi = 0;
        bool ok = number(&lo);
        if (ok && j < n && p[j] == ',') {
          ++j;
          number(&hi);
        }
        ok = ok && j < n && p[j] == '}';
        if (!ok) {
          return std::string("has a '{' that starts no repetition bound; write '\\{'");
        }
        if (lo > 255 || hi > 255) {
          return std::string("repeats more than 255 times, PostgreSQL's limit");
        }
        i = j;
        break;
      }
      case '}':
        return std::string("has a '}' outside a repetition bound; write '\\}'");
      default:
        break;
    }
  }
  return std::nullopt;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const RE2>> CompileRegex(std::string_view pattern,
                                                        bool ignore_case) {
  RE2::Options options;
  options.set_case_sensitive(!ignore_case);
  options.set_dot_nl(true);  // PostgreSQL's '.' matches a newline unless told otherwise
  absl::StatusOr<std::shared_ptr<const RE2>> re =
      CompileBoundedRegex(pattern, options, kRegexBudget);
  if (!re.ok()) return re;
  if (std::optional<std::string> why = NonPortable(pattern)) {
    return absl::InvalidArgumentError(
        absl::StrCat("regular expression ", QuoteForMessage(pattern), " ", *why));
  }
  return re;
}

}  // namespace cub::where::internal
