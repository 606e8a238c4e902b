#include "lib/ops/oidc_login.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/ops/identity_rules.h"
#include "lib/ops/users.h"
#include "lib/store/users.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"
#include "lib/workflow/names.h"

namespace cub::ops {
namespace {

const OidcIssuer* PeopleIssuer(const IdentityOptions& options, const std::string& issuer) {
  for (const auto& i : options.issuers) {
    if (i.issuer == issuer) return &i;
  }
  return nullptr;
}

// The Principal for `user`, authenticated by the verified token.
Principal OidcPrincipal(const v1::User& user, const identity::VerifiedClaims& vc,
                        const std::string& email) {
  Principal p = PrincipalOf(user);
  p.authenticated_by = "OIDC";
  p.credential_expires_at = FormatRfc3339(vc.expires_at);
  p.issuer = vc.issuer;
  p.subject = vc.subject;
  p.email = email;
  return p;
}

// GroupsPrefix + each group the token names; names no group rule allows (a space, a comma)
// are left out rather than refusing the person's login.
absl::StatusOr<std::vector<std::string>> TokenGroups(const OidcIssuer& cfg,
                                                     const identity::VerifiedClaims& vc) {
  auto raw = identity::ClaimStrings(vc.claims, cfg.groups_claim);
  if (!raw.ok()) {
    return absl::UnauthenticatedError(absl::StrCat("the token's claim '", cfg.groups_claim,
                                                   "' (the groups of issuer ", cfg.issuer,
                                                   "): ", raw.status().message()));
  }
  std::set<std::string> groups;
  for (const auto& g : *raw) {
    std::string name = cfg.groups_prefix + g;
    if (workflow::IsValidGroupName(name)) groups.insert(std::move(name));
  }
  return std::vector<std::string>(groups.begin(), groups.end());
}

// The username a person's first login creates: UsernamePrefix + the username claim.
absl::StatusOr<std::string> NewUsername(const OidcIssuer& cfg, const identity::VerifiedClaims& vc) {
  std::optional<std::string> claim = identity::ClaimText(vc.claims, cfg.username_claim);
  if (!claim || claim->empty()) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token of issuer ", cfg.issuer, " for subject ", vc.subject,
                     " has no claim '", cfg.username_claim,
                     "' to name its user by (ask the provider for the scope that adds "
                     "it, or set --oidc-username-claim)"));
  }
  std::string username = cfg.username_prefix + *claim;
  if (!IsValidOidcUsername(username)) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token of issuer ", cfg.issuer, " names user '", username, "' (claim '",
                     cfg.username_claim,
                     "'), which is not a valid username: use 1-256 letters, digits, '-', "
                     "'_', '.', '@', ':' or '+', starting with a letter or digit"));
  }
  return username;
}

absl::StatusOr<Principal> PersonInTx(store::Tx& tx, const OidcIssuer& cfg,
                                     const identity::VerifiedClaims& vc,
                                     const store::NewIdentity& seen,
                                     const std::vector<std::string>& groups) {
  CUB_ASSIGN_OR_RETURN(auto user_id, store::FindIdentityUser(tx, vc.issuer, vc.subject));
  if (!user_id) {
    CUB_ASSIGN_OR_RETURN(std::string username, NewUsername(cfg, vc));
    CUB_ASSIGN_OR_RETURN(auto taken, store::FindUserByName(tx, username));
    if (taken) {
      return absl::UnauthenticatedError(
          absl::StrCat("user '", username, "' already exists and is not subject ", vc.subject,
                       " of issuer ", cfg.issuer,
                       ": cubd will not give that user to this login (set an "
                       "--oidc-username-prefix for the issuer, or rename the existing user)"));
    }
    CUB_ASSIGN_OR_RETURN(v1::User user, store::InsertUser(tx, store::NewUser{username, groups}));
    store::NewIdentity id = seen;
    id.user_id = user.user_id();
    CUB_RETURN_IF_ERROR(store::InsertIdentity(tx, id));
    return OidcPrincipal(user, vc, seen.email);
  }
  store::NewIdentity id = seen;
  id.user_id = *user_id;
  CUB_ASSIGN_OR_RETURN(store::SyncedGroups synced, store::SyncIdentity(tx, id, groups));
  CUB_ASSIGN_OR_RETURN(auto user, store::FindUserById(tx, *user_id));
  if (!user) return absl::InternalError(absl::StrCat("user ", *user_id, " vanished"));
  Principal p = OidcPrincipal(*user, vc, seen.email);
  p.groups = synced.groups;
  return p;
}

// OpenID Connect Core 3.1.3.7: the party the token was issued to (`azp`), when named, must be
// cub's client; a token for several audiences must name it. Otherwise a token the issuer gave
// another client (a service's client-credentials token that lists cub's client among its
// audiences) would log in as a person, who may vote.
absl::Status CheckAuthorizedParty(const OidcIssuer& cfg, const identity::VerifiedClaims& vc) {
  std::optional<std::string> azp = identity::ClaimText(vc.claims, "azp");
  if (azp && *azp != cfg.client_id) {
    return absl::UnauthenticatedError(absl::StrCat("the token was issued to client '", *azp,
                                                   "' (azp), not '", cfg.client_id,
                                                   "' (OpenID issuer ", cfg.issuer, ")"));
  }
  if (!azp && vc.audiences.size() > 1) {
    return absl::UnauthenticatedError(absl::StrCat(
        "the token names several audiences and no authorized party (azp) (OpenID issuer ",
        cfg.issuer, ")"));
  }
  return absl::OkStatus();
}

absl::StatusOr<Principal> PersonLogin(store::ConnectionPool& db, identity::OidcVerifier& verifier,
                                      const OidcIssuer& cfg, const identity::Jwt& jwt,
                                      absl::Time now) {
  CUB_ASSIGN_OR_RETURN(identity::VerifiedClaims vc,
                       verifier.Verify(jwt, cfg.issuer, {cfg.client_id}, now));
  CUB_RETURN_IF_ERROR(CheckAuthorizedParty(cfg, vc));
  CUB_ASSIGN_OR_RETURN(std::vector<std::string> groups, TokenGroups(cfg, vc));
  store::NewIdentity seen;
  seen.issuer = vc.issuer;
  seen.subject = vc.subject;
  seen.email = identity::ClaimText(vc.claims, "email").value_or("");
  if (vc.issued_at != absl::InfinitePast()) seen.issued_at = FormatRfc3339(vc.issued_at);
  auto run = [&]() {
    return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<Principal> {
      return PersonInTx(tx, cfg, vc, seen, groups);
    });
  };
  absl::StatusOr<Principal> p = run();
  // Two first logins of one person at once: the second's insert lost; it is now a sync.
  if (absl::IsAlreadyExists(p.status())) p = run();
  return p;
}

absl::StatusOr<Principal> WorkloadLogin(store::ConnectionPool& db, identity::OidcVerifier& verifier,
                                        const std::vector<store::WorkloadIdentity>& mappings,
                                        const identity::Jwt& jwt, const std::string& issuer,
                                        absl::Time now) {
  std::vector<std::string> audiences;
  for (const auto& m : mappings) {
    if (std::find(audiences.begin(), audiences.end(), m.audience) == audiences.end()) {
      audiences.push_back(m.audience);
    }
  }
  CUB_ASSIGN_OR_RETURN(identity::VerifiedClaims vc, verifier.Verify(jwt, issuer, audiences, now));
  std::vector<const store::WorkloadIdentity*> matches = MatchingWorkloads(mappings, vc);
  if (matches.empty()) {
    return absl::UnauthenticatedError(absl::StrCat("no service account matches subject ",
                                                   vc.subject, " of issuer ", issuer,
                                                   " (see cubd serviceaccount list)"));
  }
  if (matches.size() > 1) {
    std::vector<std::string> names;
    for (const auto* m : matches) names.push_back(m->username);
    return absl::UnauthenticatedError(
        absl::StrCat("subject ", vc.subject, " of issuer ", issuer, " matches ", matches.size(),
                     " service account mappings (", absl::StrJoin(names, ", "),
                     "): cubd will not choose; make them narrower with --subject or --claim"));
  }
  const std::string user_id = matches[0]->user_id;
  CUB_ASSIGN_OR_RETURN(
      auto user,
      store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<std::optional<v1::User>> {
        return store::FindUserById(tx, user_id);
      }));
  if (!user) return absl::UnauthenticatedError("the service account was deleted");
  return OidcPrincipal(*user, vc, "");
}

}  // namespace

std::vector<const store::WorkloadIdentity*> MatchingWorkloads(
    const std::vector<store::WorkloadIdentity>& mappings, const identity::VerifiedClaims& vc) {
  std::vector<const store::WorkloadIdentity*> out;
  for (const auto& m : mappings) {
    if (m.issuer != vc.issuer) continue;
    if (std::find(vc.audiences.begin(), vc.audiences.end(), m.audience) == vc.audiences.end()) {
      continue;
    }
    if (!GlobMatches(m.subject_pattern, vc.subject)) continue;
    bool claims_match = true;
    for (const auto& [k, v] : m.claims) {
      std::optional<std::string> have = identity::ClaimText(vc.claims, k);
      if (!have || *have != v) claims_match = false;
    }
    if (claims_match) out.push_back(&m);
  }
  return out;
}

absl::StatusOr<Principal> OidcLogin(store::ConnectionPool& db, identity::OidcVerifier& verifier,
                                    const IdentityOptions& options, const identity::Jwt& jwt,
                                    const std::string& issuer, absl::Time now) {
  if (issuer.empty()) {
    return absl::UnauthenticatedError("the token names no issuer (its claim 'iss' is missing)");
  }
  if (const OidcIssuer* cfg = PeopleIssuer(options, issuer)) {
    return PersonLogin(db, verifier, *cfg, jwt, now);
  }
  CUB_ASSIGN_OR_RETURN(
      std::vector<store::WorkloadIdentity> mappings,
      store::InReadTransaction(
          db, [&](store::Tx& tx) -> absl::StatusOr<std::vector<store::WorkloadIdentity>> {
            return store::ListWorkloadIdentities(tx, issuer);
          }));
  if (mappings.empty()) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token was issued by '", issuer,
                     "', which cubd does not trust (people's issuers are set with cubd serve "
                     "--oidc-issuer; CI issuers with cubd serviceaccount create)"));
  }
  return WorkloadLogin(db, verifier, mappings, jwt, issuer, now);
}

}  // namespace cub::ops
