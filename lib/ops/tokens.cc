#include "lib/ops/tokens.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "lib/ops/users.h"
#include "lib/store/tokens.h"
#include "lib/store/users.h"
#include "lib/util/duration_text.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"

namespace cub::ops {
namespace {

constexpr char kTokenPrefix[] = "cub_";
constexpr size_t kMaxDescriptionBytes = 256;

absl::StatusOr<std::string> NewSecret() {
  unsigned char buf[32];
  if (RAND_bytes(buf, sizeof(buf)) != 1) return absl::InternalError("no randomness for a token");
  std::string raw(reinterpret_cast<char*>(buf), sizeof(buf));
  return absl::StrCat(kTokenPrefix, absl::WebSafeBase64Escape(raw));
}

std::string TokenHash(const std::string& token) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(token.data()), token.size(), digest);
  return std::string(reinterpret_cast<char*>(digest), sizeof(digest));
}

// A stored time to the second, for messages: "2026-12-01T20:30:00Z".
std::string ToSecond(const std::string& rfc3339) {
  const size_t dot = rfc3339.find('.');
  if (dot == std::string::npos || !absl::EndsWith(rfc3339, "Z")) return rfc3339;
  return absl::StrCat(rfc3339.substr(0, dot), "Z");
}

// When and by whom, as refusals say it.
std::string RevokedText(const v1::Token& t) {
  return absl::StrCat("revoked at ", ToSecond(t.revoked_at()),
                      t.revoked_by().empty() ? "" : absl::StrCat(" by ", t.revoked_by()));
}

bool IsUuidText(const std::string& s) {
  if (s.size() != 36) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (c != '-') return false;
    } else if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) {
      return false;
    }
  }
  return true;
}

absl::Status CheckDescription(const std::string& d) {
  if (d.find_first_of("\r\n") != std::string::npos) {
    return absl::InvalidArgumentError("Description must be one line");
  }
  if (d.size() > kMaxDescriptionBytes) {
    return absl::InvalidArgumentError(absl::StrCat("Description holds ", d.size(),
                                                   " bytes; a token's may hold at most ",
                                                   kMaxDescriptionBytes));
  }
  return absl::OkStatus();
}

bool IsEngine(const v1::User& u) {
  return u.username() == kEngineUser && u.admin() && u.service_account();
}

}  // namespace

absl::StatusOr<absl::Duration> TokenLifetime(const IdentityOptions& options,
                                             const std::string& expires_in) {
  if (expires_in.empty()) return options.token_default_lifetime;
  absl::StatusOr<absl::Duration> d = ParseDayDuration(expires_in);
  if (!d.ok()) return absl::InvalidArgumentError(absl::StrCat("ExpiresIn ", d.status().message()));
  if (*d > options.token_max_lifetime) {
    return absl::InvalidArgumentError(absl::StrCat(
        "ExpiresIn '", expires_in, "' is longer than a token may live: at most ",
        FormatDayDuration(options.token_max_lifetime), " (cubd serve --token-max-lifetime)"));
  }
  return *d;
}

namespace {

// `lifetime` within spec.not_after: without ExpiresIn the token ends at the bound; a longer
// ExpiresIn is refused.
absl::StatusOr<absl::Duration> WithinBound(const TokenSpec& spec, absl::Duration lifetime) {
  const absl::Duration left = spec.not_after - absl::Now();
  if (lifetime <= left) return lifetime;
  if (!spec.expires_in.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ExpiresIn '", spec.expires_in,
                     "' would outlive the token this call was made with, which expires at ",
                     FormatRfc3339(spec.not_after),
                     ": a token cannot make one that lives longer (log in with --oidc, or ask "
                     "an admin for one with `cubd user token`)"));
  }
  if (left < absl::Seconds(60)) {
    return absl::FailedPreconditionError(
        "the token this call was made with expires within a minute: create a token with a "
        "fresher credential");
  }
  return absl::Seconds(absl::ToInt64Seconds(left));
}

}  // namespace

absl::StatusOr<IssuedToken> IssueToken(store::Tx& tx, const IdentityOptions& options,
                                       const v1::User& user, const TokenSpec& spec) {
  if (IsEngine(user)) {
    return absl::PermissionDeniedError(absl::StrCat(
        "user '", kEngineUser, "' is cubd's promotion engine: nobody may call the API as it"));
  }
  CUB_ASSIGN_OR_RETURN(absl::Duration lifetime, TokenLifetime(options, spec.expires_in));
  CUB_ASSIGN_OR_RETURN(lifetime, WithinBound(spec, lifetime));
  CUB_RETURN_IF_ERROR(CheckDescription(spec.description));
  IssuedToken out;
  CUB_ASSIGN_OR_RETURN(out.secret, NewSecret());
  CUB_ASSIGN_OR_RETURN(out.token,
                       store::InsertToken(tx, store::NewToken{user.user_id(), TokenHash(out.secret),
                                                              spec.description, lifetime}));
  return out;
}

absl::StatusOr<IssuedToken> IssueTokenForUser(store::ConnectionPool& db,
                                              const IdentityOptions& options,
                                              const std::string& username, const TokenSpec& spec) {
  IssuedToken out;
  CUB_RETURN_IF_ERROR(store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto user, store::FindUserByName(tx, username));
    if (!user) return absl::NotFoundError(absl::StrCat("user '", username, "' not found"));
    CUB_ASSIGN_OR_RETURN(out, IssueToken(tx, options, *user, spec));
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<Principal> AuthenticateToken(store::ConnectionPool& db, const std::string& token) {
  if (token.empty()) {
    return absl::UnauthenticatedError(
        "no bearer token: send one as \"authorization: Bearer TOKEN\"");
  }
  std::optional<store::HeldToken> held;
  CUB_RETURN_IF_ERROR(store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(held, store::FindTokenByHash(tx, TokenHash(token)));
    return absl::OkStatus();
  }));
  if (!held) return absl::UnauthenticatedError("the bearer token is not valid");
  const v1::Token& t = held->token;
  if (!t.revoked_at().empty()) {
    return absl::UnauthenticatedError(absl::StrCat("the bearer token was ", RevokedText(t)));
  }
  if (t.state() != "Active") {
    return absl::UnauthenticatedError(
        absl::StrCat("the bearer token expired at ", ToSecond(t.expires_at()),
                     "; create a new one with `cub auth token create` (or log in again)"));
  }
  Principal p = PrincipalOf(held->user);
  p.authenticated_by = "Token";
  p.credential_expires_at = t.expires_at();
  return p;
}

namespace {

// The caller's bound on a new token, as TokenSpec::not_after: a token cannot make one that
// outlives it, or a day's token (or a stolen one) could be turned into a year's, still working
// after the first is revoked. A person logged in through their provider is not bound: the
// login is fresh proof of who they are.
absl::Status SetCallersBound(const Principal& caller, TokenSpec* spec) {
  if (caller.authenticated_by != "Token") return absl::OkStatus();
  std::string err;
  if (!absl::ParseTime(absl::RFC3339_full, caller.credential_expires_at, &spec->not_after, &err)) {
    return absl::InternalError("the caller's token has no readable expiry");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::CreateTokenResponse> CreateToken(store::ConnectionPool& db,
                                                    const IdentityOptions& options,
                                                    const Principal& caller,
                                                    const v1::CreateTokenRequest& req) {
  if (caller.service_account && caller.authenticated_by == "OIDC") {
    return absl::PermissionDeniedError(absl::StrCat(
        "service account '", caller.username,
        "' called with its CI provider's token: it cannot create long-lived cub tokens (the "
        "provider's token is its credential)"));
  }
  TokenSpec spec{req.expires_in(), req.description()};
  CUB_RETURN_IF_ERROR(SetCallersBound(caller, &spec));
  IssuedToken issued;
  CUB_RETURN_IF_ERROR(store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto user, store::FindUserById(tx, caller.user_id));
    if (!user) return absl::NotFoundError(absl::StrCat("user '", caller.username, "' not found"));
    CUB_ASSIGN_OR_RETURN(issued, IssueToken(tx, options, *user, spec));
    return absl::OkStatus();
  }));
  v1::CreateTokenResponse resp;
  *resp.mutable_token() = std::move(issued.token);
  resp.set_secret(std::move(issued.secret));
  return resp;
}

absl::StatusOr<v1::ListTokensResponse> ListTokens(store::ConnectionPool& db,
                                                  const Principal& caller,
                                                  const v1::ListTokensRequest& req) {
  const std::string& who = req.user();
  if (!who.empty() && who != caller.username && !caller.admin) {
    return absl::PermissionDeniedError(
        absl::StrCat("User '", who, "': only a server admin may list other users' tokens"));
  }
  v1::ListTokensResponse resp;
  CUB_RETURN_IF_ERROR(store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
    std::optional<std::string> user_id = caller.user_id;
    if (who == "*") {
      user_id.reset();
    } else if (!who.empty()) {
      CUB_ASSIGN_OR_RETURN(auto user, store::FindUserByName(tx, who));
      if (!user) return absl::NotFoundError(absl::StrCat("User '", who, "' not found"));
      user_id = user->user_id();
    }
    CUB_ASSIGN_OR_RETURN(auto tokens, store::ListTokens(tx, user_id, req.include_inactive()));
    for (auto& t : tokens) *resp.add_tokens() = std::move(t);
    return absl::OkStatus();
  }));
  return resp;
}

absl::StatusOr<v1::RevokeTokenResponse> RevokeToken(store::ConnectionPool& db,
                                                    const Principal& caller,
                                                    const v1::RevokeTokenRequest& req) {
  const std::string& id = req.token_id();
  if (!IsUuidText(id)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TokenID '", id, "' is not a token ID (a UUID, as `cub auth token list` shows)"));
  }
  v1::RevokeTokenResponse resp;
  CUB_RETURN_IF_ERROR(store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto token, store::FindTokenForUpdate(tx, id));
    if (!token || (!caller.admin && token->user_id() != caller.user_id)) {
      return absl::NotFoundError(absl::StrCat("token ", id, " not found"));
    }
    if (!token->revoked_at().empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("token ", id, " was already ", RevokedText(*token)));
    }
    CUB_ASSIGN_OR_RETURN(*resp.mutable_token(), store::RevokeToken(tx, id, caller.user_id));
    return absl::OkStatus();
  }));
  return resp;
}

}  // namespace cub::ops
