// Checking DSSE envelopes against a set of trusted keys (lib/sign/ring_verify.h) and the
// signing key of a snapshot (lib/sign/key_ring.h, SigningKeyOf).
#include "lib/sign/ring_verify.h"

#include <catch2/catch.hpp>
#include <string>

namespace cub::sign {
namespace {

SigningKey NewKey() {
  auto k = SigningKey::Generate();
  REQUIRE(k.ok());
  return *k;
}

KeySnapshot Trusting(const std::vector<SigningKey>& keys) {
  KeySnapshot s;
  for (const auto& k : keys) s.trusted.push_back({k.KeyId(), k.PublicKeyPem()});
  return s;
}

TEST_CASE("an envelope verifies with the trusted key its keyid names") {
  const SigningKey old_key = NewKey(), new_key = NewKey();
  const Envelope env = SignEnvelope(old_key, "text/plain", "hello");
  auto by = VerifyEnvelopeTrusted(env, Trusting({new_key, old_key}));
  REQUIRE(by.ok());
  CHECK(*by == old_key.KeyId());

  SECTION("not when that key is not trusted (revoked)") {
    auto s = VerifyEnvelopeTrusted(env, Trusting({new_key}));
    CHECK(absl::IsUnauthenticated(s.status()));
    CHECK_THAT(std::string(s.status().message()),
               Catch::Contains("(keyid " + old_key.KeyId() + "): not a trusted key"));
  }
  SECTION("not when the keyid names a trusted key that did not make the signature") {
    Envelope forged = env;
    forged.signatures[0].keyid = new_key.KeyId();
    auto s = VerifyEnvelopeTrusted(forged, Trusting({new_key, old_key}));
    CHECK(absl::IsUnauthenticated(s.status()));
    CHECK_THAT(std::string(s.status().message()), Catch::Contains("does not verify"));
  }
  SECTION("not when the payload was changed") {
    Envelope tampered = env;
    tampered.payload = "hellO";
    CHECK(absl::IsUnauthenticated(VerifyEnvelopeTrusted(tampered, Trusting({old_key})).status()));
  }
  SECTION("a signature without keyid is tried with every trusted key") {
    Envelope bare = env;
    bare.signatures[0].keyid.clear();
    auto found = VerifyEnvelopeTrusted(bare, Trusting({new_key, old_key}));
    REQUIRE(found.ok());
    CHECK(*found == old_key.KeyId());
    auto none = VerifyEnvelopeTrusted(bare, Trusting({new_key}));
    CHECK_THAT(std::string(none.status().message()),
               Catch::Contains("verifies with none of the 1 trusted keys"));
  }
  SECTION("an envelope without signatures") {
    Envelope empty = env;
    empty.signatures.clear();
    CHECK(absl::IsUnauthenticated(VerifyEnvelopeTrusted(empty, Trusting({old_key})).status()));
  }
}

TEST_CASE("SigningKeyOf: the snapshot's key, or SigningKeyNotReady saying why") {
  KeySnapshot s;
  s.signing_missing = "waiting for its key file /run/secrets/key.pem";
  auto none = SigningKeyOf(s);
  CHECK(absl::IsFailedPrecondition(none.status()));
  CHECK(std::string(none.status().message()) ==
        "SigningKeyNotReady: cubd has no signing key yet (waiting for its key file "
        "/run/secrets/key.pem); nothing can be signed until it has one");
  s.signing = NewKey();
  auto key = SigningKeyOf(s);
  REQUIRE(key.ok());
  CHECK(key->KeyId() == s.signing->KeyId());
  auto fixed = FixedKeyRing(std::nullopt)->Snapshot();
  REQUIRE(fixed.ok());
  CHECK(absl::IsFailedPrecondition(SigningKeyOf(**fixed).status()));
}

}  // namespace
}  // namespace cub::sign
