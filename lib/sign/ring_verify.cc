#include "lib/sign/ring_verify.h"

#include "absl/strings/str_cat.h"
#include "lib/sign/signing_key.h"

namespace cub::sign {

absl::StatusOr<std::string> VerifyEnvelopeTrusted(const Envelope& env, const KeySnapshot& keys) {
  if (env.signatures.empty()) {
    return absl::UnauthenticatedError("dsse envelope: it has no signatures");
  }
  const std::string pae = Pae(env.payload_type, env.payload);
  std::string failures;
  for (size_t i = 0; i < env.signatures.size(); ++i) {
    const Envelope::Signature& sig = env.signatures[i];
    const std::string where =
        absl::StrCat("signatures[", i, "]",
                     sig.keyid.empty() ? std::string() : absl::StrCat(" (keyid ", sig.keyid, ")"));
    if (!sig.keyid.empty()) {
      const TrustedPublicKey* k = keys.Find(sig.keyid);
      if (k == nullptr) {
        absl::StrAppend(&failures, "; ", where,
                        ": not a trusted key (revoked, or never trusted: `cub key list --all`)");
        continue;
      }
      if (VerifyEd25519(k->public_pem, pae, sig.sig).ok()) return k->key_id;
      absl::StrAppend(&failures, "; ", where, ": does not verify");
      continue;
    }
    bool verified = false;
    std::string id;
    for (const TrustedPublicKey& k : keys.trusted) {
      if (VerifyEd25519(k.public_pem, pae, sig.sig).ok()) {
        verified = true;
        id = k.key_id;
        break;
      }
    }
    if (verified) return id;
    absl::StrAppend(&failures, "; ", where, ": verifies with none of the ", keys.trusted.size(),
                    " trusted keys");
  }
  return absl::UnauthenticatedError(
      absl::StrCat("dsse envelope: no signature by a trusted key over payload type \"",
                   env.payload_type, "\"", failures));
}

}  // namespace cub::sign
