// The server's Ed25519 signing key, which signs Release provenance records and approval
// statements (as DSSE envelopes, see dsse.h), and Ed25519 signature verification.
//
// Keys are held in OpenSSL EVP_PKEYs and exchanged as PEM: private keys as unencrypted PKCS#8
// ("BEGIN PRIVATE KEY"), public keys as SubjectPublicKeyInfo ("BEGIN PUBLIC KEY"), the forms
// `openssl genpkey -algorithm ed25519` and `openssl pkey -pubout` write, so a signature can be
// checked offline with `openssl pkeyutl -verify -rawin` (docs/operations.md, "Verifying signed
// records offline").
//
// Signatures are pure Ed25519 (RFC 8032): 64 raw bytes over the message itself, no pre-hash.
//
// Thread-safety: a SigningKey is immutable after construction; all const members may be called
// concurrently, on one object or on copies of it. The one state kept is the process-wide memo of
// signatures known to verify (verified_signatures.h), which Sign and VerifyEd25519 share.

#ifndef CUB_LIB_SIGN_SIGNING_KEY_H_
#define CUB_LIB_SIGN_SIGNING_KEY_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::sign {

// Length of an Ed25519 signature in bytes.
inline constexpr size_t kEd25519SignatureSize = 64;

// An Ed25519 private key. Copies are cheap and share the one underlying key (which is never
// modified). A moved-from SigningKey may only be assigned to or destroyed.
class SigningKey {
 public:
  // A new random key (from OpenSSL's default random generator).
  // Errors: Internal if OpenSSL fails.
  static absl::StatusOr<SigningKey> Generate();

  // Reads the first private key in `pem`, which must be an unencrypted Ed25519 key in PKCS#8
  // PEM. Errors: InvalidArgument naming what is wrong (not PEM, encrypted, another algorithm).
  static absl::StatusOr<SigningKey> FromPrivatePem(std::string_view pem);

  // The key kept in the file `path` (PKCS#8 PEM), made on first use:
  //   - If `path` exists, it is read and parsed as FromPrivatePem does. It must be a regular
  //     file (a symlink to one is followed, as in a Kubernetes Secret volume) that others may
  //     not access at all and its group may at most read (0600, 0400, 0640, 0440); otherwise
  //     FailedPrecondition with a message naming the file and its mode and suggesting
  //     `chmod 600`. A file that does not parse is an error, never replaced.
  //   - If it does not exist, a new key is generated and written to a temporary file
  //     `path.tmp.XXXXXX` in the same directory, created with mode 0600 and fsynced, then
  //     hard-linked to `path` (which, unlike rename, never replaces a file that appeared
  //     meanwhile), and the directory is fsynced. Should another process create `path` first,
  //     that key is loaded and returned instead, so concurrent first starts agree on one key.
  // The directory must exist; it is not created.
  // A crash while creating can leave a `path.tmp.XXXXXX` file behind (mode 0600); it is never
  // read and may be deleted.
  // Errors: InvalidArgument for an empty path or a file over 64 KiB; FailedPrecondition as
  // above; Internal for I/O errors (with the path and strerror); the FromPrivatePem errors,
  // prefixed with "signing key <path>: ".
  static absl::StatusOr<SigningKey> LoadOrCreate(const std::string& path);

  // The private key as PKCS#8 PEM. This is the secret: never log it or send it anywhere.
  std::string PrivatePem() const;

  // The public key as SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----"), ending in '\n'.
  std::string PublicKeyPem() const;

  // "sha256:" followed by the lowercase hex SHA-256 of the DER SubjectPublicKeyInfo of the
  // public key: the same for every copy and every load of the key. Equals
  //   openssl pkey -in key.pem -pubout -outform DER | sha256sum
  // (with "sha256:" in front).
  std::string KeyId() const;

  // The 64-byte Ed25519 signature of `message`. Ed25519 is deterministic: the same key and
  // message always give the same signature. Aborts the process if OpenSSL fails, which it can
  // only do when out of memory (there is no signature to return then). The signature is
  // remembered as verifying (verified_signatures.h): checking it in this process is then cheap.
  std::string Sign(std::string_view message) const;

 private:
  struct Impl;
  explicit SigningKey(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}

  std::shared_ptr<const Impl> impl_;
};

// Checks that `signature` is the Ed25519 signature of `message` by the key in
// `public_key_pem` (SubjectPublicKeyInfo PEM, as PublicKeyPem() writes).
// Returns OK; InvalidArgument if the PEM holds no Ed25519 public key or the signature is not
// 64 bytes long; Unauthenticated "Ed25519 signature does not verify ..." otherwise. A triple this
// process signed or verified before is answered from the memo of verified signatures; any other
// is verified in full (and remembered when it verifies).
absl::Status VerifyEd25519(std::string_view public_key_pem, std::string_view message,
                           std::string_view signature);

// The key id (as SigningKey::KeyId() spells it) of the Ed25519 public key in `public_key_pem`.
// Errors: InvalidArgument as VerifyEd25519.
absl::StatusOr<std::string> PublicKeyId(std::string_view public_key_pem);

}  // namespace cub::sign

#endif  // CUB_LIB_SIGN_SIGNING_KEY_H_
