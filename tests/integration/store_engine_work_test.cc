// lib/store/engine_work against a real PostgreSQL: what an idle engine reads between steps.
#include <catch2/catch.hpp>

#include "harness/test_db.h"
#include "lib/store/engine_work.h"
#include "lib/store/migrations.h"
#include "lib/store/transaction.h"

namespace cub {
namespace {

TEST_CASE("store engine_work: an empty work list has nothing due, not something due now",
          "[store][db][engine]") {
  std::string url = testing::FreshDatabaseUrl("store_engine_work");
  REQUIRE(store::ApplyMigrations(url).ok());
  store::ConnectionPool db(testing::RuntimeUrl(url), 2);
  // An idle worker sleeps for as long as SecondsUntilDue says; 0 here made it spin.
  auto due = store::InReadTransaction(db, [](store::Tx& tx) { return store::SecondsUntilDue(tx); });
  REQUIRE(due.ok());
  CHECK_FALSE(due->has_value());
  auto listed = store::InReadTransaction(db, [](store::Tx& tx) { return store::DueWork(tx, 16); });
  REQUIRE(listed.ok());
  CHECK(listed->empty());
  auto backlog = store::InReadTransaction(db, [](store::Tx& tx) { return store::WorkBacklog(tx); });
  REQUIRE(backlog.ok());
  CHECK(*backlog == 0);
}

}  // namespace
}  // namespace cub
