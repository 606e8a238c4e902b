// Verifies tokens that OpenID providers signed, given the issuer to expect: fetches the
// issuer's discovery document (ISSUER/.well-known/openid-configuration) and its JWKS on first
// use, caches the keys, and fetches them again when a token names a key it does not know
// (the provider rotated its keys), at most once per `min_refetch_interval` per issuer, so a
// flood of tokens naming made-up keys costs the provider one request per interval.
//
// Contract:
// - The discovery document's `issuer` must equal the issuer exactly (OpenID Connect Discovery
//   4.3), and its `jwks_uri` must pass net::CheckIssuerUrl: https, or http on loopback.
// - Fetches are single-flight per issuer: concurrent calls needing the same issuer's keys
//   wait for one fetch. A failed fetch is remembered for `failure_backoff`, so calls during
//   a provider's outage fail at once instead of each waiting for the timeout; keys fetched
//   earlier keep verifying meanwhile.
// - Documents are read with net::Fetch bounded by `max_document_bytes` and `fetch_timeout`.
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
  // and cannot be fetched. A refusal because the token names a key the issuer does not
  // publish, even after fetching the keys again, answers IsUnknownKey.
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
