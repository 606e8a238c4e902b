// The store's error contract against a real PostgreSQL, for the ChangeOrder, ChangeSet,
// Attestation and promotion modules: a statement that fails (a constraint violation, a value
// PostgreSQL refuses) comes back from the store function as the mapped Status, never as an
// exception.
#include <catch2/catch.hpp>
#include <string>

#include "harness/test_db.h"
#include "lib/ops/change_sets.h"
#include "lib/ops/spaces.h"
#include "lib/ops/users.h"
#include "lib/store/attestations.h"
#include "lib/store/change_orders.h"
#include "lib/store/change_sets.h"
#include "lib/store/errors.h"
#include "lib/store/migrations.h"
#include "lib/store/pq.h"
#include "lib/store/promotion.h"
#include "lib/store/transaction.h"

namespace cub {
namespace {

constexpr char kNoSuchId[] = "00000000-0000-0000-0000-0000000000ff";

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store_contract");
  std::unique_ptr<store::ConnectionPool> db;
  ops::Principal admin;
  v1::Space space;
  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 4);
    auto created = ops::CreateUser(*db, store::NewUser{"admin", {}, true, false});
    REQUIRE(created.ok());
    auto p = ops::Authenticate(*db, created->token);
    REQUIRE(p.ok());
    admin = *p;
    v1::CreateSpaceRequest req;
    req.set_slug("app");
    auto s = ops::CreateSpace(*db, admin, req);
    REQUIRE(s.ok());
    space = *s;
  }
  // Runs `fn` in a transaction and returns the Status it returned (the transaction then rolls
  // back), or the transaction's own failure.
  template <typename Fn>
  absl::Status InTx(Fn fn) {
    absl::Status got;
    absl::Status tx = store::WithTransaction(*db, [&](store::Tx& tx) {
      got = fn(tx);
      return got;
    });
    return got.ok() ? tx : got;
  }
};

TEST_CASE("InsertAttestation returns a violated constraint as FAILED_PRECONDITION") {
  Fixture f;
  store::NewAttestation a;
  a.space_id = f.space.space_id();
  a.space_slug = f.space.slug();
  a.type = "review";
  a.result = "Pass";
  a.user_id = kNoSuchId;  // no such user: the foreign key refuses the row
  a.username = "ghost";
  absl::Status s = f.InTx([&](store::Tx& tx) { return store::InsertAttestation(tx, a).status(); });
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(s.message()), Catch::Contains("attestations"));

  a.user_id = f.admin.user_id;
  a.result = "Maybe";  // the CHECK on result refuses it
  s = f.InTx([&](store::Tx& tx) { return store::InsertAttestation(tx, a).status(); });
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);

  a.result = "Pass";
  absl::StatusOr<v1::Attestation> stored;
  s = f.InTx([&](store::Tx& tx) {
    stored = store::InsertAttestation(tx, a);
    return stored.status();
  });
  REQUIRE(s.ok());
  CHECK(stored->result() == "Pass");
  CHECK(stored->user_id() == f.admin.user_id);
}

TEST_CASE("InsertChangeSet of a slug the Space has is ALREADY_EXISTS") {
  Fixture f;
  v1::CreateChangeSetRequest req;
  req.set_space("app");
  req.set_slug("rollout");
  auto cs = ops::CreateChangeSet(*f.db, f.admin, req);
  REQUIRE(cs.ok());
  absl::Status s = f.InTx([&](store::Tx& tx) {
    return store::InsertChangeSet(tx, {f.space.space_id(), "rollout", "again", cs->start_tag_id(),
                                       cs->end_tag_id(), f.admin.user_id})
        .status();
  });
  CHECK(s.code() == absl::StatusCode::kAlreadyExists);
}

TEST_CASE("reads given a value PostgreSQL refuses return INVALID_ARGUMENT") {
  Fixture f;
  // "not-a-uuid" is cast to uuid by the statement, which PostgreSQL refuses.
  CHECK(f.InTx([&](store::Tx& tx) {
           return store::FindChangeOrder(tx, "not-a-uuid", "co").status();
         }).code() == absl::StatusCode::kInvalidArgument);
  CHECK(f.InTx([&](store::Tx& tx) {
           return store::FindChangeSet(tx, "not-a-uuid", "cs").status();
         }).code() == absl::StatusCode::kInvalidArgument);
  CHECK(f.InTx([&](store::Tx& tx) {
           return store::LoadPromotionUnits(tx, {"not-a-uuid"}, {}, {}).status();
         }).code() == absl::StatusCode::kInvalidArgument);
  CHECK(f.InTx([&](store::Tx& tx) {
           return store::MarkedSpaces(tx, "not-a-uuid", {f.space.space_id()}).status();
         }).code() == absl::StatusCode::kInvalidArgument);
  // And a read of what is not there is OK and empty.
  absl::StatusOr<std::optional<store::StoredChangeOrder>> none;
  CHECK(f.InTx([&](store::Tx& tx) {
           none = store::FindChangeOrder(tx, f.space.space_id(), "nothing");
           return none.status();
         }).ok());
  CHECK_FALSE(none->has_value());
}

TEST_CASE("WritePromotion returns a mark of a missing Tag as FAILED_PRECONDITION") {
  Fixture f;
  store::PromotionWrites w;
  w.marks.push_back({kNoSuchId, kNoSuchId, 1});
  absl::Status s = f.InTx([&](store::Tx& tx) { return store::WritePromotion(tx, w); });
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
}

TEST_CASE("WritePromotion leaves the planner's join settings as it found them") {
  Fixture f;
  store::PromotionWrites w;
  w.heads.push_back({kNoSuchId, 2});  // no such Unit or Link: the updates match nothing
  w.cursors.push_back({kNoSuchId, 2});
  auto joins = [](store::Tx& tx) {
    return store::Pq(tx)
        .exec1(
            "SELECT current_setting('enable_hashjoin') || '/' ||"
            " current_setting('enable_mergejoin')")[0]
        .as<std::string>();
  };
  absl::Status s = f.InTx([&](store::Tx& tx) {
    CHECK(store::WritePromotion(tx, w).ok());
    CHECK(joins(tx) == "on/on");
    // A write that fails while the joins are off (an ID PostgreSQL refuses, in the head
    // update), under a savepoint: its rollback undoes the setting with the rows.
    store::PromotionWrites bad = w;
    bad.heads.push_back({"not-a-uuid", 2});
    CHECK(tx.Savepoint(true, [&] { return store::WritePromotion(tx, bad); }).code() ==
          absl::StatusCode::kInvalidArgument);
    CHECK(joins(tx) == "on/on");
    // A session that turned hash joins off keeps them off.
    store::Pq(tx).exec0("SET enable_hashjoin = off");
    CHECK(store::WritePromotion(tx, w).ok());
    CHECK(joins(tx) == "off/on");
    store::Pq(tx).exec0("RESET enable_hashjoin");
    return absl::OkStatus();
  });
  CHECK(s.ok());
}

}  // namespace
}  // namespace cub
