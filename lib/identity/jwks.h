// JSON Web Key Sets (RFC 7517) as an OpenID provider publishes them at its `jwks_uri`: the
// public keys of kty RSA (n, e), EC on P-256 (crv, x, y) and OKP Ed25519 (crv, x), each turned
// into an OpenSSL key once, when the set is parsed.
//
// Keys that cub cannot use (another kty or curve, `use` other than "sig", private members
// present, an RSA modulus under 2048 bits) are skipped, not errors: a provider may publish
// keys for other purposes beside its signing keys. Immutable after Parse; thread-safe.
#ifndef CUB_LIB_IDENTITY_JWKS_H_
#define CUB_LIB_IDENTITY_JWKS_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace cub::identity {

struct Jwk {
  std::string kid;  // may be empty
  std::string kty;  // RSA, EC or OKP
  std::string alg;  // the one JWS alg this key verifies: RS256, ES256 or EdDSA
  std::shared_ptr<EVP_PKEY> key;
};

class JwkSet {
 public:
  JwkSet() = default;

  // Parses `{"keys": [...]}`. INVALID_ARGUMENT when the text is not such a JSON object, or a
  // key of a usable type is malformed (naming its kid and member: "key 'k1': member 'n' is not
  // base64url"). A set with no usable key is valid and empty.
  static absl::StatusOr<JwkSet> Parse(std::string_view json);

  // The key named `kid` that verifies `alg`; with an empty `kid`, the only key for `alg`
  // (nullptr when there are none or several).
  const Jwk* Find(const std::string& kid, const std::string& alg) const;

  const std::vector<Jwk>& keys() const { return keys_; }

 private:
  std::vector<Jwk> keys_;
};

}  // namespace cub::identity

#endif  // CUB_LIB_IDENTITY_JWKS_H_
