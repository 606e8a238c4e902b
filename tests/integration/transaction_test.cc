// InTransaction against a real PostgreSQL: the value returned is that of the attempt that
// committed, and a retry (here forced by a deferred trigger that fails the first COMMIT with a
// serialization failure) keeps nothing of the attempt that was rolled back.
#include "lib/store/pq.h"
#include "lib/store/transaction.h"

#include <catch2/catch.hpp>
#include <pqxx/pqxx>
#include <string>

#include "harness/test_db.h"

namespace cub {
namespace {

// A database whose table `t` fails the COMMIT of the transaction that makes the first insert
// ever (sequences are not transactional, so the count survives the rollback).
std::string DatabaseFailingFirstCommit() {
  std::string url = testing::FreshDatabaseUrl("transaction");
  pqxx::connection c(url);
  pqxx::work w(c);
  w.exec0(R"(
    CREATE TABLE t (v text);
    CREATE SEQUENCE commits_tried;
    CREATE FUNCTION fail_first() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF nextval('commits_tried') = 1 THEN
        RAISE EXCEPTION 'forced conflict' USING ERRCODE = 'serialization_failure';
      END IF;
      RETURN NULL;
    END $$;
    CREATE CONSTRAINT TRIGGER fail_first AFTER INSERT ON t DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION fail_first();
  )");
  w.commit();
  return url;
}

int Rows(store::ConnectionPool& db) {
  int n = -1;
  REQUIRE(store::WithReadTransaction(db, [&](store::Tx& tx) {
            n = store::Pq(tx).exec1("SELECT count(*) FROM t")[0].as<int>();
            return absl::OkStatus();
          }).ok());
  return n;
}

TEST_CASE("InTransaction returns the value of the attempt that committed") {
  store::ConnectionPool db(DatabaseFailingFirstCommit(), 2);
  int attempts = 0;
  absl::StatusOr<std::string> got =
      store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<std::string> {
        ++attempts;
        std::string mine = "attempt " + std::to_string(attempts);
        store::Pq(tx).exec_params0("INSERT INTO t VALUES ($1)", mine);
        return mine;
      });
  REQUIRE(got.ok());
  CHECK(attempts == 2);
  CHECK(*got == "attempt 2");
  CHECK(Rows(db) == 1);  // the first attempt's insert was rolled back
}

TEST_CASE("InTransaction keeps no value of a rolled-back attempt when the retry fails") {
  store::ConnectionPool db(DatabaseFailingFirstCommit(), 2);
  int attempts = 0;
  absl::StatusOr<int> got = store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<int> {
    ++attempts;
    if (attempts == 2) return absl::NotFoundError("unit 'web' not found");
    store::Pq(tx).exec0("INSERT INTO t VALUES ('first')");
    return 1;  // its COMMIT fails; this value must not be returned
  });
  CHECK(attempts == 2);
  CHECK(got.status().code() == absl::StatusCode::kNotFound);
  CHECK(got.status().message() == "unit 'web' not found");
  CHECK(Rows(db) == 0);
}

TEST_CASE("InTransaction gives up after WithTransaction's retries, with its status") {
  std::string url = testing::FreshDatabaseUrl("transaction");
  store::ConnectionPool db(url, 2);
  int attempts = 0;
  absl::StatusOr<int> got = store::InTransaction(db, [&](store::Tx&) -> absl::StatusOr<int> {
    ++attempts;
    throw pqxx::serialization_failure("could not serialize access");
  });
  CHECK(attempts == 4);
  CHECK(got.status().code() == absl::StatusCode::kAborted);
}

TEST_CASE("InReadTransaction reads in a read-only transaction") {
  store::ConnectionPool db(DatabaseFailingFirstCommit(), 2);
  absl::StatusOr<int> n = store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<int> {
    return store::Pq(tx).exec1("SELECT count(*) FROM t")[0].as<int>();
  });
  REQUIRE(n.ok());
  CHECK(*n == 0);
  absl::StatusOr<int> write =
      store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<int> {
        store::Pq(tx).exec0("INSERT INTO t VALUES ('x')");
        return 1;
      });
  CHECK_FALSE(write.ok());
}

}  // namespace
}  // namespace cub
