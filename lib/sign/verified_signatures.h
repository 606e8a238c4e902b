// Signatures known to verify: a bounded, process-wide memo of (public key, message, signature)
// triples that this process signed or verified, so that checking one again costs a SHA-256 of
// the message instead of an Ed25519 verification (about three times a signature's cost).
//
// Why: a stage-wide publish signs a thousand provenance records and its delivery checks each of
// them again moments later, before handing the bundles to the Target (lib/ops/delivery.cc);
// the second check of what this process just signed is the same computation with the same
// answer. Ed25519 verification is a pure function of the public key, the message and the
// signature, so a remembered "verifies" stays true; only the key's trust can change, and that
// is checked by the callers (lib/sign/ring_verify.h) before they ask, every time.
//
// Only successes are remembered, each as the SHA-256 of the three inputs (length-prefixed, so
// no two triples share an encoding): a message or signature altered by a single bit is not
// found and is verified in full. At most kMaxRemembered entries; when full, the memo starts
// afresh (the recent entries are the ones asked about). Thread-safe.
#ifndef CUB_LIB_SIGN_VERIFIED_SIGNATURES_H_
#define CUB_LIB_SIGN_VERIFIED_SIGNATURES_H_

#include <cstddef>
#include <string_view>

namespace cub::sign {

inline constexpr size_t kMaxRemembered = 16384;

// Remembers that `signature` is a valid Ed25519 signature of `message` by the key whose raw
// 32-byte public key is `raw_public_key`. Call it only with a signature just made with that
// key or just verified with it.
void RememberVerified(std::string_view raw_public_key, std::string_view message,
                      std::string_view signature);

// True when the triple was remembered (and not forgotten since).
bool KnownVerified(std::string_view raw_public_key, std::string_view message,
                   std::string_view signature);

}  // namespace cub::sign

#endif  // CUB_LIB_SIGN_VERIFIED_SIGNATURES_H_
