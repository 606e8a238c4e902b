// Tests for commit signing (lib/targets/commit_signer.cc): keys made by the real ssh-keygen,
// signatures checked by `ssh-keygen -Y verify` and, on commits the Git provider makes, by
// `git verify-commit` with gpg.format=ssh and an allowed-signers file. No part of the check
// uses cub's code.

#include "lib/targets/commit_signer.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>

#include "harness/scratch_dir.h"
#include "lib/targets/provider.h"

namespace cub::targets {
namespace {

namespace fs = std::filesystem;

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("cub-signer-test") {}
};

struct CmdResult {
  int status;
  std::string out;
};

CmdResult Run(const std::string& cmd) {
  CmdResult r{-1, ""};
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

void Write(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

std::string KeyGen(const std::string& dir, const std::string& args) {
  const std::string path = dir + "/key";
  fs::remove(path);
  fs::remove(path + ".pub");
  CmdResult r = Run("ssh-keygen -q " + args + " -C test -f " + path);
  REQUIRE(r.status == 0);
  return path;
}

TEST_CASE("CommitSigner signs in SSHSIG form that ssh-keygen -Y verify accepts") {
  TempDir tmp;
  const std::string key = KeyGen(tmp.path(), "-t ed25519 -N ''");
  absl::StatusOr<std::unique_ptr<CommitSigner>> signer = CommitSigner::FromFile(key);
  REQUIRE(signer.ok());
  std::ifstream pub(key + ".pub");
  std::string type, b64;
  pub >> type >> b64;
  CHECK((*signer)->PublicKey() == type + " " + b64);

  const std::string message = "tree 0123\nauthor a <a@b> 1 +0000\n\nhello\n";
  absl::StatusOr<std::string> sig = (*signer)->Sign(message);
  REQUIRE(sig.ok());
  CHECK(sig->rfind("-----BEGIN SSH SIGNATURE-----\n", 0) == 0);
  CHECK(sig->size() > 30);
  CHECK(sig->substr(sig->size() - 27) == "-----END SSH SIGNATURE-----");
  Write(tmp.path() + "/msg", message);
  Write(tmp.path() + "/msg.sig", *sig + "\n");
  Write(tmp.path() + "/allowed", "cub@test " + (*signer)->PublicKey() + "\n");
  const std::string verify = "ssh-keygen -Y verify -f " + tmp.path() +
                             "/allowed -I cub@test -n git -s " + tmp.path() + "/msg.sig < ";
  CmdResult r = Run(verify + tmp.path() + "/msg");
  INFO(r.out);
  CHECK(r.status == 0);
  CHECK_THAT(r.out, Catch::Contains("Good \"git\" signature for cub@test"));

  // Another message, or the right one under another namespace, does not verify.
  Write(tmp.path() + "/other", message + "x");
  CHECK(Run(verify + tmp.path() + "/other").status != 0);
  CmdResult ns = Run("ssh-keygen -Y verify -f " + tmp.path() + "/allowed -I cub@test -n file -s " +
                     tmp.path() + "/msg.sig < " + tmp.path() + "/msg");
  CHECK(ns.status != 0);
}

TEST_CASE("CommitSigner refuses keys it cannot use, naming the file") {
  TempDir tmp;
  absl::StatusOr<std::unique_ptr<CommitSigner>> s = CommitSigner::FromFile(tmp.path() + "/missing");
  CHECK(s.status().code() == absl::StatusCode::kNotFound);
  CHECK_THAT(std::string(s.status().message()), Catch::Contains(tmp.path() + "/missing"));

  std::string key = KeyGen(tmp.path(), "-t ed25519 -N ''");
  REQUIRE(chmod(key.c_str(), 0644) == 0);
  s = CommitSigner::FromFile(key);
  CHECK(s.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK_THAT(std::string(s.status().message()), Catch::Contains("readable by others (mode 0644)"));
  REQUIRE(chmod(key.c_str(), 0640) == 0);  // group-readable: a Secret mounted with fsGroup
  CHECK(CommitSigner::FromFile(key).ok());

  key = KeyGen(tmp.path(), "-t ed25519 -N 'passphrase'");
  s = CommitSigner::FromFile(key);
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.status().message()), Catch::Contains("encrypted"));

  key = KeyGen(tmp.path(), "-t ecdsa -N ''");
  s = CommitSigner::FromFile(key);
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.status().message()), Catch::Contains("key type ecdsa-sha2-nistp256"));

  Write(key, "not a key\n");
  s = CommitSigner::FromFile(key);
  CHECK(s.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_THAT(std::string(s.status().message()), Catch::Contains(key));
}

TEST_CASE("Git commits signed by the provider pass git verify-commit") {
  TempDir tmp;
  const std::string key = KeyGen(tmp.path(), "-t ed25519 -N ''");
  absl::StatusOr<std::unique_ptr<CommitSigner>> signer = CommitSigner::FromFile(key);
  REQUIRE(signer.ok());
  const std::string allowed = tmp.path() + "/allowed";
  Write(allowed, "cubd@example.com " + (*signer)->PublicKey() + "\n");

  ProviderEnv env;
  env.work_dir = tmp.path() + "/work";
  env.signer = *std::move(signer);
  env.committer_name = "cub delivery";
  env.committer_email = "cubd@example.com";
  const std::string repo = tmp.path() + "/repo";
  absl::StatusOr<std::unique_ptr<Provider>> p = MakeProvider("Git", {{"repository", repo}}, env);
  REQUIRE(p.ok());
  for (int n : {1, 2}) {
    Delivery d;
    d.release_id = "00000000-0000-0000-0000-00000000000" + std::to_string(n);
    d.space = "prod";
    d.release_num = n;
    d.bundle_digest = "sha256:" + std::string(64, 'a');
    d.author = "alice";
    d.published_at = 1700000000;
    d.files = {{"app.yaml", "kind: ConfigMap # " + std::to_string(n) + "\n"}};
    absl::StatusOr<DeliveryResult> r = (*p)->Deliver({d});
    REQUIRE(r.ok());
  }
  const std::string git =
      "git -C " + repo + " -c gpg.format=ssh -c gpg.ssh.allowedSignersFile=" + allowed + " ";
  for (const char* rev : {"HEAD", "HEAD~1"}) {
    CmdResult v = Run(git + "verify-commit " + rev);
    INFO(v.out);
    CHECK(v.status == 0);
    CHECK_THAT(v.out, Catch::Contains("Good \"git\" signature for cubd@example.com"));
  }
  CmdResult show = Run(git + "log -1 --format=%G?%n%cn%n%ce");
  CHECK(show.out == "G\ncub delivery\ncubd@example.com\n");
  // Another key's allowed-signers file does not vouch for it.
  fs::create_directory(tmp.path() + "/other");
  const std::string other = KeyGen(tmp.path() + "/other", "-t ed25519 -N ''");
  std::ifstream pub(other + ".pub");
  std::string type, b64;
  pub >> type >> b64;
  Write(allowed, "cubd@example.com " + type + " " + b64 + "\n");
  CHECK(Run(git + "verify-commit HEAD").status != 0);
}

}  // namespace
}  // namespace cub::targets
