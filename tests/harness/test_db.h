// Fresh databases for integration tests.
//
// Every integration test works in a database of its own, created on the throwaway PostgreSQL
// that the CTest fixture `pg` starts (tests/harness/pg.sh), so tests may run in parallel and
// never see each other's rows. The server is named by CUB_TEST_PG_URL, a superuser URL to its
// `postgres` database; CTest sets it for every integration and e2e test.
//
// Databases are never dropped: the whole cluster is wiped by the next `pg.sh start`.

#ifndef CUB_TESTS_HARNESS_TEST_DB_H_
#define CUB_TESTS_HARNESS_TEST_DB_H_

#include <string>

namespace cub::testing {

// Creates a new, empty database on the server of CUB_TEST_PG_URL and returns a URL to it (the
// same URL with the database name replaced). The name is `prefix` (lowercased, reduced to
// [a-z0-9_], at most 30 characters) followed by the process id, a per-process counter and a
// random suffix, so it is unique across parallel test processes and repeated calls.
//
// Fails the current Catch2 test (throws) when CUB_TEST_PG_URL is unset or the database cannot
// be created. Thread-safe.
std::string FreshDatabaseUrl(const std::string& prefix);

// `url` (as FreshDatabaseUrl returns it: the superuser, who migrates and so owns the database)
// as the runtime login role cub_serve instead, which tests/harness/pg.sh creates in the
// cluster: the role cubd serves as (docs/operations.md, "Database roles").
std::string RuntimeUrl(const std::string& url);

}  // namespace cub::testing

#endif  // CUB_TESTS_HARNESS_TEST_DB_H_
