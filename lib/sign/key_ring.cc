#include "lib/sign/key_ring.h"

#include <utility>

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

std::shared_ptr<KeyRing> FixedKeyRing(std::optional<SigningKey> signing,
                                      std::vector<TrustedPublicKey> extra) {
  auto s = std::make_shared<KeySnapshot>();
  s->generation = 1;
  if (signing.has_value()) {
    s->trusted.push_back({signing->KeyId(), signing->PublicKeyPem()});
  }
  for (TrustedPublicKey& k : extra) s->trusted.push_back(std::move(k));
  s->signing = std::move(signing);
  return std::make_shared<Fixed>(std::move(s));
}

}  // namespace cub::sign
