// DSSE (Dead Simple Signing Envelope, v1.0): signed payloads in the JSON envelope form that
// in-toto attestations use, and that cub prints for signed Release provenance records and
// approval statements.
//
// A signature covers the payload type and the payload together, through the
// pre-authentication encoding
//   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
// where SP is one space (0x20) and LEN is the length in bytes as ASCII decimal without
// leading zeros. The envelope is
//   {"payloadType":"...","payload":"<base64>","signatures":[{"keyid":"...","sig":"<base64>"}]}
// Signatures here are Ed25519 (signing_key.h) over the PAE bytes, so any copy of the envelope
// can be checked offline with openssl (docs/operations.md, "Verifying signed records
// offline").
//
// Pure functions apart from the key; thread-safe.

#ifndef CUB_LIB_SIGN_DSSE_H_
#define CUB_LIB_SIGN_DSSE_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/sign/signing_key.h"

namespace cub::sign {

// The DSSE v1 pre-authentication encoding of `payload` under `payload_type`: the bytes that
// are signed. Example: Pae("http://example.com/HelloWorld", "hello world") ==
// "DSSEv1 29 http://example.com/HelloWorld 11 hello world".
std::string Pae(std::string_view payload_type, std::string_view payload);

// A DSSE envelope. `payload` and `sig` hold raw bytes; the JSON form carries them in base64.
struct Envelope {
  struct Signature {
    std::string keyid;  // unauthenticated hint of the key; may be empty
    std::string sig;    // raw signature bytes (64 for Ed25519)

    friend bool operator==(const Signature& a, const Signature& b) {
      return a.keyid == b.keyid && a.sig == b.sig;
    }
  };

  std::string payload_type;
  std::string payload;
  std::vector<Signature> signatures;

  // Compact JSON with the keys in this order: payloadType, payload, signatures (each with
  // keyid, then sig), as JsonText writes them. Binary fields in standard base64 with padding.
  std::string ToJson() const;

  // Reads the JSON form. Follows DSSE's parsing rules: payloadType, payload, signatures and
  // each signature's sig are required (an empty signatures list is read; VerifyEnvelope
  // rejects it); keyid may be absent or null (read as ""); unknown fields are ignored. The
  // base64 fields may use the standard or URL-safe alphabet, padded or not, as DSSE allows,
  // but nothing looser (see base64.h). Read with ParseJson (lib/util/json.h): any JSON layout
  // is accepted, a duplicate key is an error.
  // Errors: InvalidArgument "dsse envelope: <what>", naming the field.
  static absl::StatusOr<Envelope> FromJson(std::string_view json);

  friend bool operator==(const Envelope& a, const Envelope& b) {
    return a.payload_type == b.payload_type && a.payload == b.payload &&
           a.signatures == b.signatures;
  }
};

// An envelope holding `payload` with one signature by `key` over Pae(payload_type, payload),
// with keyid key.KeyId().
Envelope SignEnvelope(const SigningKey& key, std::string_view payload_type,
                      std::string_view payload);

// OK if at least one of `env`'s signatures is an Ed25519 signature by the key in
// `public_key_pem` over Pae(env.payload_type, env.payload). Keyids are ignored: DSSE makes
// them unauthenticated hints, and every signature is tried.
// Errors: InvalidArgument if the PEM holds no Ed25519 public key; Unauthenticated if the
// envelope has no signatures or none verifies, naming each signature (index and keyid) and
// why it failed, and the key id of the public key tried.
absl::Status VerifyEnvelope(const Envelope& env, std::string_view public_key_pem);

}  // namespace cub::sign

#endif  // CUB_LIB_SIGN_DSSE_H_
