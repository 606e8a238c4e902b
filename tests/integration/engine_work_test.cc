// The engine's work rows and its own connection against a real PostgreSQL: a Wake makes a row
// due and notifies listeners at commit; a worker's finish keeps a row woken meanwhile; a retry
// backs it off; the advisory lock is exclusive between sessions and goes with its session.
#include "lib/store/engine_work.h"

#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "absl/time/clock.h"
#include "harness/test_db.h"
#include "lib/store/engine_connection.h"
#include "lib/store/migrations.h"
#include "lib/store/pq.h"

namespace cub {
namespace {

struct Fixture {
  std::string url = testing::FreshDatabaseUrl("engine_work");
  std::unique_ptr<store::ConnectionPool> db;
  std::string co_id;

  Fixture() {
    REQUIRE(store::ApplyMigrations(url).ok());
    db = std::make_unique<store::ConnectionPool>(testing::RuntimeUrl(url), 2);
    co_id = NewChangeOrder("one");
  }

  // A bare ChangeOrder row (with the Space and Tags its foreign keys need).
  std::string NewChangeOrder(const std::string& slug) {
    std::string id;
    REQUIRE(store::WithTransaction(*db, [&](store::Tx& tx) -> absl::Status {
              return store::Guard([&]() -> absl::Status {
                auto& t = store::Pq(tx);
                std::string space =
                    t.exec_params1("INSERT INTO spaces (slug) VALUES ($1) RETURNING id::text",
                                   "base-" + slug)[0]
                        .as<std::string>();
                std::string tag = t.exec_params1(
                                       "INSERT INTO tags (space_id, slug) VALUES ($1::uuid, $2)"
                                       " RETURNING id::text",
                                       space, slug + "-co-start")[0]
                                      .as<std::string>();
                id = t.exec_params1(
                          "INSERT INTO change_orders (space_id, slug, start_tag_id, end_tag_id,"
                          " publish_tag_id) VALUES ($1::uuid, $2, $3::uuid, $3::uuid, $3::uuid)"
                          " RETURNING id::text",
                          space, slug, tag)[0]
                         .as<std::string>();
                return absl::OkStatus();
              });
            }).ok());
    return id;
  }

  std::vector<store::EngineWork> Due() {
    auto due = store::InReadTransaction(*db, [](store::Tx& tx) { return store::DueWork(tx, 10); });
    REQUIRE(due.ok());
    return *due;
  }

  void Wake(const std::string& id) {
    REQUIRE(store::WithTransaction(*db, [&](store::Tx& tx) { return store::Wake(tx, {id}); }).ok());
  }
};

TEST_CASE("an empty work list has nothing due, not something due now") {
  Fixture f;
  // An idle worker sleeps for as long as SecondsUntilDue says; 0 here made it spin.
  auto until =
      store::InReadTransaction(*f.db, [](store::Tx& tx) { return store::SecondsUntilDue(tx); });
  REQUIRE(until.ok());
  CHECK_FALSE(until->has_value());
  CHECK(f.Due().empty());
  auto backlog =
      store::InReadTransaction(*f.db, [](store::Tx& tx) { return store::WorkBacklog(tx); });
  REQUIRE(backlog.ok());
  CHECK(*backlog == 0);
}

TEST_CASE("a Wake makes the row due and notifies listeners at commit") {
  Fixture f;
  auto listener = store::EngineConnection::Open(testing::RuntimeUrl(f.url), store::kEngineChannel);
  REQUIRE(listener.ok());
  CHECK(f.Due().empty());
  CHECK_FALSE(*(*listener)->Wait(absl::Milliseconds(50)));
  f.Wake(f.co_id);
  auto woken = (*listener)->Wait(absl::Seconds(5));
  REQUIRE(woken.ok());
  CHECK(*woken);
  auto due = f.Due();
  REQUIRE(due.size() == 1);
  CHECK(due[0].change_order_id == f.co_id);
  CHECK(due[0].generation == 1);
  // A second Wake bumps the generation of the same row.
  f.Wake(f.co_id);
  due = f.Due();
  REQUIRE(due.size() == 1);
  CHECK(due[0].generation == 2);
}

TEST_CASE("finishing keeps a row woken during the step; a retry backs it off") {
  Fixture f;
  f.Wake(f.co_id);
  store::EngineWork read = f.Due().at(0);
  f.Wake(f.co_id);  // arrives while the step runs
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) {
            return store::FinishWork(tx, read);
          }).ok());
  REQUIRE(f.Due().size() == 1);  // not lost
  store::EngineWork current = f.Due().at(0);
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) {
            return store::RetryWork(tx, current, absl::Minutes(5), "Target unreachable", true);
          }).ok());
  CHECK(f.Due().empty());
  auto until =
      store::InReadTransaction(*f.db, [](store::Tx& tx) { return store::SecondsUntilDue(tx); });
  REQUIRE(until.ok());
  REQUIRE(until->has_value());
  CHECK(**until > 250);
  auto row =
      store::InReadTransaction(*f.db, [&](store::Tx& tx) { return store::ReadWork(tx, f.co_id); });
  REQUIRE(row.ok());
  REQUIRE(row->has_value());
  CHECK((*row)->attempts == 1);
  // A Wake clears the backoff.
  f.Wake(f.co_id);
  REQUIRE(f.Due().size() == 1);
  CHECK(f.Due()[0].attempts == 0);
  store::EngineWork last = f.Due().at(0);
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) {
            return store::FinishWork(tx, last);
          }).ok());
  CHECK(f.Due().empty());
}

TEST_CASE("an aborted ChangeOrder is not woken") {
  Fixture f;
  std::string other = f.NewChangeOrder("two");
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            return store::Guard([&]() -> absl::Status {
              store::Pq(tx).exec_params(
                  "UPDATE change_orders SET aborted_reason = 'bad' WHERE id = $1::uuid", other);
              return absl::OkStatus();
            });
          }).ok());
  f.Wake(other);
  CHECK(f.Due().empty());
}

TEST_CASE("the advisory lock is exclusive and goes with its session") {
  Fixture f;
  auto a = store::EngineConnection::Open(testing::RuntimeUrl(f.url), "");
  auto b = store::EngineConnection::Open(testing::RuntimeUrl(f.url), "");
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK((*a)->Alive());
  CHECK(*(*a)->TryLock(f.co_id));
  CHECK_FALSE(*(*b)->TryLock(f.co_id));
  REQUIRE((*a)->Unlock(f.co_id).ok());
  CHECK(*(*b)->TryLock(f.co_id));
  b->reset();  // the session ends: its locks are released once the server has ended it
  bool taken = false;
  for (int i = 0; i < 100 && !taken; ++i) {
    taken = *(*a)->TryLock(f.co_id);
    if (!taken) absl::SleepFor(absl::Milliseconds(50));
  }
  CHECK(taken);
}

TEST_CASE("a worker can tell it has lost the session holding its lock") {
  Fixture f;
  auto a = store::EngineConnection::Open(testing::RuntimeUrl(f.url), "");
  REQUIRE(a.ok());
  REQUIRE(*(*a)->TryLock(f.co_id));
  CHECK((*a)->Alive());
  // As a network failure or an idle timeout would: the server ends the session.
  REQUIRE(store::WithTransaction(*f.db, [&](store::Tx& tx) -> absl::Status {
            return store::Guard([&]() -> absl::Status {
              store::Pq(tx).exec(
                  "SELECT pg_terminate_backend(l.pid) FROM pg_locks l"
                  " WHERE l.locktype = 'advisory' AND l.classid = 1668637285"
                  " AND l.database = (SELECT oid FROM pg_database"
                  " WHERE datname = current_database())");
              return absl::OkStatus();
            });
          }).ok());
  bool alive = true;
  for (int i = 0; i < 100 && alive; ++i) {
    alive = (*a)->Alive();
    if (alive) absl::SleepFor(absl::Milliseconds(20));
  }
  CHECK_FALSE(alive);
}

}  // namespace
}  // namespace cub
