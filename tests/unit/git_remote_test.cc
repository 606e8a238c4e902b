// The Git provider logging in to real servers on loopback: tests/harness/git_http.mjs (basic
// auth in front of `git http-backend`) and tests/harness/sshd.sh (Debian's sshd on a free
// port). Pushes are checked with the `git` command line on the servers' bare repositories.
// Skipped (exit 77 for the case) when node or /usr/sbin/sshd is missing.

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>

#include "harness/scratch_dir.h"
#include "lib/targets/provider.h"

namespace cub::targets {
namespace {

namespace fs = std::filesystem;

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("cub-git-remote-test") {}
};

using CmdResult = testing::CommandResult;
CmdResult Run(const std::string& cmd) { return testing::RunCommand(cmd); }

void Write(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path, std::ios::trunc) << text;
  REQUIRE(chmod(path.c_str(), mode) == 0);
}

std::string Harness(const std::string& name) {
  const char* src = std::getenv("CUB_SOURCE_DIR");
  return std::string(src != nullptr ? src : ".") + "/tests/harness/" + name;
}

// A server process this test started, killed when the test ends.
struct Server {
  int pid = 0;
  int port = 0;
  ~Server() {
    if (pid > 0) kill(pid, SIGTERM);
  }
};

void StartHttp(const std::string& root, Server* s) {
  const std::string out = root + "/../http.out";
  CmdResult r = Run("node " + Harness("git_http.mjs") + " " + root + " alice s3cret >" + out +
                    " 2>&1 </dev/null & echo $!");
  REQUIRE(r.status == 0);
  s->pid = std::stoi(r.out);
  for (int i = 0; i < 100 && s->port == 0; ++i) {
    std::ifstream in(out);
    std::string word;
    if (in >> word >> s->port && word == "listening") break;
    s->port = 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  REQUIRE(s->port > 0);
}

Delivery MakeDelivery(int n) {
  Delivery d;
  d.release_id = "00000000-0000-0000-0000-0000000000" + std::to_string(10 + n);
  d.space = "prod";
  d.release_num = n;
  d.bundle_digest = "sha256:" + std::string(64, 'b');
  d.author = "alice";
  d.published_at = 1700000000;
  d.files = {{"app.yaml", "n: " + std::to_string(n) + "\n"}};
  return d;
}

absl::StatusOr<DeliveryResult> Deliver(const std::map<std::string, std::string>& params,
                                       const ProviderEnv& env, int n) {
  absl::StatusOr<std::unique_ptr<Provider>> p = MakeProvider("Git", params, env);
  if (!p.ok()) return p.status();
  return (*p)->Deliver({MakeDelivery(n)});
}

std::string Tip(const std::string& bare) {
  return Run("git --git-dir=" + bare + " rev-parse -q --verify refs/heads/main").out;
}

TEST_CASE("Git over HTTP with basic auth: password file, wrong password, none") {
  if (Run("command -v node >/dev/null").status != 0) {
    WARN("node is missing: skipped");
    return;
  }
  TempDir tmp;
  const std::string root = tmp.path() + "/repos", creds = tmp.path() + "/creds";
  fs::create_directories(root);
  fs::create_directories(creds);
  REQUIRE(Run("git init -q --bare " + root + "/r.git").status == 0);
  Server http;
  StartHttp(root, &http);
  ProviderEnv env;
  env.work_dir = tmp.path() + "/work";
  env.credentials_dir = creds;
  const std::string url = "http://127.0.0.1:" + std::to_string(http.port) + "/r.git";
  std::map<std::string, std::string> params = {
      {"repository", url}, {"username", "alice"}, {"password-file", "token"}};

  Write(creds + "/token", "s3cret\n", 0600);
  absl::StatusOr<DeliveryResult> r = Deliver(params, env, 1);
  REQUIRE(r.ok());
  CHECK(r->pushed);
  CHECK(Tip(root + "/r.git") == r->new_commit + "\n");
  r = Deliver(params, env, 2);  // fetches with the credentials first
  REQUIRE(r.ok());
  const std::string tip = Tip(root + "/r.git");
  CHECK(tip == r->new_commit + "\n");

  Write(creds + "/token", "wrong\n", 0600);
  r = Deliver(params, env, 3);
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("refused user 'alice' with the password in password-file " + creds +
                             "/token"));
  CHECK(Tip(root + "/r.git") == tip);

  r = Deliver({{"repository", url}}, env, 3);
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("asks for a login; the Target names no 'password-file'"));

  fs::remove(creds + "/token");
  r = Deliver(params, env, 3);
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("param 'password-file': " + creds + "/token: cannot open"));
  CHECK(Tip(root + "/r.git") == tip);
}

TEST_CASE("Git over SSH: key file and known_hosts; unknown and changed host keys refused") {
  if (access("/usr/sbin/sshd", X_OK) != 0) {
    WARN("/usr/sbin/sshd is missing: skipped");
    return;
  }
  TempDir tmp;
  const std::string sshdir = tmp.path() + "/sshd", creds = tmp.path() + "/creds";
  fs::create_directories(creds);
  CmdResult started = Run("bash " + Harness("sshd.sh") + " " + sshdir);
  REQUIRE(started.status == 0);
  Server sshd;
  std::istringstream(started.out) >> sshd.port >> sshd.pid;
  REQUIRE(sshd.pid > 0);
  const std::string bare = tmp.path() + "/r.git";
  REQUIRE(Run("git init -q --bare " + bare).status == 0);
  fs::copy_file(sshdir + "/user_ed25519", creds + "/id");
  fs::copy_file(sshdir + "/known_hosts", creds + "/known_hosts");
  ProviderEnv env;
  env.work_dir = tmp.path() + "/work";
  env.credentials_dir = creds;
  const std::string user = Run("id -un").out.substr(0, Run("id -un").out.size() - 1);
  const std::string host = "[127.0.0.1]:" + std::to_string(sshd.port);
  const std::string url =
      "ssh://" + user + "@127.0.0.1:" + std::to_string(sshd.port) + "/" + bare.substr(1);
  std::map<std::string, std::string> params = {
      {"repository", url}, {"ssh-key-file", "id"}, {"known-hosts-file", "known_hosts"}};

  absl::StatusOr<DeliveryResult> r = Deliver(params, env, 1);
  INFO(r.status().message());
  REQUIRE(r.ok());
  CHECK(r->pushed);
  CHECK(Tip(bare) == r->new_commit + "\n");
  r = Deliver(params, env, 2);
  REQUIRE(r.ok());
  const std::string tip = Tip(bare);
  CHECK(tip == r->new_commit + "\n");

  // The host listed with another key: changed (or impersonated).
  REQUIRE(Run("ssh-keygen -q -t ed25519 -N '' -f " + tmp.path() + "/other").status == 0);
  std::ifstream other(tmp.path() + "/other.pub");
  std::string type, b64;
  other >> type >> b64;
  Write(creds + "/known_hosts", host + " " + type + " " + b64 + "\n", 0644);
  r = Deliver(params, env, 3);
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("refusing the SSH server " + host + ": host key ssh-ed25519 SHA256:"));
  CHECK_THAT(std::string(r.status().message()), Catch::Contains("does not match the keys"));
  // Listed with keys of another type only: the message says to list them all.
  REQUIRE(Run("ssh-keygen -q -t ecdsa -N '' -f " + tmp.path() + "/ecdsa").status == 0);
  std::ifstream ecdsa(tmp.path() + "/ecdsa.pub");
  std::string etype, eb64;
  ecdsa >> etype >> eb64;
  Write(creds + "/known_hosts", host + " " + etype + " " + eb64 + "\n", 0644);
  r = Deliver(params, env, 3);
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("lists only ecdsa-sha2-nistp256 keys for it; list every host key"));
  // Only other hosts listed: unknown.
  Write(creds + "/known_hosts", "[127.0.0.1]:1 " + type + " " + b64 + "\n", 0644);
  r = Deliver(params, env, 3);
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("is unknown: known-hosts-file " + creds +
                             "/known_hosts has no line "
                             "for " +
                             host));
  // No known_hosts at all: nothing to check the host against.
  r = Deliver({{"repository", url}}, env, 3);
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(std::string(r.status().message()),
             Catch::Contains("the Target names no 'known-hosts-file'"));
  // A key the server does not know.
  fs::copy_file(sshdir + "/known_hosts", creds + "/known_hosts",
                fs::copy_options::overwrite_existing);
  fs::copy_file(tmp.path() + "/other", creds + "/id", fs::copy_options::overwrite_existing);
  r = Deliver(params, env, 3);
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK_THAT(
      std::string(r.status().message()),
      Catch::Contains("refused user '" + user + "' with the key in ssh-key-file " + creds + "/id"));
  CHECK(Tip(bare) == tip);
}

}  // namespace
}  // namespace cub::targets
