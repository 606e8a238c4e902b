#include "lib/oci/auth_challenge.h"

#include <cctype>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace cub::oci {
namespace {

bool IsTokenChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' ||
         c == '~' || c == '+' || c == '/' || c == '!' || c == '#' || c == '$' || c == '%' ||
         c == '&' || c == '\'' || c == '*' || c == '^' || c == '`' || c == '|';
}

void SkipSpaces(std::string_view s, size_t* i) {
  while (*i < s.size() && (s[*i] == ' ' || s[*i] == '\t')) ++*i;
}

std::string Token(std::string_view s, size_t* i) {
  size_t start = *i;
  while (*i < s.size() && IsTokenChar(s[*i])) ++*i;
  return std::string(s.substr(start, *i - start));
}

// A quoted-string starting at s[*i] == '"', with backslash escapes.
absl::StatusOr<std::string> Quoted(std::string_view s, size_t* i) {
  std::string out;
  for (++*i; *i < s.size(); ++*i) {
    char c = s[*i];
    if (c == '"') {
      ++*i;
      return out;
    }
    if (c == '\\' && *i + 1 < s.size()) c = s[++*i];
    out.push_back(c);
  }
  return absl::InvalidArgumentError("an unterminated quoted value");
}

}  // namespace

absl::StatusOr<AuthChallenge> ParseAuthChallenge(std::string_view header) {
  AuthChallenge c;
  size_t i = 0;
  SkipSpaces(header, &i);
  c.scheme = absl::AsciiStrToLower(Token(header, &i));
  if (c.scheme.empty()) {
    return absl::InvalidArgumentError("WWW-Authenticate names no scheme");
  }
  SkipSpaces(header, &i);
  while (i < header.size()) {
    std::string name = absl::AsciiStrToLower(Token(header, &i));
    SkipSpaces(header, &i);
    if (name.empty() || i >= header.size() || header[i] != '=') {
      // The next challenge ("Basic realm=x, Bearer ...") or something unreadable: the first
      // challenge ends here.
      if (!name.empty() && !c.params.empty()) break;
      return absl::InvalidArgumentError(
          absl::StrCat("WWW-Authenticate: expected name=value at offset ", i));
    }
    ++i;
    SkipSpaces(header, &i);
    std::string value;
    if (i < header.size() && header[i] == '"') {
      auto quoted = Quoted(header, &i);
      if (!quoted.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("WWW-Authenticate: ", quoted.status().message()));
      }
      value = *std::move(quoted);
    } else {
      value = Token(header, &i);
    }
    c.params[name] = value;
    SkipSpaces(header, &i);
    if (i < header.size() && header[i] == ',') ++i;
    SkipSpaces(header, &i);
  }
  return c;
}

}  // namespace cub::oci
