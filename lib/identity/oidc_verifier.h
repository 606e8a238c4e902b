// Verifies tokens that OpenID providers signed, given the issuer to expect: fetches the
// issuer's discovery document (ISSUER/.well-known/openid-configuration) and its JWKS on first
// use, caches the keys, and fetches them again (a) when the cached set is older than
// `max_key_age`, so a key the provider withdrew stops verifying within that age, and (b) when
// a token names a key it does not know (the provider rotated its keys), at most once per
// `min_refetch_interval` per issuer, so a flood of tokens naming made-up keys costs the
// provider one request per interval.
//
// Contract:
// - The discovery document's `issuer` must equal the issuer exactly (OpenID Connect Discovery
//   4.3), and its `jwks_uri` must pass net::CheckIssuerUrl: https, or http on loopback.
// - A successful fetch replaces the whole set: a key missing from it stops verifying at once.
// - Fetches are single-flight per issuer. Only a call that has no usable keys for the issuer
//   (first use, or keys older than `max_stale_age`) waits for a fetch another call is making,
//   at most `fetch_timeout`. A call that holds usable keys never waits: when it wants a
//   refresh (unknown kid, or keys older than `max_key_age`) and a fetch is already under way,
//   it answers with the keys held (for an unknown kid: the IsUnknownKey refusal), so a flood
//   of tokens against a slow provider cannot hold every server thread.
// - A failed fetch is remembered for `failure_backoff`, so calls during a provider's outage
//   fail at once instead of each waiting for the timeout. Keys fetched earlier keep verifying
//   tokens that name them through an outage, but only up to `max_stale_age` after they were
//   fetched; after that the issuer's tokens are refused UNAVAILABLE until a fetch succeeds.
// - The discovery document and the JWKS are read with net::Fetch, each bounded by
//   `max_document_bytes`, both together by one `fetch_timeout`.
// Thread-safe.
#ifndef CUB_LIB_IDENTITY_OIDC_VERIFIER_H_
#define CUB_LIB_IDENTITY_OIDC_VERIFIER_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "lib/identity/jwks.h"
#include "lib/identity/jwt.h"

namespace cub::identity {

struct VerifierOptions {
  std::string ca_file;  // PEM roots for https; empty: the system's
  absl::Duration fetch_timeout = absl::Seconds(5);
  absl::Duration min_refetch_interval = absl::Seconds(10);
  absl::Duration failure_backoff = absl::Seconds(5);
  // Keys fetched longer ago than this are fetched again before a token is verified with them.
  absl::Duration max_key_age = absl::Hours(1);
  // While fetching again fails, keys keep verifying up to this long after they were fetched.
  absl::Duration max_stale_age = absl::Hours(24);
  size_t max_document_bytes = 1 << 20;
  absl::Duration skew = absl::Seconds(60);
};

class OidcVerifier {
 public:
  explicit OidcVerifier(VerifierOptions options);
  ~OidcVerifier();
  OidcVerifier(const OidcVerifier&) = delete;
  OidcVerifier& operator=(const OidcVerifier&) = delete;

  // Verifies `jwt` (ParseJwt's output) as signed by `issuer` for one of `audiences`, valid
  // at `now`: signature by one of the issuer's published keys, then CheckClaims.
  // UNAUTHENTICATED for a token that fails (the message says why, naming the issuer);
  // UNAVAILABLE "cannot read the keys of OpenID issuer ISSUER: ..." when the keys are needed
  // and cannot be fetched (or the only keys held are older than `max_stale_age`). A refusal
  // because the token names a key the issuer does not publish, even after fetching the keys
  // again (or while another call is fetching them), answers IsUnknownKey.
  absl::StatusOr<VerifiedClaims> Verify(const Jwt& jwt, const std::string& issuer,
                                        const std::vector<std::string>& audiences, absl::Time now);

 private:
  struct Issuer;  // one issuer's cached keys and fetch state
  Issuer& IssuerFor(const std::string& issuer);

  const VerifierOptions options_;
  std::mutex mu_;  // guards issuers_ (the map; each Issuer has its own lock)
  std::map<std::string, std::unique_ptr<Issuer>> issuers_;
};

}  // namespace cub::identity

#endif  // CUB_LIB_IDENTITY_OIDC_VERIFIER_H_
