#include "harness/test_db.h"

#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <pqxx/pqxx>
#include <random>
#include <string>

namespace cub::testing {
namespace {

std::string DatabaseName(const std::string& prefix) {
  static std::atomic<unsigned> counter{0};
  std::string name;
  for (char c : prefix) {
    if (name.size() >= 30) break;
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      name += static_cast<char>(std::tolower(u));
    } else {
      name += '_';
    }
  }
  if (name.empty() || !std::isalpha(static_cast<unsigned char>(name[0]))) name = "t" + name;
  thread_local std::mt19937_64 rng{std::random_device{}()};
  static const char kHex[] = "0123456789abcdef";
  std::string random;
  for (int i = 0; i < 8; ++i) random += kHex[rng() % 16];
  // At most 30 + 1 + 10 + 1 + 10 + 1 + 8 = 61 bytes: within PostgreSQL's 63-byte identifiers.
  return name + "_" + std::to_string(::getpid()) + "_" + std::to_string(counter++) + "_" + random;
}

// `url` with its database replaced by `db`. Handles URLs (postgresql://...[/db][?query]) and,
// as a fallback, keyword/value connection strings.
std::string WithDatabase(const std::string& url, const std::string& db) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url + " dbname=" + db;
  const auto query = url.find('?', scheme + 3);
  const std::string head = url.substr(0, query);
  const std::string tail = query == std::string::npos ? "" : url.substr(query);
  const auto slash = head.find('/', scheme + 3);
  const std::string authority = slash == std::string::npos ? head : head.substr(0, slash);
  return authority + "/" + db + tail;
}

}  // namespace

std::string FreshDatabaseUrl(const std::string& prefix) {
  const char* admin = std::getenv("CUB_TEST_PG_URL");
  if (admin == nullptr || *admin == '\0') {
    FAIL(
        "CUB_TEST_PG_URL is not set. Run integration tests through ctest (its `pg` fixture starts "
        "PostgreSQL), or start one with `bash tests/harness/pg.sh start /tmp/cubpg 31432` and "
        "export CUB_TEST_PG_URL=postgresql://cub_test@127.0.0.1:31432/postgres");
  }
  const std::string name = DatabaseName(prefix);
  try {
    pqxx::connection conn(admin);
    pqxx::nontransaction tx(conn);
    tx.exec0("CREATE DATABASE " + tx.quote_name(name));
  } catch (const std::exception& e) {
    FAIL("cannot create test database " << name << " on " << admin << ": " << e.what());
  }
  return WithDatabase(admin, name);
}

std::string RuntimeUrl(const std::string& url) {
  const auto scheme = url.find("://");
  if (scheme == std::string::npos) return url + " user=cub_serve";
  const auto at = url.find('@', scheme + 3);
  const auto slash = url.find('/', scheme + 3);
  const size_t host =
      at != std::string::npos && (slash == std::string::npos || at < slash) ? at + 1 : scheme + 3;
  return url.substr(0, scheme + 3) + "cub_serve@" + url.substr(host);
}

}  // namespace cub::testing
