// The rules for identities from OpenID providers, as pure functions: which usernames a
// provider's user may get, how a service account's subject pattern matches, and how a
// required claim is written. Thread-safe.
#ifndef CUB_LIB_OPS_IDENTITY_RULES_H_
#define CUB_LIB_OPS_IDENTITY_RULES_H_

#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::ops {

// Whether `username` is usable for a user from a provider: 1-256 letters, digits, '-', '_',
// '.', '@', ':' or '+', starting with a letter or digit. Wider than cub's own usernames
// (slugs) so that an email ("alice@example.com") or a prefixed name ("dex:alice") fits, and
// still free of the spaces, quotes, '=' and ',' that messages and flags use as punctuation.
bool IsValidOidcUsername(std::string_view username);

// INVALID_ARGUMENT naming `what` (e.g. "--oidc-username-prefix") unless `prefix` is empty or
// could begin such a username.
absl::Status CheckUsernamePrefix(const std::string& what, const std::string& prefix);

// INVALID_ARGUMENT naming `what` unless `prefix` is empty or could begin a group name
// (workflow::IsValidGroupName).
absl::Status CheckGroupsPrefix(const std::string& what, const std::string& prefix);

// Whether `subject` matches the glob `pattern`, where '*' matches any run of characters
// (none included) and every other character only itself: "repo:acme/app:*" matches
// "repo:acme/app:ref:refs/heads/main". No other wildcard, no escapes. Linear-time in practice
// (greedy with one backtrack point), never exponential.
bool GlobMatches(std::string_view pattern, std::string_view subject);

// A subject pattern of `cubd serviceaccount create --subject`: non-empty, at most 1024 bytes,
// no control characters or spaces. INVALID_ARGUMENT naming the flag.
absl::Status CheckSubjectPattern(const std::string& pattern);

// "KEY=VALUE" of `--claim`, split at the first '='. INVALID_ARGUMENT naming the flag when there
// is no '=', the key is empty or holds a space, or the claim is one the verifier checks itself
// (iss, aud, exp, nbf, iat, sub: use --oidc-issuer, --audience and --subject).
absl::StatusOr<std::pair<std::string, std::string>> ParseClaimRequirement(const std::string& kv);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_IDENTITY_RULES_H_
