// server/listen_guard.h: which listen addresses count as loopback, and the refusal of the
// embedded database behind any other. (No database needed; it lives here for cub_server.)
#include "server/listen_guard.h"

#include <catch2/catch.hpp>

namespace cub::server {
namespace {

TEST_CASE("IsLoopbackListen", "[listen_guard]") {
  for (const char* local :
       {"127.0.0.1:7070", "127.1.2.3:0", "localhost:7070", "LOCALHOST:1", "[::1]:7070",
        "[::ffff:127.0.0.1]:7070", "unix:/run/cubd.sock", "unix-abstract:cubd"}) {
    CAPTURE(local);
    CHECK(IsLoopbackListen(local));
  }
  for (const char* open :
       {"0.0.0.0:7070", ":7070", "[::]:7070", "10.0.0.5:7070", "192.168.1.2:80", "[fe80::1]:7070",
        "cubd.example:7070", "localhost.evil.example:7070", "[::ffff:10.0.0.1]:1", "128.0.0.1:1"}) {
    CAPTURE(open);
    CHECK_FALSE(IsLoopbackListen(open));
  }
}

TEST_CASE("CheckEmbeddedDatabaseListen", "[listen_guard]") {
  CHECK(CheckEmbeddedDatabaseListen(true, false, {"127.0.0.1:7070", ""}).ok());
  CHECK(CheckEmbeddedDatabaseListen(false, false, {"0.0.0.0:7070"}).ok());  // external database
  CHECK(CheckEmbeddedDatabaseListen(true, true, {"0.0.0.0:7070"}).ok());    // allowed
  absl::Status s = CheckEmbeddedDatabaseListen(true, false, {"127.0.0.1:7070", "[::]:8080"});
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK(s.message().find("[::]:8080") != std::string::npos);
  CHECK(s.message().find("--database-url") != std::string::npos);
  CHECK(s.message().find("--allow-embedded-database") != std::string::npos);
}

}  // namespace
}  // namespace cub::server
