// The OpenID providers people log in with, as `cubd serve` is told them: the repeatable
// --oidc-* flags (the Nth of each flag belongs to the Nth --oidc-issuer) and the file of
// --oidc-config. Pure functions; thread-safe.
#ifndef CUB_LIB_OPS_OIDC_CONFIG_H_
#define CUB_LIB_OPS_OIDC_CONFIG_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/ops/authenticator.h"

namespace cub::ops {

// The values of the repeatable flags, each in command-line order.
struct OidcFlagValues {
  std::vector<std::string> issuers, client_ids, username_claims, groups_claims, username_prefixes,
      groups_prefixes;
  std::string config_file;  // --oidc-config (read by the caller)
};

// One OidcIssuer per --oidc-issuer. --oidc-client-id must be given as often as --oidc-issuer;
// each other flag as often, or not at all (then every issuer has its default). INVALID_ARGUMENT
// naming the flag and both counts otherwise.
absl::StatusOr<std::vector<OidcIssuer>> IssuersFromFlags(const OidcFlagValues& flags);

// The issuers of an --oidc-config file (`file` names it in messages): a YAML (or JSON) list of
// mappings with the keys Issuer and ClientID (required) and UsernameClaim, GroupsClaim,
// UsernamePrefix, GroupsPrefix (strings) and Scopes (a list of strings). An unknown key, a
// missing one or a value of another type is refused naming the item and the key.
absl::StatusOr<std::vector<OidcIssuer>> ParseOidcConfig(std::string_view text,
                                                        const std::string& file);

// INVALID_ARGUMENT naming the issuer and what is wrong unless every issuer is usable: its URL
// passes net::CheckIssuerUrl, it is named once, its client ID and claims are not empty, its
// prefixes could begin a username and a group name, and it has no empty or spaced scope.
absl::Status CheckIssuers(const std::vector<OidcIssuer>& issuers);

// `base` with the issuers of the flags, then those of the config file whose text is
// `config_text` (empty when there is none), all checked by CheckIssuers.
absl::StatusOr<IdentityOptions> ResolveIdentity(IdentityOptions base, const OidcFlagValues& flags,
                                                std::string_view config_text);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_OIDC_CONFIG_H_
