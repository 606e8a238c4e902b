// A cubd killed mid-fetch or mid-commit leaves libgit2's lock files in its clone of a remote
// Git Target (refs/remotes/origin/<branch>.lock, refs/heads/<branch>.lock). The clone is only
// written under the Target's lock, so the next Deliver removes them instead of failing on them for
// ever: what the outbox's crash test (tests/e2e/delivery_crash_test.sh) ran into.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "lib/targets/provider.h"
#include "lib/util/sha256.h"

namespace cub::targets {
namespace {

namespace fs = std::filesystem;

Delivery MakeDelivery(int64_t num, const std::string& content) {
  Delivery d;
  d.release_id = "rel-dev-" + std::to_string(num);
  d.space = "dev";
  d.release_num = num;
  d.bundle_digest = "sha256:" + std::string(64, 'a');
  d.author = "alice";
  d.files = {{"app.yaml", content}};
  return d;
}

TEST_CASE("Git removes lock files a dead cubd left in its clone", "[targets]") {
  char tmpl[] = "/tmp/cub-stale-lock-test.XXXXXX";
  REQUIRE(mkdtemp(tmpl) != nullptr);
  const std::string tmp = tmpl;
  const std::string bare = tmp + "/remote.git";
  REQUIRE(std::system(("git init -q --bare '" + bare + "'").c_str()) == 0);
  const std::string url = "file://" + bare;
  ProviderEnv env;
  env.work_dir = tmp + "/work";
  auto p = MakeProvider("Git", {{"repository", url}}, env);
  REQUIRE(p.ok());
  auto first = (*p)->Deliver({MakeDelivery(1, "v: 1\n")});
  INFO(first.status().ToString());
  REQUIRE(first.ok());

  // As a SIGKILL during the fetch's ref update, or the clone's branch update, leaves them.
  const std::string clone = env.work_dir + "/git/" + Sha256Hex(url);
  REQUIRE(fs::is_directory(clone + "/refs"));
  fs::create_directories(clone + "/refs/remotes/origin");
  std::ofstream(clone + "/refs/remotes/origin/main.lock") << "";
  std::ofstream(clone + "/refs/heads/main.lock") << "";

  auto second = (*p)->Deliver({MakeDelivery(2, "v: 2\n")});
  INFO(second.status().ToString());
  REQUIRE(second.ok());
  CHECK_FALSE(second->new_commit.empty());
  CHECK_FALSE(fs::exists(clone + "/refs/remotes/origin/main.lock"));
  CHECK_FALSE(fs::exists(clone + "/refs/heads/main.lock"));
  std::error_code ec;
  fs::remove_all(tmp, ec);
}

}  // namespace
}  // namespace cub::targets
