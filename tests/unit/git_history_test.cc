// Tests for Provider::ReleaseAt on Git (lib/targets/git_history.cc): the revision forms a
// reporter sends, the trailer parser, and the history walk on real repositories made with the
// `git` command line (local ones, and a bare one reached by a file:// URL through cubd's clone),
// with commit messages in the format git.cc writes. Everything lives under a fresh
// /tmp/cub-git-history-test.XXXXXX, removed at the end of each case.

#include "lib/targets/git_history.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "absl/strings/str_cat.h"
#include "harness/scratch_dir.h"
#include "lib/targets/provider.h"
#include "lib/util/sha256.h"

namespace cub::targets {
namespace {

namespace fs = std::filesystem;

const std::string kDigest = "sha256:" + std::string(64, 'b');
const std::string kHex = "0123456789abcdef0123456789abcdef01234567";

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("cub-git-history-test") {}
};

// Runs a shell command; REQUIREs success and returns its stdout without the trailing newline.
std::string Sh(const std::string& cmd) {
  INFO(cmd);
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  int st = pclose(p);
  REQUIRE(WIFEXITED(st));
  REQUIRE(WEXITSTATUS(st) == 0);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

const char* kGitEnv =
    "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@x GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@x "
    "GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent ";

// A commit on `repo`'s checked-out branch with `message` (and a file change, so the history
// looks like cub's); returns its id.
std::string Commit(const std::string& repo, const std::string& message) {
  static int n = 0;
  std::ofstream(repo + "/f.txt") << ++n << "\n";
  std::ofstream(repo + "/msg.txt") << message;
  Sh(absl::StrCat(kGitEnv, "git -C '", repo, "' add f.txt && ", kGitEnv, "git -C '", repo,
                  "' commit -q --cleanup=verbatim -F msg.txt"));
  return Sh("git -C '" + repo + "' rev-parse HEAD");
}

std::string Trailer(const std::string& id, const std::string& space, int num) {
  return absl::StrCat("Cub-Release: ", id, " ", space, " ", num, " ", kDigest, "\n");
}

std::string NewRepo(const TempDir& tmp, const std::string& name) {
  const std::string repo = tmp.path() + "/" + name;
  Sh("git init -q -b main '" + repo + "'");
  return repo;
}

std::unique_ptr<Provider> GitTarget(const std::string& repository, const std::string& work_dir) {
  ProviderEnv env;
  env.work_dir = work_dir;
  auto p = MakeProvider("Git", {{"repository", repository}}, env);
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  return std::move(*p);
}

std::optional<std::string> At(Provider& p, const std::string& commit, const std::string& space,
                              const std::vector<Provider::Recorded>& recorded = {}) {
  auto r = p.ReleaseAt(commit, space, recorded);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

// --- the revision a reporter sends -------------------------------------------------------------

TEST_CASE("ParseDeployedCommit takes commit ids and Flux revisions", "[git_history]") {
  CHECK(*ParseDeployedCommit(kHex) == kHex);
  std::string upper = kHex;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  CHECK(*ParseDeployedCommit(upper) == kHex);
  CHECK(*ParseDeployedCommit("main@sha1:" + kHex) == kHex);
  CHECK(*ParseDeployedCommit("refs/heads/release/prod@sha1:" + kHex) == kHex);
  CHECK(*ParseDeployedCommit("sha1:" + kHex) == kHex);
  CHECK(*ParseDeployedCommit("main/" + kHex) == kHex);
}

TEST_CASE("ParseDeployedCommit refuses what names no full commit id", "[git_history]") {
  for (const std::string& bad :
       {std::string(""), kHex.substr(0, 12), kHex + "0", "main@sha1:" + kHex.substr(0, 39),
        "main@sha256:" + kHex, "mainsha1:" + kHex, "g" + kHex.substr(1), "main@" + kHex}) {
    INFO(bad);
    auto r = ParseDeployedCommit(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(std::string(r.status().message()).find("'" + bad + "'") != std::string::npos);
    CHECK(std::string(r.status().message()).find("'<branch>@sha1:") != std::string::npos);
  }
}

// --- the walk ----------------------------------------------------------------------------------

TEST_CASE("ReleaseAt finds each Space's Release from a batch commit and later ones",
          "[git_history]") {
  TempDir tmp;
  const std::string repo = NewRepo(tmp, "gitops");
  const std::string c1 =
      Commit(repo, absl::StrCat("Publish 2 releases of base/v1\n\nChangeOrder: base/v1\n"
                                "Published-By: alice\n",
                                Trailer("rel-dev-1", "dev", 1), Trailer("rel-prod-1", "prod", 1)));
  const std::string c2 =
      Commit(repo, absl::StrCat("Release 1 of qa\n\nBundle-Digest: ", kDigest,
                                "\nPublished-By: bob\n", Trailer("rel-qa-1", "qa", 1)));
  // Someone's own commit, whose description quotes a trailer: not a Release.
  const std::string c3 = Commit(
      repo, absl::StrCat("Add a README\n\n", Trailer("forged", "prod", 7), "\nSigned-off-by: x\n"));
  // A batch naming dev twice: the later Release wins.
  const std::string c4 =
      Commit(repo, absl::StrCat("Publish 2 releases\n\nPublished-By: alice\n",
                                Trailer("rel-dev-2", "dev", 2), Trailer("rel-dev-3", "dev", 3)));

  auto p = GitTarget(repo, tmp.path() + "/work");
  CHECK(At(*p, c1, "dev") == "rel-dev-1");
  CHECK(At(*p, c1, "prod") == "rel-prod-1");
  CHECK(At(*p, c1, "qa") == std::nullopt);
  CHECK(At(*p, c2, "qa") == "rel-qa-1");
  CHECK(At(*p, c2, "dev") == "rel-dev-1");  // a later commit of another Space
  CHECK(At(*p, c3, "prod") == "rel-prod-1");
  CHECK(At(*p, c4, "dev") == "rel-dev-3");
  CHECK(At(*p, c4, "prod") == "rel-prod-1");
  CHECK(At(*p, "main@sha1:" + c4, "qa") == "rel-qa-1");
  CHECK(At(*p, c4, "nope") == std::nullopt);
  // The repository was only read.
  CHECK(Sh("git -C '" + repo + "' rev-parse main") == c4);
  CHECK(Sh("git -C '" + repo + "' status --porcelain --untracked-files=no").empty());
}

TEST_CASE("ReleaseAt finds a Release that made no commit by the commit cubd recorded",
          "[git_history]") {
  TempDir tmp;
  const std::string repo = NewRepo(tmp, "gitops");
  const std::string c1 = Commit(repo, "Release 1 of dev\n\n" + Trailer("dev-1", "dev", 1));
  const std::string c2 = Commit(repo, "Release 1 of qa\n\n" + Trailer("qa-1", "qa", 1));
  // Release 2 of dev changed nothing: no commit, recorded at the tip c2. Then more commits.
  const std::string c3 = Commit(repo, "Release 2 of qa\n\n" + Trailer("qa-2", "qa", 2));
  std::string upper = c2;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::vector<Provider::Recorded> recorded = {
      {"dev-1", 1, c1}, {"dev-2", 2, upper}, {"stale", 1, c2}};
  auto p = GitTarget(repo, tmp.path() + "/work");
  CHECK(At(*p, c1, "dev", recorded) == "dev-1");
  CHECK(At(*p, c2, "dev", recorded) == "dev-2");
  CHECK(At(*p, c3, "dev", recorded).value_or("none") == "dev-2");
  CHECK(At(*p, c3, "dev") == "dev-1");  // without the record, the trailer is all there is
  // A trailer and a record on one commit: the higher number wins either way round.
  CHECK(At(*p, c3, "qa", {{"qa-1-again", 1, c3}}) == "qa-2");
  CHECK(At(*p, c3, "qa", {{"qa-3", 3, c3}}) == "qa-3");
}

TEST_CASE("ReleaseAt names an unknown commit and a missing repository", "[git_history]") {
  TempDir tmp;
  const std::string repo = NewRepo(tmp, "gitops");
  Commit(repo, "Release 1 of dev\n\n" + Trailer("r1", "dev", 1));
  auto p = GitTarget(repo, tmp.path() + "/work");
  auto r = p->ReleaseAt(kHex, "dev", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(r.status().message()).find("no commit " + kHex) != std::string::npos);
  CHECK(std::string(r.status().message()).find(repo) != std::string::npos);

  auto bad = p->ReleaseAt("main@sha1:123", "dev", {});
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);

  auto missing =
      GitTarget(tmp.path() + "/absent", tmp.path() + "/work")->ReleaseAt(kHex, "dev", {});
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(missing.status().message()).find("no repository") != std::string::npos);
  CHECK_FALSE(fs::exists(tmp.path() + "/absent"));
}

TEST_CASE("ReleaseAt takes the newest trailer across a merge", "[git_history]") {
  TempDir tmp;
  const std::string repo = NewRepo(tmp, "gitops");
  Commit(repo, "Release 1 of dev\n\n" + Trailer("r1", "dev", 1));
  Sh("git -C '" + repo + "' checkout -q -b side");
  Commit(repo, "Someone's change\n\nmore text\n");
  Sh("git -C '" + repo + "' checkout -q main");
  // Commit times are whole seconds: make the Release the newer side for sure.
  std::ofstream(repo + "/f2.txt") << "x\n";
  Sh(absl::StrCat(kGitEnv, "git -C '", repo,
                  "' add f2.txt && GIT_COMMITTER_DATE='1893456000 +0000' ", kGitEnv, "git -C '",
                  repo, "' commit -q -m 'Release 2 of dev' -m '", "Cub-Release: r2 dev 2 ", kDigest,
                  "'"));
  Sh(absl::StrCat("GIT_COMMITTER_DATE='1893542400 +0000' ", kGitEnv, "git -C '", repo,
                  "' merge -q --no-ff -m 'Merge side' side"));
  const std::string merge = Sh("git -C '" + repo + "' rev-parse HEAD");
  const std::string side = Sh("git -C '" + repo + "' rev-parse side");
  auto p = GitTarget(repo, tmp.path() + "/work");
  CHECK(At(*p, merge, "dev") == "r2");
  CHECK(At(*p, side, "dev") == "r1");
}

TEST_CASE("ReleaseAt reads at most kMaxHistoryWalk commits", "[git_history]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/big.git";
  Sh("git init -q --bare -b main '" + repo + "'");
  // fast-import: a Release, then kMaxHistoryWalk - 1 other commits, then one more.
  const std::string stream = tmp.path() + "/stream";
  {
    std::ofstream s(stream);
    auto commit = [&](int mark, const std::string& msg) {
      s << "commit refs/heads/main\nmark :" << mark << "\ncommitter t <t@x> " << 1700000000 + mark
        << " +0000\ndata " << msg.size() << "\n"
        << msg << "\n";
      if (mark > 1) s << "from :" << mark - 1 << "\n";
      s << "\n";
    };
    commit(1, "Release 1 of dev\n\n" + Trailer("r1", "dev", 1));
    for (int m = 2; m <= kMaxHistoryWalk + 1; ++m) commit(m, "Release of other\n\nx\n");
  }
  Sh("git -C '" + repo + "' fast-import --quiet < '" + stream + "'");
  auto p = GitTarget(repo, tmp.path() + "/work");
  // From the kMaxHistoryWalk-th commit, the Release is the last one read; from the next, beyond.
  const std::string within = Sh("git -C '" + repo + "' rev-parse main~1");
  const std::string beyond = Sh("git -C '" + repo + "' rev-parse main");
  CHECK(At(*p, within, "dev") == "r1");
  CHECK(At(*p, beyond, "dev") == std::nullopt);
}

TEST_CASE("ReleaseAt on a URL fetches into cubd's clone when the commit is missing",
          "[git_history]") {
  TempDir tmp;
  const std::string bare = tmp.path() + "/remote.git";
  Sh("git init -q --bare -b main '" + bare + "'");
  const std::string repo = NewRepo(tmp, "writer");
  Sh("git -C '" + repo + "' remote add origin '" + bare + "'");
  const std::string c1 = Commit(repo, "Release 1 of dev\n\n" + Trailer("r1", "dev", 1));
  Sh("git -C '" + repo + "' push -q origin main");
  const std::string work = tmp.path() + "/work";
  auto p = GitTarget("file://" + bare, work);
  // No clone yet (a fresh work_dir): made, then fetched.
  CHECK(At(*p, c1, "dev") == "r1");
  const std::string c2 = Commit(repo, "Release 1 of qa\n\n" + Trailer("q1", "qa", 1));
  Sh("git -C '" + repo + "' push -q origin main");
  CHECK(At(*p, "main@sha1:" + c2, "dev") == "r1");
  CHECK(At(*p, c2, "qa") == "q1");
  // The fetch went to a ref of its own, not to the ones Deliver uses.
  int clones = 0;
  for (const auto& e : fs::directory_iterator(work + "/git")) {
    ++clones;
    const std::string clone = e.path().string();
    CHECK(Sh("git -C '" + clone + "' rev-parse refs/cub/reported/main") == c2);
    CHECK(Sh("git -C '" + clone + "' for-each-ref refs/remotes refs/heads").empty());
    CHECK(Sh("cat '" + clone + "/cub-target-url'") == "file://" + bare);
  }
  CHECK(clones == 1);
  // A commit the remote's branch does not have.
  Sh("git -C '" + repo + "' checkout -q -b other");
  const std::string c3 = Commit(repo, "Release 2 of dev\n\n" + Trailer("r2", "dev", 2));
  Sh("git -C '" + repo + "' push -q origin other");
  auto r = p->ReleaseAt(c3, "dev", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(r.status().message()).find("after fetching branch main") != std::string::npos);
  // That fetch brought nothing: another unknown commit right after is not fetched for, so a
  // loop of made-up commits cannot keep the Target's lock and the network busy.
  auto again = p->ReleaseAt(std::string(40, 'e'), "dev", {});
  REQUIRE_FALSE(again.ok());
  CHECK(again.status().code() == absl::StatusCode::kNotFound);
  CHECK(std::string(again.status().message()).find("found nothing less than 10 s ago") !=
        std::string::npos);
}

TEST_CASE("ReleaseAt repairs a half-made clone and a dead report's lock file", "[git_history]") {
  TempDir tmp;
  const std::string bare = tmp.path() + "/remote.git";
  Sh("git init -q --bare -b main '" + bare + "'");
  const std::string repo = NewRepo(tmp, "writer");
  Sh("git -C '" + repo + "' remote add origin '" + bare + "'");
  const std::string c1 = Commit(repo, "Release 1 of dev\n\n" + Trailer("r1", "dev", 1));
  Sh("git -C '" + repo + "' push -q origin main");
  const std::string work = tmp.path() + "/work";
  const std::string url = "file://" + bare;
  const std::string clone = work + "/git/" + Sha256Hex(url);
  // A Deliver killed while making the clone: no cub-target-url yet.
  fs::create_directories(clone + "/objects");
  auto p = GitTarget(url, work);
  CHECK(At(*p, c1, "dev") == "r1");
  CHECK(Sh("cat '" + clone + "/cub-target-url'") == url);
  // A report killed mid-fetch left its ref's lock file.
  std::ofstream(clone + "/refs/cub/reported/main.lock") << "";
  const std::string c2 = Commit(repo, "Release 2 of dev\n\n" + Trailer("r2", "dev", 2));
  Sh("git -C '" + repo + "' push -q origin main");
  CHECK(At(*p, c2, "dev") == "r2");
  CHECK_FALSE(fs::exists(clone + "/refs/cub/reported/main.lock"));
  // The lock the fetch took is the one Deliver takes.
  CHECK(fs::exists(work + "/locks/" + Sha256Hex("git:" + url) + ".lock"));
}

TEST_CASE("ReleaseAt on an unreachable URL is UNAVAILABLE", "[git_history]") {
  TempDir tmp;
  auto p = GitTarget("file://" + tmp.path() + "/gone.git", tmp.path() + "/work");
  auto r = p->ReleaseAt(kHex, "dev", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(std::string(r.status().message()).find("cannot fetch branch main") != std::string::npos);
}

TEST_CASE("Directory Targets keep no history", "[git_history]") {
  TempDir tmp;
  ProviderEnv env;
  auto p = MakeProvider("Directory", {{"path", tmp.path()}}, env);
  REQUIRE(p.ok());
  auto r = (*p)->ReleaseAt(kHex, "dev", {});
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace cub::targets
