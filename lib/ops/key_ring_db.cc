#include "lib/ops/key_ring_db.h"

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/store/transaction.h"
#include "lib/store/trusted_keys.h"

namespace cub::ops {

DbKeyRing::DbKeyRing(const std::string& db_url, DbKeyRingOptions opts)
    : opts_(std::move(opts)), pool_(db_url, 1) {}

absl::StatusOr<std::shared_ptr<DbKeyRing>> DbKeyRing::Open(const std::string& db_url,
                                                           DbKeyRingOptions opts) {
  auto ring = std::make_shared<DbKeyRing>(db_url, std::move(opts));
  const DbKeyRingOptions& o = ring->opts_;
  std::error_code ec;
  if (o.create_key || std::filesystem::exists(o.key_path, ec)) {
    auto key = sign::SigningKey::LoadOrCreate(o.key_path);
    if (!key.ok()) return key.status();
    ring->key_ = *std::move(key);
    ring->Log(absl::StrCat("signing with key ", ring->key_->KeyId(), " (", o.key_path, ")"));
  } else {
    ring->missing_ =
        absl::StrCat("waiting for its key file ", o.key_path, " to appear; it looks again every ",
                     absl::FormatDuration(o.key_poll));
    ring->Log(absl::StrCat("no signing key yet: ", ring->missing_,
                           "; until then publishing and anything else that signs is refused"));
  }
  {
    std::lock_guard<std::mutex> lock(ring->mu_);
    auto first = ring->ReadLocked();
    if (!first.ok()) return first.status();
  }
  if (!ring->key_) ring->poller_ = std::thread([r = ring.get()] { r->PollForKey(); });
  return ring;
}

DbKeyRing::~DbKeyRing() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  stop_cv_.notify_all();
  if (poller_.joinable()) poller_.join();
}

void DbKeyRing::Log(const std::string& line) const {
  if (opts_.log) opts_.log(line);
}

absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> DbKeyRing::Snapshot() {
  std::lock_guard<std::mutex> lock(mu_);
  if (cached_ && absl::Now() - read_at_ < opts_.cache) return cached_;
  return ReadLocked();
}

void DbKeyRing::Refresh() {
  std::lock_guard<std::mutex> lock(mu_);
  cached_.reset();
}

absl::StatusOr<std::shared_ptr<const sign::KeySnapshot>> DbKeyRing::ReadLocked() {
  std::optional<store::NewTrustedKey> record;
  if (key_ && !recorded_) {
    record =
        store::NewTrustedKey{key_->KeyId(), key_->PublicKeyPem(), store::kKeyOriginServer, "", ""};
  }
  auto rows = store::InTransaction(
      pool_, [&](store::Tx& tx) -> absl::StatusOr<std::vector<v1::TrustedKey>> {
        if (record) {
          auto inserted = store::RecordKeyIfAbsent(tx, *record);
          if (!inserted.ok()) return inserted.status();
        }
        return store::ListTrustedKeys(tx, /*include_revoked=*/true);
      });
  if (!rows.ok()) {
    return absl::UnavailableError(
        absl::StrCat("the trusted keys cannot be read: ", rows.status().message()));
  }
  if (record) recorded_ = true;
  auto s = std::make_shared<sign::KeySnapshot>();
  std::string fingerprint;
  for (const v1::TrustedKey& k : *rows) {
    if (key_ && k.key_id() == key_->KeyId() && !k.revoked_at().empty()) {
      s->signing_missing =
          absl::StrCat("its key ", k.key_id(), " was revoked at ", k.revoked_at(), " by ",
                       k.revoked_by(), "; start it with a new --signing-key");
    }
    if (!k.revoked_at().empty()) continue;
    s->trusted.push_back({k.key_id(), k.pem()});
    absl::StrAppend(&fingerprint, k.key_id(), ",");
  }
  if (key_ && s->signing_missing.empty()) {
    s->signing = key_;
    absl::StrAppend(&fingerprint, "signing ", key_->KeyId());
  } else if (s->signing_missing.empty()) {
    s->signing_missing = missing_;
  }
  if (fingerprint != fingerprint_) {
    ++generation_;
    fingerprint_ = std::move(fingerprint);
  }
  s->generation = generation_;
  cached_ = s;
  read_at_ = absl::Now();
  return cached_;
}

bool DbKeyRing::TryLoadLocked() {
  std::error_code ec;
  if (!std::filesystem::exists(opts_.key_path, ec)) return false;
  auto key = sign::SigningKey::LoadOrCreate(opts_.key_path);
  if (!key.ok()) {
    std::string why =
        absl::StrCat("its key file ", opts_.key_path, " does not load: ", key.status().message());
    if (why != missing_) Log(absl::StrCat("no signing key yet: ", why));
    missing_ = std::move(why);
    cached_.reset();
    return false;
  }
  key_ = *std::move(key);
  missing_.clear();
  cached_.reset();
  Log(absl::StrCat("signing with key ", key_->KeyId(), " (", opts_.key_path, ", appeared)"));
  return true;
}

void DbKeyRing::PollForKey() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    stop_cv_.wait_for(lock, absl::ToChronoMilliseconds(opts_.key_poll));
    if (stopping_) return;
    if (TryLoadLocked()) return;
  }
}

}  // namespace cub::ops
