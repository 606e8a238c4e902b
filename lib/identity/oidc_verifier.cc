#include "lib/identity/oidc_verifier.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/cord.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/net/http_client.h"
#include "lib/util/json.h"

namespace cub::identity {
namespace {

// ISSUER/.well-known/openid-configuration, without a doubled '/' when the issuer ends in one.
std::string DiscoveryUrl(const std::string& issuer) {
  return absl::StrCat(absl::StripSuffix(issuer, "/"), "/.well-known/openid-configuration");
}

// A 200 response's body, or why there is none, by `deadline`.
absl::StatusOr<std::string> Get(const std::string& url, const VerifierOptions& options,
                                absl::Time deadline) {
  absl::Duration left = deadline - absl::Now();
  if (left < absl::Milliseconds(1)) {  // and a zero timeout would mean none to libcurl
    return absl::UnavailableError(
        absl::StrCat("GET ", url, ": not sent, the fetch timeout of ",
                     absl::FormatDuration(options.fetch_timeout),
                     " for the discovery document and the keys together has run out"));
  }
  net::HttpRequest req;
  req.url = url;
  req.timeout = left;
  req.max_response_bytes = options.max_document_bytes;
  req.ca_file = options.ca_file;
  req.headers.push_back({"Accept", "application/json"});
  absl::StatusOr<net::HttpResponse> resp = net::Fetch(req);
  if (!resp.ok()) return resp.status();
  if (resp->status != 200) {
    return absl::UnavailableError(absl::StrCat("GET ", url, ": HTTP status ", resp->status));
  }
  return std::move(resp->body);
}

// The discovery document's jwks_uri, after checking that the document is the issuer's own.
absl::StatusOr<std::string> DiscoverJwksUri(const std::string& issuer,
                                            const VerifierOptions& options, absl::Time deadline) {
  std::string url = DiscoveryUrl(issuer);
  absl::StatusOr<std::string> body = Get(url, options, deadline);
  if (!body.ok()) return body.status();
  absl::StatusOr<Json> doc = ParseJson(*body);
  if (!doc.ok() || !doc->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(url, " is not a JSON object"));
  }
  auto iss = doc->find("issuer");
  if (iss == doc->end() || !iss->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(url, " names no issuer"));
  }
  // OpenID Connect Discovery 1.0 section 4.3: exactly the issuer asked about, or the
  // document (and its keys) may belong to someone else.
  if (iss->get_ref<const std::string&>() != issuer) {
    return absl::InvalidArgumentError(absl::StrCat(url, " names issuer ",
                                                   JsonQuote(iss->get_ref<const std::string&>()),
                                                   ", not ", JsonQuote(issuer)));
  }
  auto jwks = doc->find("jwks_uri");
  if (jwks == doc->end() || !jwks->is_string()) {
    return absl::InvalidArgumentError(absl::StrCat(url, " names no jwks_uri"));
  }
  std::string jwks_uri = jwks->get<std::string>();
  if (absl::Status s = net::CheckIssuerUrl(absl::StrCat(url, ": jwks_uri"), jwks_uri); !s.ok()) {
    return s;
  }
  return jwks_uri;
}

// Discovery, then the JWKS, both within one fetch_timeout: a slow provider holds the
// fetching call (and the calls waiting for it) no longer than that.
absl::StatusOr<std::shared_ptr<const JwkSet>> FetchKeys(const std::string& issuer,
                                                        const VerifierOptions& options) {
  if (absl::Status s = net::CheckIssuerUrl("issuer", issuer); !s.ok()) return s;
  absl::Time deadline = absl::Now() + options.fetch_timeout;
  absl::StatusOr<std::string> jwks_uri = DiscoverJwksUri(issuer, options, deadline);
  if (!jwks_uri.ok()) return jwks_uri.status();
  absl::StatusOr<std::string> body = Get(*jwks_uri, options, deadline);
  if (!body.ok()) return body.status();
  absl::StatusOr<JwkSet> set = JwkSet::Parse(*body);
  if (!set.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(*jwks_uri, ": ", set.status().message()));
  }
  return std::make_shared<const JwkSet>(*std::move(set));
}

// Says which issuer refused the token, unless the message names it already.
absl::Status Refusal(const absl::Status& s, const std::string& issuer) {
  if (absl::StartsWith(s.message(), "the token's signature does not verify")) {
    return absl::UnauthenticatedError(
        absl::StrCat("the token's signature does not verify with the keys of issuer ", issuer));
  }
  if (absl::StrContains(s.message(), issuer)) return s;
  absl::Status named(s.code(), absl::StrCat(s.message(), " (OpenID issuer ", issuer, ")"));
  s.ForEachPayload(
      [&](absl::string_view url, const absl::Cord& payload) { named.SetPayload(url, payload); });
  return named;  // IsUnknownKey still answers for it
}

}  // namespace

struct OidcVerifier::Issuer {
  std::string url;

  // Held for a whole fetch, so concurrent callers share one fetch instead of each making
  // their own. Only callers without usable keys block on it; the others try_lock. Never
  // taken while holding `mu`.
  std::mutex fetch_mu;

  std::mutex mu;  // guards the fields below; held only briefly, never during a fetch
  std::shared_ptr<const JwkSet> keys;            // the last set fetched; nullptr before the first
  absl::Time fetched_at = absl::InfinitePast();  // when `keys` were fetched
  uint64_t fetches = 0;                          // fetch attempts completed
  absl::Time last_attempt = absl::InfinitePast();
  absl::Status failure;  // of the last attempt; OK when it succeeded
  absl::Time failed_at = absl::InfinitePast();

  // The keys to verify with. Without `seen`, fetches them when there are none or they are
  // older than max_key_age. With `seen` (the token names a key not in that set), fetches
  // them again unless the last attempt is less than min_refetch_interval old. A caller that
  // holds usable keys does not wait for another caller's fetch: it gets the keys held.
  absl::StatusOr<std::shared_ptr<const JwkSet>> Keys(const VerifierOptions& options,
                                                     const std::shared_ptr<const JwkSet>& seen) {
    bool refresh = seen != nullptr;
    uint64_t fetches_before;
    bool may_wait;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (refresh && keys != seen) return keys;  // another caller has fetched since
      absl::Time now = absl::Now();
      if (absl::StatusOr<std::shared_ptr<const JwkSet>> held = Held(options, refresh, now);
          !held.ok() || *held != nullptr) {
        return held;
      }
      fetches_before = fetches;
      may_wait = !Usable(options, now);
    }
    std::unique_lock<std::mutex> fetching(fetch_mu, std::defer_lock);
    if (may_wait) {
      fetching.lock();  // nothing to verify with meanwhile; bounded by fetch_timeout
    } else if (!fetching.try_lock()) {
      // Another call is fetching. Waiting would let a flood of tokens naming made-up keys
      // hold every thread for as long as a slow provider takes; answer with what is held.
      std::lock_guard<std::mutex> lock(mu);
      return keys;
    }
    {
      std::lock_guard<std::mutex> lock(mu);
      if (fetches != fetches_before) return Outcome(options, refresh, absl::Now());
    }
    absl::StatusOr<std::shared_ptr<const JwkSet>> fetched = FetchKeys(url, options);
    std::lock_guard<std::mutex> lock(mu);
    ++fetches;
    last_attempt = absl::Now();
    if (fetched.ok()) {
      keys = *fetched;  // the whole set: a key the provider withdrew is gone now
      fetched_at = last_attempt;
      failure = absl::OkStatus();
    } else {
      failure = fetched.status();
      failed_at = last_attempt;
    }
    return Outcome(options, refresh, last_attempt);
  }

  // Under `mu`: whether `keys` may still verify tokens (through a provider's outage).
  bool Usable(const VerifierOptions& options, absl::Time now) const {
    return keys != nullptr && now < fetched_at + options.max_stale_age;
  }

  // Under `mu`: the answer without fetching (keys, or the remembered failure), or nullptr
  // when a fetch is due.
  absl::StatusOr<std::shared_ptr<const JwkSet>> Held(const VerifierOptions& options, bool refresh,
                                                     absl::Time now) const {
    if (!refresh && keys != nullptr && now < fetched_at + options.max_key_age) return keys;
    if (!failure.ok() && now < failed_at + options.failure_backoff) {
      if (!refresh && Usable(options, now)) return keys;  // stale, within max_stale_age
      return Unavailable(options, now);
    }
    if (refresh && now < last_attempt + options.min_refetch_interval) return keys;
    return std::shared_ptr<const JwkSet>();
  }

  // Under `mu`, after an attempt (this call's or the one it waited for).
  absl::StatusOr<std::shared_ptr<const JwkSet>> Outcome(const VerifierOptions& options,
                                                        bool refresh, absl::Time now) const {
    if (failure.ok()) return keys;
    if (!refresh && Usable(options, now)) return keys;
    return Unavailable(options, now);
  }

  absl::Status Unavailable(const VerifierOptions& options, absl::Time now) const {
    std::string msg =
        absl::StrCat("cannot read the keys of OpenID issuer ", url, ": ", failure.message());
    if (keys != nullptr && !Usable(options, now)) {
      absl::StrAppend(&msg, "; the keys fetched at ",
                      absl::FormatTime(absl::RFC3339_sec, fetched_at, absl::UTCTimeZone()),
                      " are older than max_stale_age (",
                      absl::FormatDuration(options.max_stale_age), ")");
    }
    return absl::UnavailableError(msg);
  }
};

OidcVerifier::OidcVerifier(VerifierOptions options) : options_(std::move(options)) {}
OidcVerifier::~OidcVerifier() = default;

OidcVerifier::Issuer& OidcVerifier::IssuerFor(const std::string& issuer) {
  std::lock_guard<std::mutex> lock(mu_);
  std::unique_ptr<Issuer>& entry = issuers_[issuer];
  if (entry == nullptr) {
    entry = std::make_unique<Issuer>();
    entry->url = issuer;
  }
  return *entry;
}

absl::StatusOr<VerifiedClaims> OidcVerifier::Verify(const Jwt& jwt, const std::string& issuer,
                                                    const std::vector<std::string>& audiences,
                                                    absl::Time now) {
  Issuer& entry = IssuerFor(issuer);
  absl::StatusOr<std::shared_ptr<const JwkSet>> keys = entry.Keys(options_, nullptr);
  if (!keys.ok()) return keys.status();
  absl::Status verified = VerifySignature(jwt, **keys);
  if (IsUnknownKey(verified)) {
    // The provider may have rotated its keys since they were fetched.
    absl::StatusOr<std::shared_ptr<const JwkSet>> fresh = entry.Keys(options_, *keys);
    if (!fresh.ok()) return fresh.status();
    if (*fresh != *keys) verified = VerifySignature(jwt, **fresh);
  }
  if (!verified.ok()) return Refusal(verified, issuer);
  ClaimRules rules{issuer, audiences, now, options_.skew};
  absl::StatusOr<VerifiedClaims> claims = CheckClaims(jwt, rules);
  if (!claims.ok()) return Refusal(claims.status(), issuer);
  return claims;
}

}  // namespace cub::identity
