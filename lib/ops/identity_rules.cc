#include "lib/ops/identity_rules.h"

#include <cctype>

#include "absl/strings/str_cat.h"
#include "lib/workflow/names.h"

namespace cub::ops {
namespace {

bool IsAlnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

bool IsUsernameChar(char c) {
  return IsAlnum(c) || std::string_view("-_.@:+").find(c) != std::string_view::npos;
}

}  // namespace

bool IsValidOidcUsername(std::string_view username) {
  if (username.empty() || username.size() > 256 || !IsAlnum(username[0])) return false;
  for (char c : username) {
    if (!IsUsernameChar(c)) return false;
  }
  return true;
}

absl::Status CheckUsernamePrefix(const std::string& what, const std::string& prefix) {
  if (prefix.empty() || IsValidOidcUsername(prefix)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " '", prefix,
                   "' cannot begin a username: use letters, digits, '-', '_', '.', '@', ':' or "
                   "'+', starting with a letter or digit"));
}

absl::Status CheckGroupsPrefix(const std::string& what, const std::string& prefix) {
  if (prefix.empty() || workflow::IsValidGroupName(prefix)) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, " '", prefix,
                   "' cannot begin a group name: use letters, digits, '-', '_', '.', ':', '/', "
                   "'@' or '+', starting with a letter, digit, '/' or '@'"));
}

bool GlobMatches(std::string_view pattern, std::string_view subject) {
  size_t p = 0, s = 0;
  size_t star = std::string_view::npos, resume = 0;  // the last '*' seen, and where it resumes
  while (s < subject.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = s;
    } else if (p < pattern.size() && pattern[p] == subject[s]) {
      ++p;
      ++s;
    } else if (star != std::string_view::npos) {
      p = star + 1;  // let the last '*' take one more character
      s = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

absl::Status CheckSubjectPattern(const std::string& pattern) {
  if (pattern.empty()) return absl::InvalidArgumentError("--subject is empty: give a pattern");
  if (pattern.size() > 1024) {
    return absl::InvalidArgumentError("--subject is longer than 1024 bytes");
  }
  for (char c : pattern) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--subject '", pattern, "' holds a space or control character; '*' is the wildcard"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::pair<std::string, std::string>> ParseClaimRequirement(const std::string& kv) {
  const size_t eq = kv.find('=');
  if (eq == std::string::npos || eq == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--claim '", kv, "': give KEY=VALUE, e.g. repository=acme/app"));
  }
  std::string key = kv.substr(0, eq);
  for (char c : key) {
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) {
      return absl::InvalidArgumentError(
          absl::StrCat("--claim '", kv, "': the claim name holds a space or control character"));
    }
  }
  for (const char* own : {"iss", "aud", "exp", "nbf", "iat", "sub"}) {
    if (key == own) {
      return absl::InvalidArgumentError(
          absl::StrCat("--claim '", kv, "': '", key,
                       "' is checked by cubd itself; use --oidc-issuer, --audience and --subject"));
    }
  }
  return std::make_pair(std::move(key), kv.substr(eq + 1));
}

}  // namespace cub::ops
