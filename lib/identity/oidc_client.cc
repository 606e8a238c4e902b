// The OpenID Connect client of cub and cubd. See oidc_client.h.
#include "lib/identity/oidc_client.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <utility>

#include "absl/strings/cord.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "lib/identity/jwt.h"
#include "lib/net/http_client.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/util/time_text.h"

namespace cub::identity::oidc {
namespace {

constexpr char kDefaultScopes[] = "openid profile email groups offline_access";
constexpr char kDeviceGrant[] = "urn:ietf:params:oauth:grant-type:device_code";
// The payload of a PostTokenRequest failure that carries the provider's OAuth error code.
constexpr char kOAuthErrorPayload[] = "cub.oauth_error";

std::string StringMember(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// A JSON number member as whole seconds; `fallback` when absent or not a positive number.
int64_t SecondsMember(const Json& o, const char* key, int64_t fallback) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_number()) return fallback;
  const double v = it->get<double>();
  return v > 0 && v < 1e9 ? static_cast<int64_t>(v) : fallback;
}

absl::StatusOr<net::HttpResponse> PostForm(
    const std::string& url, const LoginClient& client,
    const std::vector<std::pair<std::string, std::string>>& form) {
  net::HttpRequest req;
  req.method = "POST";
  req.url = url;
  req.headers = {{"Content-Type", "application/x-www-form-urlencoded"},
                 {"Accept", "application/json"}};
  req.body = net::FormEncode(form);
  req.ca_file = client.ca_file;
  return net::Fetch(req);
}

absl::StatusOr<Json> JsonObject(const std::string& what, const std::string& body) {
  absl::StatusOr<Json> doc = ParseJson(body);
  if (!doc.ok() || !doc->is_object()) {
    return absl::UnavailableError(absl::StrCat(what, " is not a JSON object"));
  }
  return doc;
}

}  // namespace

std::string ScopeText(const LoginClient& client) {
  return client.scopes.empty() ? kDefaultScopes : absl::StrJoin(client.scopes, " ");
}

absl::StatusOr<ProviderEndpoints> ParseDiscovery(const std::string& issuer,
                                                 const std::string& body) {
  const std::string what = absl::StrCat("the discovery document of ", issuer);
  CUB_ASSIGN_OR_RETURN(Json doc, JsonObject(what, body));
  ProviderEndpoints e;
  e.issuer = StringMember(doc, "issuer");
  if (e.issuer != issuer) {
    return absl::FailedPreconditionError(absl::StrCat(what, " names the issuer '", e.issuer,
                                                      "'; it must be exactly '", issuer, "'"));
  }
  e.token_endpoint = StringMember(doc, "token_endpoint");
  e.authorization_endpoint = StringMember(doc, "authorization_endpoint");
  e.device_authorization_endpoint = StringMember(doc, "device_authorization_endpoint");
  if (e.token_endpoint.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(what, " has no token_endpoint"));
  }
  for (const auto& [name, url] :
       {std::pair{"token_endpoint", e.token_endpoint},
        {"authorization_endpoint", e.authorization_endpoint},
        {"device_authorization_endpoint", e.device_authorization_endpoint}}) {
    if (url.empty()) continue;
    CUB_RETURN_IF_ERROR(net::CheckIssuerUrl(absl::StrCat(what, ": ", name), url));
  }
  return e;
}

absl::StatusOr<ProviderEndpoints> Discover(const LoginClient& client) {
  CUB_RETURN_IF_ERROR(net::CheckIssuerUrl("the issuer", client.issuer));
  net::HttpRequest req;
  req.url =
      absl::StrCat(absl::StripSuffix(client.issuer, "/"), "/.well-known/openid-configuration");
  req.headers = {{"Accept", "application/json"}};
  req.ca_file = client.ca_file;
  absl::StatusOr<net::HttpResponse> resp = net::Fetch(req);
  if (!resp.ok()) {
    return absl::UnavailableError(absl::StrCat("cannot read the discovery document of ",
                                               client.issuer, ": ", resp.status().message()));
  }
  if (resp->status != 200) {
    return absl::UnavailableError(absl::StrCat("GET ", req.url, " answered HTTP ", resp->status));
  }
  return ParseDiscovery(client.issuer, resp->body);
}

absl::StatusOr<absl::Time> TokenExpiry(const std::string& jwt) {
  CUB_ASSIGN_OR_RETURN(identity::Jwt parsed, identity::ParseJwt(jwt));
  auto it = parsed.claims.find("exp");
  if (it == parsed.claims.end() || !it->is_number()) {
    return absl::InvalidArgumentError("the token has no numeric exp claim");
  }
  return absl::FromUnixSeconds(static_cast<int64_t>(it->get<double>()));
}

absl::StatusOr<std::string> TokenClaim(const std::string& jwt, const std::string& name) {
  CUB_ASSIGN_OR_RETURN(identity::Jwt parsed, identity::ParseJwt(jwt));
  return StringMember(parsed.claims, name.c_str());
}

absl::StatusOr<Tokens> ParseTokenResponse(const std::string& issuer, const std::string& body) {
  CUB_ASSIGN_OR_RETURN(Json doc, JsonObject(absl::StrCat("the token answer of ", issuer), body));
  Tokens t;
  t.id_token = StringMember(doc, "id_token");
  t.refresh_token = StringMember(doc, "refresh_token");
  if (t.id_token.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(issuer, " returned no id_token: the login must ask for the openid scope"));
  }
  absl::StatusOr<absl::Time> exp = TokenExpiry(t.id_token);
  if (!exp.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("the id_token from ", issuer, " is unusable: ", exp.status().message()));
  }
  t.id_token_expires_at = *exp;
  return t;
}

absl::StatusOr<Tokens> PostTokenRequest(
    const ProviderEndpoints& endpoints, const LoginClient& client,
    const std::vector<std::pair<std::string, std::string>>& form) {
  absl::StatusOr<net::HttpResponse> resp = PostForm(endpoints.token_endpoint, client, form);
  if (!resp.ok()) {
    return absl::UnavailableError(absl::StrCat("cannot reach the token endpoint of ", client.issuer,
                                               ": ", resp.status().message()));
  }
  if (resp->status == 200) return ParseTokenResponse(client.issuer, resp->body);
  absl::StatusOr<Json> doc = ParseJson(resp->body);
  const std::string error = doc.ok() && doc->is_object() ? StringMember(*doc, "error") : "";
  if (error.empty()) {
    return absl::UnavailableError(absl::StrCat("the token endpoint ", endpoints.token_endpoint,
                                               " answered HTTP ", resp->status));
  }
  const std::string description = StringMember(*doc, "error_description");
  absl::Status status = absl::FailedPreconditionError(
      absl::StrCat(client.issuer, " answered ", error,
                   description.empty() ? "" : absl::StrCat(" (", description, ")")));
  status.SetPayload(kOAuthErrorPayload, absl::Cord(error));
  return status;
}

std::string TokenErrorCode(const absl::Status& status) {
  auto code = status.GetPayload(kOAuthErrorPayload);
  return code.has_value() ? std::string(*code) : "";
}

absl::StatusOr<Tokens> DeviceLogin(const ProviderEndpoints& endpoints, const LoginClient& client,
                                   const std::function<void(const DeviceCode&)>& show) {
  if (endpoints.device_authorization_endpoint.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat(client.issuer,
                     " offers no device login (no device_authorization_endpoint); use --browser"));
  }
  absl::StatusOr<net::HttpResponse> resp =
      PostForm(endpoints.device_authorization_endpoint, client,
               {{"client_id", client.client_id}, {"scope", ScopeText(client)}});
  if (!resp.ok()) {
    return absl::UnavailableError(absl::StrCat("cannot start a device login at ", client.issuer,
                                               ": ", resp.status().message()));
  }
  const std::string what = absl::StrCat("the device authorization answer of ", client.issuer);
  CUB_ASSIGN_OR_RETURN(Json doc, JsonObject(what, resp->body));
  if (resp->status != 200) {
    return absl::FailedPreconditionError(absl::StrCat(
        client.issuer, " refused to start a device login for client ", client.client_id, ": ",
        StringMember(doc, "error"), " ", StringMember(doc, "error_description")));
  }
  const std::string device_code = StringMember(doc, "device_code");
  const std::string user_code = StringMember(doc, "user_code");
  const std::string uri = StringMember(doc, "verification_uri");
  if (device_code.empty() || user_code.empty() || uri.empty()) {
    return absl::UnavailableError(
        absl::StrCat(what, " lacks device_code, user_code or verification_uri"));
  }
  show(DeviceCode{uri, StringMember(doc, "verification_uri_complete"), user_code});

  absl::Duration interval = absl::Seconds(SecondsMember(doc, "interval", 5));
  const absl::Duration lifetime = absl::Seconds(SecondsMember(doc, "expires_in", 600));
  const absl::Time deadline = absl::Now() + lifetime;
  const std::vector<std::pair<std::string, std::string>> form = {
      {"grant_type", kDeviceGrant}, {"device_code", device_code}, {"client_id", client.client_id}};
  while (true) {
    absl::SleepFor(std::min(interval, std::max(deadline - absl::Now(), absl::ZeroDuration())));
    if (absl::Now() >= deadline) break;
    absl::StatusOr<Tokens> tokens = PostTokenRequest(endpoints, client, form);
    if (tokens.ok()) return tokens;
    const std::string code = TokenErrorCode(tokens.status());
    if (code == "authorization_pending") continue;
    if (code == "slow_down") {
      interval += absl::Seconds(5);  // RFC 8628 3.5: for this and all later requests.
      continue;
    }
    if (code == "expired_token") {
      return absl::DeadlineExceededError(
          absl::StrCat("the device code expired at ", client.issuer,
                       " before the login was completed; run the login again"));
    }
    if (code == "access_denied") {
      return absl::PermissionDeniedError(
          absl::StrCat("the login was refused at ", client.issuer, " (access_denied)"));
    }
    return tokens.status();
  }
  return absl::DeadlineExceededError(
      absl::StrCat("the login at ", client.issuer, " was not completed within ",
                   absl::FormatDuration(lifetime), " (the device code's lifetime)"));
}

absl::StatusOr<Tokens> Refresh(const ProviderEndpoints& endpoints, const LoginClient& client,
                               const std::string& refresh_token) {
  CUB_ASSIGN_OR_RETURN(Tokens tokens, PostTokenRequest(endpoints, client,
                                                       {{"grant_type", "refresh_token"},
                                                        {"refresh_token", refresh_token},
                                                        {"client_id", client.client_id}}));
  if (tokens.refresh_token.empty()) tokens.refresh_token = refresh_token;
  return tokens;
}

std::string RandomUrlSafe(int bytes) {
  std::string raw(static_cast<size_t>(bytes), '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(raw.data()), bytes) != 1) {
    std::abort();  // No randomness: nothing safe can be done.
  }
  return absl::WebSafeBase64Escape(raw);  // Unpadded.
}

std::string NewCodeVerifier() { return RandomUrlSafe(48); }

std::string CodeChallengeS256(const std::string& verifier) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(verifier.data()), verifier.size(), digest);
  return absl::WebSafeBase64Escape(
      absl::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string AuthorizationUrl(const ProviderEndpoints& endpoints, const LoginClient& client,
                             const AuthorizationRequest& request) {
  const char sep = endpoints.authorization_endpoint.find('?') == std::string::npos ? '?' : '&';
  return absl::StrCat(endpoints.authorization_endpoint, std::string(1, sep),
                      net::FormEncode({{"response_type", "code"},
                                       {"client_id", client.client_id},
                                       {"redirect_uri", request.redirect_uri},
                                       {"scope", ScopeText(client)},
                                       {"state", request.state},
                                       {"nonce", request.nonce},
                                       {"code_challenge", request.code_challenge},
                                       {"code_challenge_method", "S256"}}),
                      request.prompt.empty()
                          ? ""
                          : absl::StrCat("&", net::FormEncode({{"prompt", request.prompt}})));
}

absl::StatusOr<std::string> ParseCallback(const std::string& target,
                                          const std::string& expected_state) {
  const size_t q = target.find('?');
  std::string code, state, error, description;
  bool have_state = false;
  if (q != std::string::npos) {
    for (absl::string_view pair : absl::StrSplit(target.substr(q + 1), '&', absl::SkipEmpty())) {
      const size_t eq = pair.find('=');
      const std::string key(pair.substr(0, eq));
      absl::StatusOr<std::string> value =
          net::UrlDecode(eq == absl::string_view::npos ? "" : std::string(pair.substr(eq + 1)));
      if (!value.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("the callback's ", key, " is not validly percent-encoded"));
      }
      if (key == "code") code = *value;
      if (key == "state") state = *value, have_state = true;
      if (key == "error") error = *value;
      if (key == "error_description") description = *value;
    }
  }
  // The state first: an answer to another login, error or not, says nothing about this one.
  if (!have_state || state != expected_state) {
    return absl::FailedPreconditionError(
        "the callback's state does not match this login's: it is not the answer to this login");
  }
  if (!error.empty()) {
    return absl::PermissionDeniedError(
        absl::StrCat("the provider refused the login: ", error,
                     description.empty() ? "" : absl::StrCat(": ", description)));
  }
  if (code.empty()) return absl::InvalidArgumentError("the callback carries no code");
  return code;
}

}  // namespace cub::identity::oidc
