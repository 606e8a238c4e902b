// lib/store/deliveries against a real PostgreSQL: Releases start Pending, their delivery state
// only moves forward (the trigger of migrations/0021 refuses anything else, whoever asks),
// failures back off, a Target is claimed by one session at a time, and release numbers count
// per Space whatever the Target.
#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <set>
#include <thread>

#include "harness/test_db.h"
#include "lib/ops/spaces.h"
#include "lib/ops/users.h"
#include "lib/store/deliveries.h"
#include "lib/store/migrations.h"
#include "lib/store/releases.h"
#include "lib/util/status_macros.h"

namespace cub {
namespace {

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("store_dlv");
  std::unique_ptr<store::ConnectionPool> db;
  v1::Space space;
  v1::Target target, other;

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 4);
    auto admin = ops::CreateUser(*db, store::NewUser{"admin", {}, true, false});
    REQUIRE(admin.ok());
    auto p = ops::Authenticate(*db, admin->token);
    REQUIRE(p.ok());
    v1::CreateSpaceRequest req;
    req.set_slug("dev");
    auto s = ops::CreateSpace(*db, *p, req);
    REQUIRE(s.ok());
    space = *s;
    target = AddTarget("gitops");
    other = AddTarget("mirror");
  }

  v1::Target AddTarget(const std::string& slug) {
    auto t = store::InTransaction(*db, [&](store::Tx& tx) {
      return store::InsertTarget(tx, {space.space_id(), slug, "Directory", {{"path", "/x"}}});
    });
    REQUIRE(t.ok());
    return *t;
  }

  // Records the Space's next Release to `t` (rows only: no Unit, no signature); returns its ID.
  std::string Publish(const v1::Target& t) {
    auto id = store::InTransaction(*db, [&](store::Tx& tx) -> absl::StatusOr<std::string> {
      CUB_ASSIGN_OR_RETURN(int64_t num, store::LockNextReleaseNum(tx, space.space_id()));
      store::NewRelease r;
      r.space_id = space.space_id();
      r.space_slug = space.slug();
      r.target_id = t.target_id();
      r.target = "dev/" + t.slug();
      r.release_num = num;
      r.bundle_digest = "sha256:" + std::string(64, 'a');
      r.published_at = "2026-01-01T00:00:00Z";
      r.provenance = "{}";
      return store::InsertRelease(tx, r);
    });
    REQUIRE(id.ok());
    return *id;
  }

  v1::Release Release(const std::string& id) {
    auto r = store::InTransaction(*db, [&](store::Tx& tx) -> absl::StatusOr<v1::Release> {
      CUB_ASSIGN_OR_RETURN(auto found, store::FindReleaseByID(tx, id));
      if (!found) return absl::NotFoundError(id);
      return *found;
    });
    REQUIRE(r.ok());
    return *r;
  }

  std::vector<std::string> Due() {
    auto d = store::InTransaction(*db, [](store::Tx& tx) { return store::DueTargets(tx); });
    REQUIRE(d.ok());
    return d->target_ids;
  }

  absl::StatusOr<std::vector<store::FailedRow>> Fail(const std::string& id,
                                                     absl::Duration first = absl::Seconds(2)) {
    return store::InTransaction(*db, [&](store::Tx& tx) {
      return store::RecordDeliveryFailed(tx, {id}, "unreachable", first, absl::Minutes(5));
    });
  }

  absl::StatusOr<int> Deliver(const std::string& id, const std::string& commit) {
    return store::InTransaction(*db, [&](store::Tx& tx) {
      return store::RecordDelivered(tx, {{id, "/deploy/dev", commit}});
    });
  }

  // Runs `sql` as the database's owner (a superuser): the trigger refuses it all the same.
  std::string OwnerRefusal(const std::string& sql) {
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
};

TEST_CASE("store deliveries: Pending, Failed with backoff, then Delivered for good",
          "[store][db]") {
  Fixture f;
  const std::string id = f.Publish(f.target);
  v1::Release r = f.Release(id);
  CHECK(r.delivery_state() == "Pending");
  CHECK(r.delivery_attempts() == 0);
  CHECK(f.Due() == std::vector<std::string>{f.target.target_id()});

  auto failed = f.Fail(id);
  REQUIRE(failed.ok());
  REQUIRE(failed->size() == 1);
  CHECK((*failed)[0].attempts == 1);
  r = f.Release(id);
  CHECK(r.delivery_state() == "Failed");
  CHECK(r.delivery_error() == "unreachable");
  CHECK_FALSE(r.next_delivery_at().empty());
  // Backed off: not due now, and not handed out to a pass that asks for due Releases only.
  CHECK(f.Due().empty());
  auto due_only = store::InTransaction(*f.db, [&](store::Tx& tx) {
    return store::UndeliveredReleases(tx, f.target.target_id(), 10, true);
  });
  REQUIRE(due_only.ok());
  CHECK(due_only->empty());
  auto all = store::InTransaction(*f.db, [&](store::Tx& tx) {
    return store::UndeliveredReleases(tx, f.target.target_id(), 10, false);
  });
  REQUIRE(all.ok());
  REQUIRE(all->size() == 1);
  CHECK((*all)[0].release.release_id() == id);

  // With no backoff it is due again, and a second failure counts a second attempt.
  REQUIRE(f.Fail(id, absl::ZeroDuration()).ok());
  CHECK(f.Release(id).delivery_attempts() == 2);
  CHECK(f.Due() == std::vector<std::string>{f.target.target_id()});

  auto delivered = f.Deliver(id, "abc");
  REQUIRE(delivered.ok());
  CHECK(*delivered == 1);
  r = f.Release(id);
  CHECK(r.delivery_state() == "Delivered");
  CHECK(r.commit() == "abc");
  CHECK(r.delivery_error().empty());
  CHECK_FALSE(r.delivered_at().empty());
  CHECK(f.Due().empty());

  // Delivered is final: recording it again (another cubd) or failing it changes nothing.
  auto again = f.Deliver(id, "def");
  REQUIRE(again.ok());
  CHECK(*again == 0);
  auto late_failure = f.Fail(id);
  REQUIRE(late_failure.ok());
  CHECK(late_failure->empty());
  CHECK(f.Release(id).commit() == "abc");
  CHECK(f.Release(id).delivery_state() == "Delivered");
}

TEST_CASE("store deliveries: the trigger lets the delivery state move only forward",
          "[store][db]") {
  Fixture f;
  const std::string pending = f.Publish(f.target);
  const std::string failed = f.Publish(f.target);
  const std::string delivered = f.Publish(f.target);
  REQUIRE(f.Fail(failed).ok());
  REQUIRE(f.Deliver(delivered, "abc").ok());
  auto update = [&](const std::string& set, const std::string& id) {
    return f.OwnerRefusal("UPDATE releases SET " + set + " WHERE id = '" + id + "'");
  };
  CHECK_THAT(update("delivery_state = 'Pending'", failed), Catch::Contains("back to Pending"));
  CHECK_THAT(update("delivery_state = 'Failed'", delivered), Catch::Contains("final"));
  CHECK_THAT(update("delivery_attempts = 0", failed), Catch::Contains("only grow"));
  CHECK_THAT(update("commit_id = 'x'", pending), Catch::Contains("when it is Delivered"));
  CHECK_THAT(update("commit_id = 'x'", delivered), Catch::Contains("written once"));
  CHECK_THAT(update("delivery_state = 'Delivered'", pending), Catch::Contains("without a time"));
  CHECK_THAT(update("release_num = 9", pending), Catch::Contains("append-only"));
  // What the functions do is allowed: Pending -> Delivered directly.
  REQUIRE(f.Deliver(pending, "def").ok());
  CHECK(f.Release(pending).delivery_state() == "Delivered");
}

// The trigger's cheap check (migrations/0023) compares whole rows: every column other than the
// live status and the delivery is refused by name, whatever its type, NULLs included; leaving a
// column as it is, or changing only the status, passes.
TEST_CASE("store deliveries: the trigger refuses a change of any other column, by name",
          "[store][db]") {
  Fixture f;
  const std::string id = f.Publish(f.target);
  const std::set<std::string> mutable_columns = {
      "sync_status",       "health_status",  "operation_state", "status_message",
      "status_at",         "location",       "commit_id",       "delivery_state",
      "delivery_attempts", "delivery_error", "delivered_at",    "next_delivery_at"};
  std::vector<std::pair<std::string, std::string>> columns;  // name, type
  {
    pqxx::connection c(f.url);
    pqxx::work w(c);
    for (const auto& row : w.exec(
             "SELECT column_name, data_type FROM information_schema.columns"
             " WHERE table_schema = 'public' AND table_name = 'releases' ORDER BY column_name")) {
      columns.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
    }
  }
  REQUIRE(columns.size() > mutable_columns.size());
  auto update = [&](const std::string& set) {
    return f.OwnerRefusal("UPDATE releases SET " + set + " WHERE id = '" + id + "'");
  };
  int checked = 0;
  for (const auto& [name, type] : columns) {
    if (mutable_columns.count(name)) continue;
    std::string changed;
    if (type == "text") {
      changed = name + " || 'x'";
    } else if (type == "uuid") {
      changed = "gen_random_uuid()";  // change_order_id and published_by are NULL here
    } else if (type == "bigint" || type == "integer") {
      changed = name + " + 1";
    } else if (type == "boolean") {
      changed = "NOT " + name;
    } else if (type == "timestamp with time zone") {
      changed = "coalesce(" + name + ", now()) + interval '1 second'";
    } else {
      FAIL("releases." << name << " has a type this test does not know: " << type);
    }
    INFO(name);
    CHECK_THAT(update(name + " = " + changed), Catch::Contains("UPDATE of " + name + " refused"));
    CHECK(update(name + " = " + name) == "");  // the same value again is no change
    ++checked;
  }
  CHECK(checked >= 14);
  CHECK(update("status_message = 'synced', sync_status = 'Synced', status_at = now()") == "");
  CHECK(update("change_order_id = NULL, published_by = NULL") == "");
}

TEST_CASE("store deliveries: release numbers count per Space, whatever the Target", "[store][db]") {
  Fixture f;
  const std::string a = f.Publish(f.target);
  const std::string b = f.Publish(f.other);
  const std::string c = f.Publish(f.target);
  CHECK(f.Release(a).release_num() == 1);
  CHECK(f.Release(b).release_num() == 2);
  CHECK(f.Release(c).release_num() == 3);
  // One number twice in a Space, even to another Target: the unique index, as ALREADY_EXISTS.
  store::NewRelease dup;
  dup.space_id = f.space.space_id();
  dup.target_id = f.other.target_id();
  dup.release_num = 3;
  dup.published_at = "2026-01-01T00:00:00Z";
  absl::Status taken = store::WithTransaction(
      *f.db, [&](store::Tx& tx) { return store::InsertRelease(tx, dup).status(); });
  CHECK(taken.code() == absl::StatusCode::kAlreadyExists);
  // The states of several at once, in the order asked.
  auto states = store::InTransaction(*f.db, [&](store::Tx& tx) {
    return store::DeliveryStates(tx, {c, a});
  });
  REQUIRE(states.ok());
  REQUIRE(states->size() == 2);
  CHECK((*states)[0].release_id == c);
  CHECK((*states)[1].target_id == f.target.target_id());
}

TEST_CASE("store deliveries: one session at a time holds a Target", "[store][db]") {
  Fixture f;
  const std::string url = f.db->url();
  auto first = store::TargetClaim::TryClaim(url, f.target.target_id());
  REQUIRE(first.ok());
  REQUIRE(*first != nullptr);
  CHECK((*first)->Alive());
  auto second = store::TargetClaim::TryClaim(url, f.target.target_id());
  REQUIRE(second.ok());
  CHECK(*second == nullptr);
  // Another Target is free meanwhile.
  auto other = store::TargetClaim::TryClaim(url, f.other.target_id());
  REQUIRE(other.ok());
  CHECK(*other != nullptr);
  first->reset();  // released, and its session back among the idle ones holds nothing
  auto third = store::TargetClaim::TryClaim(url, f.target.target_id());
  REQUIRE(third.ok());
  CHECK(*third != nullptr);
}

TEST_CASE("store deliveries: a claim can wait for the holder to finish", "[store][db]") {
  Fixture f;
  const std::string url = f.db->url();
  auto first = store::TargetClaim::TryClaim(url, f.target.target_id());
  REQUIRE(first.ok());
  REQUIRE(*first != nullptr);
  // Still held when the wait ends: no claim, and the session is fit to be used again.
  auto timed_out = store::TargetClaim::Claim(url, f.target.target_id(), absl::Milliseconds(50));
  REQUIRE(timed_out.ok());
  CHECK(*timed_out == nullptr);
  // Let go while another waits: the waiter gets it.
  std::thread releaser([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    first->reset();
  });
  auto waited = store::TargetClaim::Claim(url, f.target.target_id(), absl::Seconds(60));
  releaser.join();
  REQUIRE(waited.ok());
  REQUIRE(*waited != nullptr);
  CHECK((*waited)->Alive());
  // And while it holds the Target, nobody else does.
  auto other = store::TargetClaim::TryClaim(url, f.target.target_id());
  REQUIRE(other.ok());
  CHECK(*other == nullptr);
}

}  // namespace
}  // namespace cub
