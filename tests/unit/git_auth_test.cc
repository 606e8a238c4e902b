// Tests for how Git Targets log in (lib/targets/git_auth.cc, known_hosts.cc): the credential
// params' checks, http:// only to loopback, known_hosts parsing and matching (hashed lines made
// by the real ssh-keygen -H), and the credential files' checks before any network traffic.
// The logins themselves, against real servers, are in git_remote_test.cc and
// tests/e2e/git_remote_test.sh.

#include <git2.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/escaping.h"
#include "harness/scratch_dir.h"
#include "lib/targets/internal.h"
#include "lib/targets/known_hosts.h"
#include "lib/targets/provider.h"

namespace cub::targets::internal {
namespace {

namespace fs = std::filesystem;

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("cub-git-auth-test") {}
};

void Write(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path, std::ios::trunc) << text;
  REQUIRE(chmod(path.c_str(), mode) == 0);
}

int Sh(const std::string& cmd) {
  int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string Message(const absl::Status& s) { return std::string(s.message()); }

absl::Status Validate(std::map<std::string, std::string> params) {
  return ValidateParams("Git", params);
}

TEST_CASE("Git credential params: plain file names, the right URL kind, pairs") {
  const std::string ssh = "ssh://git@example.com/org/repo.git";
  const std::string https = "https://example.com/org/repo.git";
  CHECK(Validate({{"repository", https}, {"password-file", "token"}}).ok());
  CHECK(Validate({{"repository", https}, {"username", "oauth2"}, {"password-file", "t"}}).ok());
  CHECK(Validate({{"repository", ssh}, {"ssh-key-file", "id"}, {"known-hosts-file", "kh"}}).ok());
  CHECK(Validate({{"repository", "git@example.com:org/repo.git"},
                  {"ssh-key-file", "id"},
                  {"known-hosts-file", "kh"}})
            .ok());

  for (const char* name : {"../etc/passwd", "/etc/shadow", "a/b", "..", ".", "", "a\nb"}) {
    absl::Status s = Validate({{"repository", https}, {"password-file", name}});
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK_THAT(Message(s), Catch::Contains("param 'password-file' must be a plain file name"));
  }
  absl::Status s = Validate({{"repository", ssh}, {"password-file", "t"}});
  CHECK_THAT(Message(s), Catch::Contains("'password-file' is for https:// repositories"));
  s = Validate({{"repository", https}, {"ssh-key-file", "id"}, {"known-hosts-file", "kh"}});
  CHECK_THAT(Message(s), Catch::Contains("'ssh-key-file' is for ssh://"));
  s = Validate({{"repository", ssh}, {"ssh-key-file", "id"}});
  CHECK_THAT(Message(s), Catch::Contains("'ssh-key-file' needs param 'known-hosts-file'"));
  s = Validate({{"repository", ssh}, {"known-hosts-file", "kh"}});
  CHECK_THAT(Message(s), Catch::Contains("'known-hosts-file' needs param 'ssh-key-file'"));
  s = Validate({{"repository", https}, {"username", "bob"}});
  CHECK_THAT(Message(s), Catch::Contains("'username' needs param 'password-file'"));
  s = Validate({{"repository", https}, {"username", "a:b"}, {"password-file", "t"}});
  CHECK_THAT(Message(s), Catch::Contains("param 'username' must be"));
  s = Validate({{"repository", "https://bob:hunter2@example.com/r.git"}});
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(Message(s), Catch::Contains("must not carry a password"));
  s = Validate({{"repository", https}, {"token", "x"}});
  CHECK_THAT(Message(s), Catch::Contains("unknown param 'token'"));
  CHECK_THAT(Message(s), Catch::Contains("password-file, ssh-key-file, known-hosts-file"));
}

TEST_CASE("http:// repositories only to a loopback address literal") {
  for (const char* ok : {"http://127.0.0.1/r.git", "http://127.0.0.1:8080/r.git",
                         "http://127.9.8.7:1/x", "http://[::1]:8080/r.git", "http://[::1]/r"}) {
    INFO(ok);
    CHECK(IsLoopbackHttpUrl(ok));
    CHECK(Validate({{"repository", ok}}).ok());
  }
  for (const char* bad :
       {"http://localhost/r.git", "http://10.0.0.1/r.git", "http://example.com/r.git",
        "http://127.1/r.git", "http://[::2]/r", "http://127.0.0.1.example.com/r",
        "http://127.0.0.1:80x/r", "http://[::1/r", "https://127.0.0.1/r"}) {
    INFO(bad);
    CHECK_FALSE(IsLoopbackHttpUrl(bad));
  }
  absl::Status s = Validate({{"repository", "http://example.com/r.git"}});
  CHECK_THAT(Message(s), Catch::Contains("http:// only to a loopback address"));
  CHECK(Validate({{"repository", "http://127.0.0.1:1/r.git"}, {"password-file", "t"}}).ok());
}

// A key blob of type `type` with body `body`, in SSH wire form.
std::string Blob(const std::string& type, const std::string& body) {
  auto str = [](const std::string& s) {
    std::string out;
    for (int shift : {24, 16, 8, 0}) out.push_back(static_cast<char>(s.size() >> shift));
    return out + s;
  };
  return str(type) + str(body);
}

std::string Line(const std::string& hosts, const std::string& blob) {
  return hosts + " ssh-ed25519 " + absl::Base64Escape(blob);
}

TEST_CASE("known_hosts: parsing and matching as OpenSSH does") {
  const std::string a = Blob("ssh-ed25519", std::string(32, 'a'));
  const std::string b = Blob("ssh-ed25519", std::string(32, 'b'));
  const std::string c = Blob("ssh-ed25519", std::string(32, 'c'));
  const std::string text = "# comment\n\n" + Line("git.example.com,10.1.2.3", a) + " a comment\n" +
                           Line("[127.0.0.1]:2222", b) + "\n" +
                           Line("*.corp.example,!evil.corp.example", c) + "\r\n" +
                           "garbage line\n" + "host ssh-ed25519 !!!notbase64\n" + "host ssh-rsa " +
                           absl::Base64Escape(a) + "\n" +  // type mismatch
                           "@cert-authority * " + Line("", a).substr(1) + "\n" +
                           "@revoked * ssh-ed25519 " + absl::Base64Escape(c) + "\n";
  std::vector<KnownHost> hosts = ParseKnownHosts(text);
  REQUIRE(hosts.size() == 4);
  CHECK(hosts[3].revoked);

  CHECK(KnownHostName("Git.Example.com", 22) == "git.example.com");
  CHECK(KnownHostName("127.0.0.1", 2222) == "[127.0.0.1]:2222");
  CHECK(KnownHostName("[::1]", 2222) == "[::1]:2222");

  CHECK(CheckHostKey(hosts, "git.example.com", a) == HostKeyCheck::kKnown);
  CHECK(CheckHostKey(hosts, "10.1.2.3", a) == HostKeyCheck::kKnown);
  CHECK(CheckHostKey(hosts, "git.example.com", b) == HostKeyCheck::kMismatch);
  CHECK(CheckHostKey(hosts, "[127.0.0.1]:2222", b) == HostKeyCheck::kKnown);
  // The port is part of the name: the same host on port 22 is not listed.
  CHECK(CheckHostKey(hosts, "127.0.0.1", b) == HostKeyCheck::kUnknown);
  CHECK(CheckHostKey(hosts, "other.example.com", a) == HostKeyCheck::kUnknown);
  // c is revoked everywhere, even where a wildcard line lists it.
  CHECK(CheckHostKey(hosts, "build.corp.example", c) == HostKeyCheck::kRevoked);
  CHECK(KnownHostMatches("*.corp.example,!evil.corp.example", "build.corp.example"));
  CHECK_FALSE(KnownHostMatches("*.corp.example,!evil.corp.example", "evil.corp.example"));
  CHECK(KnownHostMatches("git?.example.com", "git1.example.com"));
  CHECK_FALSE(KnownHostMatches("git?.example.com", "git12.example.com"));

  CHECK(KeyTypeOf(a) == "ssh-ed25519");
  CHECK(KeyFingerprint(a).rfind("SHA256:", 0) == 0);
  CHECK(KeyFingerprint(a).find('=') == std::string::npos);
}

TEST_CASE("known_hosts: lines hashed by ssh-keygen -H match their host") {
  TempDir tmp;
  const std::string file = tmp.path() + "/known_hosts";
  const std::string a = Blob("ssh-ed25519", std::string(32, 'a'));
  Write(file, Line("[127.0.0.1]:2222", a) + "\n" + Line("git.example.com", a) + "\n", 0600);
  REQUIRE(Sh("ssh-keygen -q -H -f " + file + " >/dev/null 2>&1") == 0);
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(text.find("|1|") != std::string::npos);
  REQUIRE(text.find("example") == std::string::npos);
  std::vector<KnownHost> hosts = ParseKnownHosts(text);
  REQUIRE(hosts.size() == 2);
  CHECK(CheckHostKey(hosts, "[127.0.0.1]:2222", a) == HostKeyCheck::kKnown);
  CHECK(CheckHostKey(hosts, "git.example.com", a) == HostKeyCheck::kKnown);
  CHECK(CheckHostKey(hosts, "127.0.0.1", a) == HostKeyCheck::kUnknown);
}

TEST_CASE("GitAuthOf resolves credential files inside the credentials directory") {
  ProviderEnv env;
  std::map<std::string, std::string> params = {
      {"repository", "ssh://deploy@git.example.com:2222/r.git"},
      {"ssh-key-file", "id"},
      {"known-hosts-file", "kh"}};
  absl::StatusOr<GitAuth> none = GitAuthOf(params, env);
  REQUIRE(none.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(Message(none.status()), Catch::Contains("without --git-credentials-dir"));
  env.credentials_dir = "/etc/cub/git/";
  absl::StatusOr<GitAuth> a = GitAuthOf(params, env);
  REQUIRE(a.ok());
  CHECK(a->ssh);
  CHECK(a->known_host_name == "[git.example.com]:2222");
  CHECK(a->ssh_key_file == "/etc/cub/git/id");
  CHECK(a->known_hosts_file == "/etc/cub/git/kh");
  a = GitAuthOf({{"repository", "git@git.example.com:org/r.git"}}, env);
  REQUIRE(a.ok());
  CHECK(a->known_host_name == "git.example.com");
  a = GitAuthOf({{"repository", "https://ci@example.com/r.git"}, {"password-file", "t"}}, env);
  REQUIRE(a.ok());
  CHECK_FALSE(a->ssh);
  CHECK(a->username == "ci");
  CHECK(a->password_file == "/etc/cub/git/t");
  a = GitAuthOf({{"repository", "https://example.com/r.git"}, {"password-file", "t"}}, env);
  CHECK(a->username == "x-access-token");
}

TEST_CASE("InstallRemoteAuth checks the credential files before any network traffic") {
  git_libgit2_init();
  TempDir tmp;
  ProviderEnv env;
  env.credentials_dir = tmp.path();
  git_remote_callbacks cb;
  git_remote_init_callbacks(&cb, GIT_REMOTE_CALLBACKS_VERSION);
  auto install = [&](std::map<std::string, std::string> params) {
    absl::StatusOr<GitAuth> a = GitAuthOf(params, env);
    REQUIRE(a.ok());
    return InstallRemoteAuth(*a, &cb).status();
  };
  const std::map<std::string, std::string> https = {{"repository", "https://example.com/r.git"},
                                                    {"password-file", "token"}};

  absl::Status s = install(https);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(Message(s), Catch::Contains("param 'password-file': " + tmp.path() + "/token"));
  CHECK_THAT(Message(s), Catch::Contains("No such file"));

  Write(tmp.path() + "/token", "s3cret\n", 0644);
  s = install(https);
  CHECK(s.code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(Message(s), Catch::Contains("readable by others (mode 0644)"));
  Write(tmp.path() + "/token", "\nsecond line\n", 0640);
  CHECK_THAT(Message(install(https)), Catch::Contains("the first line"));
  Write(tmp.path() + "/token", "s3cret\r\n", 0640);  // group-readable is fine
  CHECK(install(https).ok());
  CHECK(cb.credentials != nullptr);
  CHECK(cb.certificate_check != nullptr);

  const std::map<std::string, std::string> ssh = {{"repository", "ssh://git@127.0.0.1:2222/r"},
                                                  {"ssh-key-file", "id"},
                                                  {"known-hosts-file", "kh"}};
  Write(tmp.path() + "/id", "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n", 0600);
  Write(tmp.path() + "/kh", "# nothing\n", 0644);
  CHECK_THAT(Message(install(ssh)), Catch::Contains("no known_hosts line"));
  Write(tmp.path() + "/kh",
        Line("[127.0.0.1]:2222", Blob("ssh-ed25519", std::string(32, 'a'))) + "\n", 0664);
  CHECK_THAT(Message(install(ssh)), Catch::Contains("writable by others (mode 0664)"));
  REQUIRE(chmod((tmp.path() + "/kh").c_str(), 0644) == 0);  // not a secret: readable is fine
  CHECK(install(ssh).ok());
  Write(tmp.path() + "/id", "-----BEGIN OPENSSH PRIVATE KEY-----\nx\n", 0604);
  CHECK_THAT(Message(install(ssh)), Catch::Contains("param 'ssh-key-file'"));
}

}  // namespace
}  // namespace cub::targets::internal
