// The trusted keys against a real PostgreSQL (migrations/0024, lib/store/trusted_keys.h,
// lib/ops/keys.h, lib/ops/key_ring_db.h): the rows are append-only but for one revocation
// (whoever asks), the runtime role may only insert, read and revoke; TrustKey and RevokeKey
// refuse what they must, naming the field; the database-backed ring records its signing key,
// changes its generation on every trust and revoke, stops signing with a revoked key, and waits
// for a key file that is not there yet.
#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <pqxx/pqxx>
#include <string>
#include <thread>

#include "harness/test_db.h"
#include "lib/ops/key_ring_db.h"
#include "lib/ops/keys.h"
#include "lib/sign/dsse.h"
#include "lib/sign/ring_verify.h"
#include "lib/store/migrations.h"
#include "lib/store/transaction.h"
#include "lib/store/trusted_keys.h"

namespace cub {
namespace {

// Runs `sql` as the role of `url`; returns the error message, or "" when it succeeded.
std::string Refusal(const std::string& url, const std::string& sql) {
  try {
    pqxx::connection c(url);
    pqxx::work w(c);
    w.exec(sql);
    w.commit();
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             (name + "_" + std::to_string(::getpid()) + "_" + std::to_string(std::rand()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("trusted_keys");
  std::string dir = TempDir("trusted_keys");
  std::unique_ptr<store::ConnectionPool> db;
  ops::Principal admin, alice;

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 2);
    admin.username = "root";
    admin.admin = true;
    alice.username = "alice";
  }
  ~Fixture() { std::filesystem::remove_all(dir); }

  std::shared_ptr<ops::DbKeyRing> Ring(const std::string& key_file, bool create = true) {
    ops::DbKeyRingOptions o;
    o.key_path = dir + "/" + key_file;
    o.create_key = create;
    o.cache = absl::Seconds(60);  // only Refresh() shows a change: what the test controls
    o.key_poll = absl::Milliseconds(20);
    auto ring = ops::DbKeyRing::Open(testing::RuntimeUrl(url), o);
    REQUIRE(ring.ok());
    return *ring;
  }
};

std::shared_ptr<const sign::KeySnapshot> Snap(sign::KeyRing& ring) {
  auto s = ring.Snapshot();
  REQUIRE(s.ok());
  return *s;
}

std::string PublicPem() {
  auto k = sign::SigningKey::Generate();
  REQUIRE(k.ok());
  return k->PublicKeyPem();
}

TEST_CASE("the ring records its key as a Server key and trusts it") {
  Fixture f;
  auto ring = f.Ring("a.pem");
  auto s = Snap(*ring);
  REQUIRE(s->signing.has_value());
  REQUIRE(s->trusted.size() == 1);
  CHECK(s->trusted[0].key_id == s->signing->KeyId());
  auto keys = ops::ListKeys(*f.db, *ring, f.alice, {});
  REQUIRE(keys.ok());
  REQUIRE(keys->keys_size() == 1);
  CHECK(keys->keys(0).origin() == "Server");
  CHECK(keys->keys(0).current());
  CHECK(keys->keys(0).created_by().empty());

  SECTION("a second start with the same key records nothing new") {
    auto again = f.Ring("a.pem");
    CHECK(Snap(*again)->trusted.size() == 1);
  }
  SECTION("after a rotation both keys are trusted, the new one signs, the old one verifies") {
    const sign::SigningKey old_key = *s->signing;
    const sign::Envelope signed_before = sign::SignEnvelope(old_key, "text/plain", "hello");
    auto rotated = f.Ring("b.pem");
    auto r = Snap(*rotated);
    REQUIRE(r->signing.has_value());
    CHECK(r->signing->KeyId() != old_key.KeyId());
    CHECK(r->trusted.size() == 2);
    auto by = sign::VerifyEnvelopeTrusted(signed_before, *r);
    REQUIRE(by.ok());
    CHECK(*by == old_key.KeyId());
    auto listed = ops::ListKeys(*f.db, *rotated, f.alice, {});
    REQUIRE(listed.ok());
    REQUIRE(listed->keys_size() == 2);
    CHECK_FALSE(listed->keys(0).current());
    CHECK(listed->keys(1).current());

    // The old key revoked: what it signed no longer verifies, and the generation moved.
    v1::RevokeKeyRequest req;
    req.set_key_id(old_key.KeyId());
    req.set_reason("rotated");
    const int64_t before = r->generation;
    auto revoked = ops::RevokeKey(*f.db, *rotated, f.admin, req);
    REQUIRE(revoked.ok());
    CHECK(revoked->revoked_by() == "root");
    CHECK(revoked->revoke_reason() == "rotated");
    auto after = Snap(*rotated);
    CHECK(after->generation != before);
    CHECK(after->trusted.size() == 1);
    auto refused = sign::VerifyEnvelopeTrusted(signed_before, *after);
    CHECK(absl::IsUnauthenticated(refused.status()));
    CHECK_THAT(std::string(refused.status().message()), Catch::Contains("not a trusted key"));

    // The first ring, still holding the revoked key, no longer signs with it.
    ring->Refresh();
    auto stale = Snap(*ring);
    CHECK_FALSE(stale->signing.has_value());
    CHECK_THAT(stale->signing_missing, Catch::Contains("was revoked at"));
    auto sign_now = sign::SigningKeyOf(*stale);
    CHECK(absl::IsFailedPrecondition(sign_now.status()));
    CHECK_THAT(std::string(sign_now.status().message()), Catch::StartsWith("SigningKeyNotReady: "));
  }
}

TEST_CASE("TrustKey and RevokeKey refuse what they must, naming the field") {
  Fixture f;
  auto ring = f.Ring("a.pem");
  const std::string current = Snap(*ring)->signing->KeyId();
  const std::string pem = PublicPem();
  v1::TrustKeyRequest trust;
  trust.set_pem(pem);
  trust.set_note("offline signer");

  auto not_admin = ops::TrustKey(*f.db, *ring, f.alice, trust);
  CHECK(absl::IsPermissionDenied(not_admin.status()));
  CHECK_THAT(std::string(not_admin.status().message()), Catch::Contains("needs a server admin"));

  const int64_t before = Snap(*ring)->generation;
  auto trusted = ops::TrustKey(*f.db, *ring, f.admin, trust);
  REQUIRE(trusted.ok());
  CHECK(trusted->origin() == "Trusted");
  CHECK(trusted->note() == "offline signer");
  CHECK(trusted->created_by() == "root");
  auto s = Snap(*ring);
  CHECK(s->generation != before);
  CHECK(s->Find(trusted->key_id()) != nullptr);
  CHECK_FALSE(s->signing->KeyId() == trusted->key_id());  // a trusted key never signs

  auto dup = ops::TrustKey(*f.db, *ring, f.admin, trust);
  CHECK(absl::IsAlreadyExists(dup.status()));
  CHECK_THAT(std::string(dup.status().message()), Catch::Contains("is trusted already"));

  v1::TrustKeyRequest bad;
  auto k = sign::SigningKey::Generate();
  REQUIRE(k.ok());
  bad.set_pem(k->PrivatePem());
  auto priv = ops::TrustKey(*f.db, *ring, f.admin, bad);
  CHECK(absl::IsInvalidArgument(priv.status()));
  CHECK_THAT(std::string(priv.status().message()), Catch::Contains("PEM: this is a private key"));
  bad.set_pem("hello");
  CHECK_THAT(std::string(ops::TrustKey(*f.db, *ring, f.admin, bad).status().message()),
             Catch::Contains("PEM: expected exactly one"));
  bad.set_pem(pem + pem);
  CHECK_THAT(std::string(ops::TrustKey(*f.db, *ring, f.admin, bad).status().message()),
             Catch::Contains("found 2 PEM block(s)"));
  // An EC P-256 public key: PEM, but not Ed25519.
  bad.set_pem(
      "-----BEGIN PUBLIC KEY-----\n"
      "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEIpZLJ8FcJi/dCUyiQ6HBu9uc9/Gu\n"
      "DpF1tWmj+4ZXUW1RAstPyFtQmq01TkDdMUjgNg7A5wIwwMUjRUTuOD17JQ==\n"
      "-----END PUBLIC KEY-----\n");
  auto ec = ops::TrustKey(*f.db, *ring, f.admin, bad);
  CHECK(absl::IsInvalidArgument(ec.status()));
  CHECK_THAT(std::string(ec.status().message()), Catch::Contains("PEM: not an Ed25519 public key"));

  v1::RevokeKeyRequest revoke;
  revoke.set_key_id(current);
  auto cur = ops::RevokeKey(*f.db, *ring, f.admin, revoke);
  CHECK(absl::IsFailedPrecondition(cur.status()));
  CHECK_THAT(std::string(cur.status().message()), Catch::Contains("the key this cubd signs with"));
  revoke.set_key_id("abc");
  CHECK_THAT(std::string(ops::RevokeKey(*f.db, *ring, f.admin, revoke).status().message()),
             Catch::Contains("KeyID: 'abc' is not a key id"));
  revoke.set_key_id("sha256:" + std::string(64, '0'));
  CHECK(absl::IsNotFound(ops::RevokeKey(*f.db, *ring, f.admin, revoke).status()));
  revoke.set_key_id(trusted->key_id());
  CHECK(absl::IsPermissionDenied(ops::RevokeKey(*f.db, *ring, f.alice, revoke).status()));
  REQUIRE(ops::RevokeKey(*f.db, *ring, f.admin, revoke).ok());
  auto twice = ops::RevokeKey(*f.db, *ring, f.admin, revoke);
  CHECK(absl::IsFailedPrecondition(twice.status()));
  CHECK_THAT(std::string(twice.status().message()), Catch::Contains("was revoked already"));
  auto again = ops::TrustKey(*f.db, *ring, f.admin, trust);
  CHECK(absl::IsFailedPrecondition(again.status()));
  CHECK_THAT(std::string(again.status().message()), Catch::Contains("never trusted again"));

  v1::ListKeysRequest all;
  CHECK(ops::ListKeys(*f.db, *ring, f.alice, all)->keys_size() == 1);
  all.set_all(true);
  auto listed = ops::ListKeys(*f.db, *ring, f.alice, all);
  REQUIRE(listed->keys_size() == 2);
  CHECK(listed->keys(1).revoked_by() == "root");
}

TEST_CASE("trusted_keys is append-only but for one revocation, whoever asks") {
  Fixture f;
  auto ring = f.Ring("a.pem");  // records its key: one row
  const std::string runtime = testing::RuntimeUrl(f.url);
  for (const std::string& as : {f.url, runtime}) {
    CHECK_THAT(Refusal(as, "UPDATE trusted_keys SET note = 'x'"),
               Catch::Contains("only its revocation may be recorded") ||
                   Catch::Contains("permission denied"));
    CHECK_THAT(Refusal(as, "DELETE FROM trusted_keys"),
               Catch::Contains("append-only") || Catch::Contains("permission denied"));
    CHECK_THAT(Refusal(as, "TRUNCATE trusted_keys"),
               Catch::Contains("append-only") || Catch::Contains("permission denied"));
  }
  CHECK_THAT(Refusal(f.url, "UPDATE trusted_keys SET pem = 'x'"),
             Catch::Contains("only its revocation may be recorded"));
  CHECK_THAT(Refusal(runtime, "UPDATE trusted_keys SET pem = 'x'"),
             Catch::Contains("permission denied"));
  CHECK_THAT(Refusal(runtime,
                     "INSERT INTO trusted_keys (key_id, pem, origin) VALUES ('x', 'p', 'Server')"),
             Catch::Contains("trusted_keys_key_id_check"));
  CHECK(Refusal(runtime,
                "UPDATE trusted_keys SET revoked_at = now(), revoked_by = 'root', "
                "revoke_reason = 'test'") == "");
  CHECK_THAT(Refusal(f.url, "UPDATE trusted_keys SET revoked_at = NULL, revoked_by = NULL"),
             Catch::Contains("it stays revoked"));
  CHECK_THAT(Refusal(runtime, "UPDATE trusted_keys SET revoke_reason = 'other'"),
             Catch::Contains("it stays revoked"));
}

TEST_CASE("without its key file the ring waits for it, refusing to sign, then signs") {
  Fixture f;
  auto ring = f.Ring("later.pem", /*create=*/false);
  auto s = Snap(*ring);
  CHECK_FALSE(s->signing.has_value());
  CHECK(s->trusted.empty());
  auto refused = sign::SigningKeyOf(*s);
  CHECK(absl::IsFailedPrecondition(refused.status()));
  CHECK_THAT(std::string(refused.status().message()),
             Catch::Contains("SigningKeyNotReady") && Catch::Contains(f.dir + "/later.pem"));

  // The Secret is mounted: written elsewhere, then moved into place, as a kubelet does.
  auto key = sign::SigningKey::LoadOrCreate(f.dir + "/made.pem");
  REQUIRE(key.ok());
  std::filesystem::rename(f.dir + "/made.pem", f.dir + "/later.pem");
  std::shared_ptr<const sign::KeySnapshot> now;
  for (int i = 0; i < 500; ++i) {  // the ring looks every 20 ms: up to 10 s on a busy machine
    now = Snap(*ring);
    if (now->signing) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  REQUIRE(now->signing.has_value());
  CHECK(now->signing->KeyId() == key->KeyId());
  CHECK(now->generation != s->generation);
  REQUIRE(now->trusted.size() == 1);
  CHECK(now->trusted[0].key_id == key->KeyId());
}

TEST_CASE("a key file that exists but does not load is an error at start") {
  Fixture f;
  { std::ofstream(f.dir + "/bad.pem") << "not a key"; }
  std::filesystem::permissions(
      f.dir + "/bad.pem", std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  ops::DbKeyRingOptions o;
  o.key_path = f.dir + "/bad.pem";
  o.create_key = false;
  auto ring = ops::DbKeyRing::Open(testing::RuntimeUrl(f.url), o);
  CHECK_FALSE(ring.ok());
  CHECK_THAT(std::string(ring.status().message()), Catch::Contains("bad.pem"));
}

}  // namespace
}  // namespace cub
