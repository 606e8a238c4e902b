#include "lib/sign/key_ring.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace cub::sign {
namespace {

class Fixed : public KeyRing {
 public:
  explicit Fixed(std::shared_ptr<const KeySnapshot> s) : snapshot_(std::move(s)) {}
  absl::StatusOr<std::shared_ptr<const KeySnapshot>> Snapshot() override { return snapshot_; }

 private:
  const std::shared_ptr<const KeySnapshot> snapshot_;
};

}  // namespace

absl::StatusOr<SigningKey> SigningKeyOf(const KeySnapshot& s) {
  if (s.signing.has_value()) return *s.signing;
  return absl::FailedPreconditionError(absl::StrCat(
      kSigningKeyNotReady, ": cubd has no signing key yet",
      s.signing_missing.empty() ? std::string() : absl::StrCat(" (", s.signing_missing, ")"),
      "; nothing can be signed until it has one"));
}

std::shared_ptr<KeyRing> FixedKeyRing(std::optional<SigningKey> signing,
                                      std::vector<TrustedPublicKey> extra) {
  auto s = std::make_shared<KeySnapshot>();
  s->generation = 1;
  if (signing.has_value()) {
    s->trusted.push_back({signing->KeyId(), signing->PublicKeyPem()});
  }
  for (TrustedPublicKey& k : extra) s->trusted.push_back(std::move(k));
  if (!signing.has_value()) s->signing_missing = "the ring was made without one";
  s->signing = std::move(signing);
  return std::make_shared<Fixed>(std::move(s));
}

}  // namespace cub::sign
