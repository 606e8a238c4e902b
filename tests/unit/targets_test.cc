// Tests for release Targets (lib/targets): param validation, the Directory provider on a temp
// directory, and the Git provider on local repositories and on a bare repository reached through
// a file:// URL. Results are checked with the `git` command line, independently of libgit2.
// Everything lives under a fresh /tmp/cub-targets-test.XXXXXX, removed at the end of each case.

#include <stdlib.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "harness/scratch_dir.h"
#include "lib/targets/git_objects.h"
#include "lib/targets/provider.h"

namespace cub::targets {
namespace {

namespace fs = std::filesystem;

const std::string kDigest = "sha256:" + std::string(64, 'a');

struct TempDir : testing::ScratchDir {
  TempDir() : ScratchDir("cub-targets-test") {}
};

struct CmdResult {
  int status;
  std::string out;
};

// Runs a shell command, returning its exit status and stdout (stderr goes to the test's).
CmdResult Run(const std::string& cmd) {
  CmdResult r{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::string Git(const std::string& repo, const std::string& args) {
  CmdResult r = Run("git -C '" + repo + "' " + args);
  INFO("git " << args << " in " << repo);
  REQUIRE(r.status == 0);
  return r.out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void WriteFile(const std::string& path, const std::string& content) {
  std::ofstream(path, std::ios::binary) << content;
}

std::set<std::string> ListDir(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

Delivery MakeDelivery(const std::string& space, int64_t num, std::vector<BundleFile> files) {
  Delivery d;
  d.release_id = "rel-" + space + "-" + std::to_string(num);
  d.space = space;
  d.release_num = num;
  d.bundle_digest = kDigest;
  d.author = "alice";
  d.files = std::move(files);
  return d;
}

std::unique_ptr<Provider> Make(const std::string& provider,
                               const std::map<std::string, std::string>& params,
                               const std::string& work_dir) {
  ProviderEnv env;
  env.work_dir = work_dir;
  auto p = MakeProvider(provider, params, env);
  INFO(p.status().ToString());
  REQUIRE(p.ok());
  return std::move(*p);
}

ProviderEnv WorkDir(const std::string& work_dir) {
  ProviderEnv env;
  env.work_dir = work_dir;
  return env;
}

// One Release delivered alone, as the tests written before batches see it.
struct Delivered {
  std::string location;
  std::string commit;
  bool pushed = false;
};
absl::StatusOr<Delivered> Deliver1(Provider& p, const Delivery& d) {
  auto r = p.Deliver({d});
  if (!r.ok()) return r.status();
  return Delivered{r->releases.at(0).location, r->releases.at(0).commit, r->pushed};
}

Delivered DeliverOk(Provider& p, const Delivery& d) {
  auto r = Deliver1(p, d);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  return *r;
}

std::string MessageOf(const absl::Status& s) { return std::string(s.message()); }

// --- ValidateParams ---------------------------------------------------------------------------

TEST_CASE("ValidateParams accepts the documented params", "[targets]") {
  CHECK(ValidateParams("Directory", {{"path", "/srv/deploy"}}).ok());
  CHECK(ValidateParams("Git", {{"repository", "/srv/repo"}}).ok());
  CHECK(ValidateParams("Git", {{"repository", "file:///srv/repo.git"},
                               {"branch", "release/prod"},
                               {"path", "clusters/{space}/apps"}})
            .ok());
  CHECK(ValidateParams("Git", {{"repository", "https://example.com/org/repo.git"}}).ok());
  CHECK(ValidateParams("Git", {{"repository", "ssh://git@example.com/org/repo.git"}}).ok());
  CHECK(ValidateParams("Git", {{"repository", "git@example.com:org/repo.git"}}).ok());
  CHECK(ValidateParams("Git", {{"repository", "/r"}, {"path", "deploy"}}).ok());
  CHECK(ValidateParams("Git", {{"repository", "/r"}, {"path", "env-{space}-x"}}).ok());
}

TEST_CASE("ValidateParams names what is wrong", "[targets]") {
  auto bad = [](std::string_view provider, std::map<std::string, std::string> params) {
    absl::Status s = ValidateParams(provider, params);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    return MessageOf(s);
  };
  CHECK(bad("Git", {{"repo", "/r"}}) ==
        "Git target: unknown param 'repo'; known: repository, branch, path, kustomization, "
        "username, password-file, ssh-key-file, known-hosts-file, clusters, namespace, project");
  CHECK(bad("Git", {}) == "Git target: missing param 'repository'");
  CHECK(bad("Git", {{"repository", ""}}) == "Git target: missing param 'repository'");
  CHECK(bad("Directory", {}) == "Directory target: missing param 'path'");
  CHECK(bad("Directory", {{"path", "/x"}, {"branch", "main"}}) ==
        "Directory target: unknown param 'branch'; known: path");
  CHECK(bad("S3", {{"bucket", "b"}}) == "unknown target provider 'S3'; known: Directory, Git, OCI");
  CHECK(bad("git", {{"repository", "/r"}}).find("unknown target provider 'git'") == 0);

  CHECK(bad("Directory", {{"path", "relative/dir"}}).find("absolute") != std::string::npos);
  for (const char* repo : {"relative/repo", "http://example.com/r.git", "ftp://x/y", "git@host",
                           "git@:path", "user@host:path", "file://"}) {
    INFO(repo);
    CHECK(bad("Git", {{"repository", repo}}).find("param 'repository'") != std::string::npos);
  }
  for (const char* branch : {"", "a..b", "with space", "-x", "HEAD", "x.lock", "a/"}) {
    INFO(branch);
    CHECK(bad("Git", {{"repository", "/r"}, {"branch", branch}}).find("param 'branch'") !=
          std::string::npos);
  }
  for (const char* path : {"", "/abs/{space}", "../{space}", "a/../../{space}", "a//b", "./x", "x/",
                           ".git/{space}", "a/.GIT", "{space}/{name}", "{spa"}) {
    INFO(path);
    CHECK(bad("Git", {{"repository", "/r"}, {"path", path}}).find("param 'path'") !=
          std::string::npos);
  }
}

TEST_CASE("MakeProvider validates and needs an absolute work_dir for Git", "[targets]") {
  CHECK(MakeProvider("Nope", {}, WorkDir("/tmp")).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(MakeProvider("Git", {{"repository", "/r"}}, WorkDir("")).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(MakeProvider("Git", {{"repository", "/r"}}, WorkDir("rel")).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(MakeProvider("Directory", {{"path", "/x"}}, WorkDir("")).ok());
}

TEST_CASE("Deliver rejects malformed deliveries before writing", "[targets]") {
  TempDir tmp;
  auto p = Make("Directory", {{"path", tmp.path() + "/out"}}, "");
  auto code = [&](const Delivery& d) { return Deliver1(*p, d).status().code(); };
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  for (const char* name : {"", "a/b.yaml", "..", ".hidden.yaml", ".yaml", ".cub-files"}) {
    INFO(name);
    CHECK(code(MakeDelivery("prod", 1, {{name, "x"}})) == kInvalid);
  }
  CHECK(code(MakeDelivery("prod", 1, {{"a.yaml", "1"}, {"a.yaml", "2"}})) == kInvalid);
  for (const char* space : {"", ".", "..", "a/b", ".git"}) {
    INFO(space);
    CHECK(code(MakeDelivery(space, 1, {})) == kInvalid);
  }
  CHECK(code(MakeDelivery("prod", 0, {})) == kInvalid);
  Delivery d = MakeDelivery("prod", 1, {});
  d.bundle_digest = "sha256:ABC";
  CHECK(code(d) == kInvalid);
  d = MakeDelivery("prod", 1, {});
  d.author = "eve\nPublished-By: mallory";
  CHECK(code(d) == kInvalid);
  d = MakeDelivery("prod", 1, {});
  d.change_order = "base/x\r";
  CHECK(code(d) == kInvalid);
  d = MakeDelivery("prod", 1, {});
  d.author_email = "e@x\nCub-Release: forged";
  CHECK(code(d) == kInvalid);
  d = MakeDelivery("prod", 1, {});
  d.author_email = "a>b";
  CHECK(code(d) == kInvalid);
  for (const char* id : {"", "a b", "a\nb"}) {
    d = MakeDelivery("prod", 1, {});
    d.release_id = id;
    CHECK(code(d) == kInvalid);
  }
  CHECK_FALSE(fs::exists(tmp.path() + "/out/prod"));
}

// --- Directory --------------------------------------------------------------------------------

TEST_CASE("Directory writes the bundle and removes only the files its manifest lists",
          "[targets]") {
  TempDir tmp;
  const std::string root = tmp.path() + "/deploy/nested";  // created on demand
  auto p = Make("Directory", {{"path", root + "/"}}, "");

  Delivered r1 = DeliverOk(
      *p, MakeDelivery("prod", 1, {{"web.yaml", "kind: A\n"}, {"app.properties", "a=1\n"}}));
  const std::string dir = root + "/prod";
  CHECK(r1.location == dir);
  CHECK(r1.commit.empty());
  CHECK_FALSE(r1.pushed);
  CHECK(ListDir(dir) == std::set<std::string>{"web.yaml", "app.properties", ".cub-files"});
  CHECK(ReadFile(dir + "/web.yaml") == "kind: A\n");
  CHECK(ReadFile(dir + "/.cub-files") ==
        "# cub: files of space prod, release 1; cub removes a file listed here when a later "
        "release drops it\napp.properties\nweb.yaml\n");

  // Hand-written neighbours, a *.yaml one too: not in the manifest, so not cub's.
  WriteFile(dir + "/kustomization.yml", "resources: []\n");
  WriteFile(dir + "/README", "hello\n");
  WriteFile(dir + "/mine.yaml", "kind: Mine\n");
  fs::create_directory(dir + "/sub.yaml");
  WriteFile(dir + "/sub.yaml/inner.yaml", "x");

  Delivered r2 =
      DeliverOk(*p, MakeDelivery("prod", 2, {{"web.yaml", "kind: A2\n"}, {"cache.toml", ""}}));
  CHECK(r2.location == dir);
  CHECK(ListDir(dir) == std::set<std::string>{"web.yaml", "cache.toml", "kustomization.yml",
                                              "README", "mine.yaml", "sub.yaml", ".cub-files"});
  CHECK(ReadFile(dir + "/web.yaml") == "kind: A2\n");
  CHECK(ReadFile(dir + "/cache.toml").empty());
  CHECK(ReadFile(dir + "/README") == "hello\n");
  CHECK(fs::exists(dir + "/sub.yaml/inner.yaml"));

  // Another Space beside it is untouched; an empty bundle empties the Space of cub's files,
  // the manifest included.
  DeliverOk(*p, MakeDelivery("dev", 1, {{"web.yaml", "dev\n"}}));
  DeliverOk(*p, MakeDelivery("prod", 3, {}));
  CHECK(ListDir(dir) ==
        std::set<std::string>{"kustomization.yml", "README", "mine.yaml", "sub.yaml"});
  CHECK(ReadFile(root + "/dev/web.yaml") == "dev\n");
  // The Space's directory holds no lock or temporary files of ours.
  CHECK(ListDir(root + "/dev") == std::set<std::string>{"web.yaml", ".cub-files"});
}

TEST_CASE("Directory upgrades a directory without a manifest by the old *.yaml rule", "[targets]") {
  TempDir tmp;
  const std::string dir = tmp.path() + "/prod";
  fs::create_directories(dir);
  WriteFile(dir + "/old.yaml", "written by an older cub\n");
  WriteFile(dir + "/kustomization.yaml", "hand-written\n");
  WriteFile(dir + "/notes.txt", "mine\n");
  auto p = Make("Directory", {{"path", tmp.path()}}, "");
  DeliverOk(*p, MakeDelivery("prod", 7, {{"web.yaml", "w\n"}}));
  CHECK(ListDir(dir) ==
        std::set<std::string>{"web.yaml", "kustomization.yaml", "notes.txt", ".cub-files"});
  CHECK(ReadFile(dir + "/.cub-files").find("\nweb.yaml\n") != std::string::npos);
}

TEST_CASE("Directory delivers a batch: every Space, the last Release of a Space winning",
          "[targets]") {
  TempDir tmp;
  auto p = Make("Directory", {{"path", tmp.path()}}, "");
  auto r = p->Deliver({MakeDelivery("a", 1, {{"x.yaml", "a1\n"}}),
                       MakeDelivery("b", 1, {{"x.yaml", "b1\n"}}),
                       MakeDelivery("a", 2, {{"y.yaml", "a2\n"}})});
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  REQUIRE(r->releases.size() == 3);
  CHECK(r->releases[0].release_id == "rel-a-1");
  CHECK(r->releases[0].location == tmp.path() + "/a");
  CHECK(r->releases[1].location == tmp.path() + "/b");
  CHECK(r->releases[2].release_id == "rel-a-2");
  CHECK(r->new_commit.empty());
  CHECK(ListDir(tmp.path() + "/a") == std::set<std::string>{"y.yaml", ".cub-files"});
  CHECK(ReadFile(tmp.path() + "/b/x.yaml") == "b1\n");
  // An invalid Release anywhere in the batch: nothing is written.
  auto bad = p->Deliver({MakeDelivery("c", 1, {{"x.yaml", "c\n"}}), MakeDelivery("d", 0, {})});
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK_FALSE(fs::exists(tmp.path() + "/c"));
}

TEST_CASE("Directory fails clearly when the Space's path is a file", "[targets]") {
  TempDir tmp;
  WriteFile(tmp.path() + "/prod", "not a directory");
  auto p = Make("Directory", {{"path", tmp.path()}}, "");
  auto r = Deliver1(*p, MakeDelivery("prod", 1, {{"a.yaml", "x"}}));
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(MessageOf(r.status()).find(tmp.path() + "/prod") != std::string::npos);
}

// --- Git, local -------------------------------------------------------------------------------

std::string Manifest(const std::string& space, int64_t num, const std::string& names) {
  return "# cub: files of space " + space + ", release " + std::to_string(num) +
         "; cub removes a file listed here when a later release drops it\n" + names;
}

std::string CubRelease(const Delivery& d) {
  return "Cub-Release: " + d.release_id + " " + d.space + " " + std::to_string(d.release_num) +
         " " + d.bundle_digest + "\n";
}

TEST_CASE("Git initializes a local repository and commits each release", "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  auto p = Make("Git", {{"repository", repo}}, tmp.path() + "/work");

  Delivery d1 = MakeDelivery("prod", 1, {{"web.yaml", "kind: A\n"}, {"db.yaml", "kind: B\n"}});
  d1.change_order = "base/rollout-1";
  Delivered r1 = DeliverOk(*p, d1);
  CHECK(r1.location == "prod");
  CHECK(r1.commit.size() == 40);
  CHECK_FALSE(r1.pushed);
  CHECK(Git(repo, "rev-parse HEAD") == r1.commit + "\n");
  CHECK(Git(repo, "symbolic-ref HEAD") == "refs/heads/main\n");
  CHECK(Git(repo, "show HEAD:prod/web.yaml") == "kind: A\n");
  CHECK(Git(repo, "log -1 --format=%B") ==
        "Release 1 of prod\n\nChangeOrder: base/rollout-1\nBundle-Digest: " + kDigest +
            "\nPublished-By: alice\n" + CubRelease(d1) + "\n");
  // The publisher is the author; ProviderEnv's default committer.
  CHECK(Git(repo, "log -1 --format=%an%n%ae%n%cn%n%ce") ==
        "alice\ncubd@localhost\ncubd\ncubd@localhost\n");
  CHECK(Git(repo, "show HEAD:prod/.cub-files") == Manifest("prod", 1, "db.yaml\nweb.yaml\n"));
  CHECK(Git(repo, "status --porcelain").empty());
  CHECK(ReadFile(repo + "/prod/db.yaml") == "kind: B\n");

  // Release 2 changes web, drops db, adds cache.
  Delivered r2 = DeliverOk(
      *p, MakeDelivery("prod", 2, {{"web.yaml", "kind: A2\n"}, {"cache.yaml", "kind: C\n"}}));
  CHECK(r2.commit != r1.commit);
  CHECK(Git(repo, "log --format=%s") == "Release 2 of prod\nRelease 1 of prod\n");
  CHECK(Git(repo, "log -1 --format=%B").find("ChangeOrder:") == std::string::npos);
  CHECK(Git(repo, "show HEAD:prod/web.yaml") == "kind: A2\n");
  CHECK(Git(repo, "ls-tree -r --name-only HEAD") ==
        "prod/.cub-files\nprod/cache.yaml\nprod/web.yaml\n");
  CHECK(Git(repo, "status --porcelain").empty());
  CHECK_FALSE(fs::exists(repo + "/prod/db.yaml"));
  CHECK(ReadFile(repo + "/prod/web.yaml") == "kind: A2\n");
  std::string patch = Git(repo, "log -p -1");
  CHECK(patch.find("deleted file mode 100644") != std::string::npos);
  CHECK(patch.find("+kind: A2") != std::string::npos);

  // The same bundle as a new Release: a commit, whose only change is the manifest's number.
  Delivered r3 = DeliverOk(
      *p, MakeDelivery("prod", 3, {{"web.yaml", "kind: A2\n"}, {"cache.yaml", "kind: C\n"}}));
  CHECK(r3.commit != r2.commit);
  CHECK(Git(repo, "diff --name-only HEAD~1 HEAD") == "prod/.cub-files\n");
  CHECK(Git(repo, "status --porcelain").empty());

  // A batch that changes nothing (here: Release 3's content under another ID) makes no commit
  // and reports the tip.
  Delivery same =
      MakeDelivery("prod", 3, {{"web.yaml", "kind: A2\n"}, {"cache.yaml", "kind: C\n"}});
  same.release_id = "other-id";
  auto r4 = p->Deliver({same});
  REQUIRE(r4.ok());
  CHECK(r4->new_commit.empty());
  CHECK(r4->releases.at(0).commit == r3.commit);
  CHECK_FALSE(r4->releases.at(0).found_earlier);
  CHECK(Git(repo, "rev-list --count HEAD") == "3\n");
}

TEST_CASE("Git keeps other Spaces' and other files when delivering one Space", "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  REQUIRE(Run("git init -q -b trunk '" + repo + "'").status == 0);
  // A hand-made first commit: a README and a non-yaml file inside a Space's directory.
  fs::create_directories(repo + "/clusters/prod");
  WriteFile(repo + "/README.md", "deploy repo\n");
  WriteFile(repo + "/clusters/prod/kustomization.yml", "resources: []\n");
  Git(repo, "add -A");
  Git(repo, "-c user.name=t -c user.email=t@t commit -q -m init");

  auto p = Make("Git", {{"repository", repo}, {"branch", "trunk"}, {"path", "clusters/{space}"}},
                tmp.path() + "/work");
  Delivered a = DeliverOk(*p, MakeDelivery("prod", 1, {{"web.yaml", "prod\n"}}));
  CHECK(a.location == "clusters/prod");
  DeliverOk(*p, MakeDelivery("dev", 1, {{"web.yaml", "dev\n"}, {"db.yaml", "dev-db\n"}}));
  DeliverOk(*p, MakeDelivery("prod", 2, {{"api.yaml", "prod-api\n"}}));
  DeliverOk(*p, MakeDelivery("dev", 2, {{"web.yaml", "dev2\n"}}));

  CHECK(Git(repo, "ls-tree -r --name-only HEAD") ==
        "README.md\nclusters/dev/.cub-files\nclusters/dev/web.yaml\nclusters/prod/.cub-files\n"
        "clusters/prod/api.yaml\nclusters/prod/kustomization.yml\n");
  CHECK(Git(repo, "show HEAD:clusters/dev/web.yaml") == "dev2\n");
  CHECK(Git(repo, "log --format=%s") ==
        "Release 2 of dev\nRelease 2 of prod\nRelease 1 of dev\nRelease 1 of prod\ninit\n");
  CHECK(Git(repo, "status --porcelain").empty());
  CHECK(ListDir(repo + "/clusters/prod") ==
        std::set<std::string>{"api.yaml", "kustomization.yml", ".cub-files"});
}

TEST_CASE("Git commits to a branch that is not checked out, and to bare repositories",
          "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  REQUIRE(Run("git init -q -b main '" + repo + "'").status == 0);
  WriteFile(repo + "/notes.txt", "mine\n");
  auto p = Make("Git", {{"repository", repo}, {"branch", "deploy"}}, tmp.path() + "/work");
  DeliverOk(*p, MakeDelivery("prod", 1, {{"web.yaml", "x\n"}}));
  CHECK(Git(repo, "show deploy:prod/web.yaml") == "x\n");
  CHECK(Git(repo, "symbolic-ref HEAD") == "refs/heads/main\n");
  CHECK_FALSE(fs::exists(repo + "/prod"));  // the work tree is left alone
  CHECK(Git(repo, "status --porcelain") == "?? notes.txt\n");

  const std::string bare = tmp.path() + "/bare.git";
  REQUIRE(Run("git init -q --bare -b main '" + bare + "'").status == 0);
  auto b = Make("Git", {{"repository", bare}}, tmp.path() + "/work");
  DeliverOk(*b, MakeDelivery("prod", 1, {{"web.yaml", "y\n"}}));
  DeliverOk(*b, MakeDelivery("prod", 2, {{"web.yaml", "z\n"}}));
  CHECK(Git(bare, "log --format=%s main") == "Release 2 of prod\nRelease 1 of prod\n");
  CHECK(Git(bare, "show main:prod/web.yaml") == "z\n");
}

TEST_CASE("Git repairs the Space's files in the work tree and reports a locked branch",
          "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  auto p = Make("Git", {{"repository", repo}}, tmp.path() + "/work");
  DeliverOk(*p, MakeDelivery("prod", 1, {{"a.yaml", "a\n"}, {"b.yaml", "b\n"}}));
  // Hand edits to cub's files, and to a file of someone else's.
  WriteFile(repo + "/prod/a.yaml", "edited\n");
  fs::remove(repo + "/prod/b.yaml");
  WriteFile(repo + "/prod/notes.txt", "mine\n");
  DeliverOk(*p, MakeDelivery("prod", 2, {{"a.yaml", "a\n"}, {"b.yaml", "b\n"}}));
  CHECK(ReadFile(repo + "/prod/a.yaml") == "a\n");
  CHECK(ReadFile(repo + "/prod/b.yaml") == "b\n");
  CHECK(Git(repo, "status --porcelain") == "?? prod/notes.txt\n");

  // A leftover ref lock (a crashed git) blocks the branch: UNAVAILABLE naming the lock file.
  WriteFile(repo + "/.git/refs/heads/main.lock", "");
  auto r = Deliver1(*p, MakeDelivery("prod", 3, {{"a.yaml", "c\n"}}));
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(MessageOf(r.status()).find("main.lock") != std::string::npos);
  CHECK(Git(repo, "rev-list --count main") == "2\n");
  fs::remove(repo + "/.git/refs/heads/main.lock");
  DeliverOk(*p, MakeDelivery("prod", 3, {{"a.yaml", "c\n"}}));
  CHECK(Git(repo, "show main:prod/a.yaml") == "c\n");
}

TEST_CASE("Git refuses a non-empty directory that is not a repository", "[targets]") {
  TempDir tmp;
  WriteFile(tmp.path() + "/something", "x");
  auto p = Make("Git", {{"repository", tmp.path()}}, tmp.path() + "/work");
  auto r = Deliver1(*p, MakeDelivery("prod", 1, {}));
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(MessageOf(r.status()).find(tmp.path()) != std::string::npos);
}

TEST_CASE("Concurrent Git deliveries to one repository are serialized", "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  const std::string work = tmp.path() + "/work";
  // Separate Provider objects, as separate Targets would be; one location.
  constexpr int kThreads = 4;
  constexpr int kEach = 3;
  std::vector<std::unique_ptr<Provider>> providers;
  for (int i = 0; i < kThreads; ++i) providers.push_back(Make("Git", {{"repository", repo}}, work));
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      for (int j = 0; j < kEach; ++j) {
        std::string space = "s" + std::to_string(i);
        auto r = Deliver1(
            *providers[i],
            MakeDelivery(space, j + 1, {{"u.yaml", space + "-" + std::to_string(j) + "\n"}}));
        if (!r.ok()) errors[i] = r.status().ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (const std::string& e : errors) CHECK(e.empty());
  CHECK(Git(repo, "rev-list --count HEAD") == std::to_string(kThreads * kEach) + "\n");
  for (int i = 0; i < kThreads; ++i) {
    std::string space = "s" + std::to_string(i);
    CHECK(Git(repo, "show HEAD:" + space + "/u.yaml") ==
          space + "-" + std::to_string(kEach - 1) + "\n");
  }
  CHECK(Git(repo, "status --porcelain").empty());
}

// --- Git, batches ------------------------------------------------------------------------------

TEST_CASE("Git delivers a batch as one commit naming every Release", "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo.git";
  REQUIRE(Run("git init -q --bare -b main '" + repo + "'").status == 0);
  ProviderEnv env = WorkDir(tmp.path() + "/work");
  env.committer_name = "cub server";
  env.committer_email = "cubd@example.com";
  auto made = MakeProvider("Git", {{"repository", repo}, {"path", "envs/{space}"}}, env);
  REQUIRE(made.ok());
  Provider& p = **made;

  std::vector<Delivery> batch;
  for (const char* space : {"eu", "us", "ap"}) {
    Delivery d = MakeDelivery(space, 4, {{"web.yaml", std::string(space) + "\n"}});
    d.change_order = "base/co-9";
    d.description = "Roll out co-9\n\nCub-Release: forged-id x 1 " + kDigest + "\n";
    d.author_email = "alice@example.com";
    d.published_at = 1700000000;
    batch.push_back(d);
  }
  auto r = p.Deliver(batch);
  INFO(r.status().ToString());
  REQUIRE(r.ok());
  CHECK(r->new_commit.size() == 40);
  CHECK_FALSE(r->pushed);
  REQUIRE(r->releases.size() == 3);
  for (size_t i = 0; i < 3; ++i) {
    CHECK(r->releases[i].release_id == batch[i].release_id);
    CHECK(r->releases[i].location == "envs/" + batch[i].space);
    CHECK(r->releases[i].commit == r->new_commit);
    CHECK_FALSE(r->releases[i].found_earlier);
  }
  CHECK(Git(repo, "rev-list --count main") == "1\n");
  CHECK(Git(repo, "log -1 --format=%B main") ==
        "Publish 3 releases of base/co-9\n\nRoll out co-9\n\nCub-Release: forged-id x 1 " +
            kDigest + "\n\nChangeOrder: base/co-9\nPublished-By: alice\n" + CubRelease(batch[0]) +
            CubRelease(batch[1]) + CubRelease(batch[2]) + "\n");
  CHECK(Git(repo, "log -1 --format=%an%n%ae%n%at%n%cn%n%ce main") ==
        "alice\nalice@example.com\n1700000000\ncub server\ncubd@example.com\n");
  // git itself reads the trailers of the last paragraph only: the description's is not one.
  CHECK(Git(repo, "log -1 '--format=%(trailers:key=Cub-Release,valueonly)' main") ==
        batch[0].release_id + " eu 4 " + kDigest + "\n" + batch[1].release_id + " us 4 " + kDigest +
            "\n" + batch[2].release_id + " ap 4 " + kDigest + "\n\n");
  CHECK(Git(repo, "ls-tree -r --name-only main") ==
        "envs/ap/.cub-files\nenvs/ap/web.yaml\nenvs/eu/.cub-files\nenvs/eu/web.yaml\n"
        "envs/us/.cub-files\nenvs/us/web.yaml\n");
  CHECK(Run("git -C '" + repo + "' fsck --strict --no-progress 2>&1").status == 0);
  // The objects went in as one pack.
  CHECK(Git(repo, "count-objects -v").find("\npacks: 1\n") != std::string::npos);
  // Nor does a Deliver take the description's line for a trailer.
  Delivery forged = MakeDelivery("x", 1, {{"web.yaml", "x\n"}});
  forged.release_id = "forged-id";
  auto f = p.Deliver({forged});
  REQUIRE(f.ok());
  CHECK_FALSE(f->releases[0].found_earlier);
  CHECK(f->releases[0].commit == f->new_commit);
  CHECK(Git(repo, "rev-list --count main") == "2\n");
}

TEST_CASE("Git finds Releases an earlier call committed and does not commit them again",
          "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  auto p = Make("Git", {{"repository", repo}}, tmp.path() + "/work");
  const int64_t now = static_cast<int64_t>(time(nullptr));
  Delivery a = MakeDelivery("a", 1, {{"x.yaml", "a\n"}});
  Delivery b = MakeDelivery("b", 1, {{"x.yaml", "b\n"}});
  a.published_at = b.published_at = now;
  auto first = p->Deliver({a, b});
  REQUIRE(first.ok());
  const std::string c1 = first->new_commit;

  // The same batch again (a retry after cubd died before recording it): found, no commit.
  auto again = p->Deliver({a, b});
  REQUIRE(again.ok());
  CHECK(again->new_commit.empty());
  for (const DeliveredRelease& r : again->releases) {
    CHECK(r.found_earlier);
    CHECK(r.commit == c1);
  }
  CHECK(Git(repo, "rev-list --count HEAD") == "1\n");
  // Such a retry still repairs the work tree at cub's files (here: a hand edit).
  WriteFile(repo + "/a/x.yaml", "edited\n");
  REQUIRE(p->Deliver({a}).ok());
  CHECK(ReadFile(repo + "/a/x.yaml") == "a\n");
  CHECK(Git(repo, "status --porcelain").empty());

  // Part of it found: the rest is committed, and only the rest is named.
  Delivery c = MakeDelivery("c", 1, {{"x.yaml", "c\n"}});
  c.published_at = now;
  auto part = p->Deliver({a, c});
  REQUIRE(part.ok());
  CHECK(part->releases[0].found_earlier);
  CHECK(part->releases[0].commit == c1);
  CHECK_FALSE(part->releases[1].found_earlier);
  CHECK(part->releases[1].commit == part->new_commit);
  CHECK(Git(repo, "log -1 --format=%B") == "Release 1 of c\n\nBundle-Digest: " + kDigest +
                                               "\nPublished-By: alice\n" + CubRelease(c) + "\n");
  CHECK(Git(repo, "ls-tree -r --name-only HEAD") ==
        "a/.cub-files\na/x.yaml\nb/.cub-files\nb/x.yaml\nc/.cub-files\nc/x.yaml\n");

  // Commits older than published_at less an hour are not searched: Release a, claimed to be
  // published in two hours, is not found; its files are already there, so still no commit.
  Delivery late = a;
  late.published_at = now + 7200;
  auto not_found = p->Deliver({late});
  REQUIRE(not_found.ok());
  CHECK_FALSE(not_found->releases[0].found_earlier);
  CHECK(not_found->new_commit.empty());
  CHECK(not_found->releases[0].commit == part->new_commit);
  CHECK(Git(repo, "rev-list --count HEAD") == "2\n");
}

TEST_CASE("Git batch: the last Release of a Space wins; an empty bundle leaves no directory",
          "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  auto p = Make("Git", {{"repository", repo}}, tmp.path() + "/work");
  auto r = p->Deliver({MakeDelivery("a", 1, {{"x.yaml", "1\n"}, {"gone.yaml", "g\n"}}),
                       MakeDelivery("a", 2, {{"x.yaml", "2\n"}}),
                       MakeDelivery("b", 1, {{"x.yaml", "b\n"}})});
  REQUIRE(r.ok());
  CHECK(Git(repo, "log -1 --format=%s") == "Publish 3 releases\n");
  CHECK(Git(repo, "ls-tree -r --name-only HEAD") ==
        "a/.cub-files\na/x.yaml\nb/.cub-files\nb/x.yaml\n");
  CHECK(Git(repo, "show HEAD:a/x.yaml") == "2\n");
  CHECK(Git(repo, "show HEAD:a/.cub-files") == Manifest("a", 2, "x.yaml\n"));

  DeliverOk(*p, MakeDelivery("a", 3, {}));
  CHECK(Git(repo, "ls-tree -r --name-only HEAD") == "b/.cub-files\nb/x.yaml\n");
  CHECK(Git(repo, "ls-tree -d HEAD").find("\ta\n") == std::string::npos);
  CHECK(Git(repo, "status --porcelain").empty());
  CHECK_FALSE(fs::exists(repo + "/a/x.yaml"));
}

TEST_CASE("Git removes only files its manifest lists, and upgrades directories without one",
          "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo";
  REQUIRE(Run("git init -q -b main '" + repo + "'").status == 0);
  // What an older cub left: *.yaml files and no manifest; and a person's files beside them.
  fs::create_directories(repo + "/prod");
  WriteFile(repo + "/prod/old.yaml", "from an older cub\n");
  WriteFile(repo + "/prod/kustomization.yaml", "hand-written\n");
  WriteFile(repo + "/prod/notes.txt", "mine\n");
  Git(repo, "add -A");
  Git(repo, "-c user.name=t -c user.email=t@t commit -q -m init");

  auto p = Make("Git", {{"repository", repo}}, tmp.path() + "/work");
  DeliverOk(*p, MakeDelivery("prod", 1, {{"web.yaml", "w\n"}, {"app.properties", "a=1\n"}}));
  CHECK(Git(repo, "ls-tree -r --name-only HEAD") ==
        "prod/.cub-files\nprod/app.properties\nprod/kustomization.yaml\nprod/notes.txt\n"
        "prod/web.yaml\n");
  CHECK(Git(repo, "show HEAD:prod/.cub-files") ==
        Manifest("prod", 1, "app.properties\nweb.yaml\n"));

  // With a manifest, a person's *.yaml file is left alone; a dropped file of cub's goes.
  WriteFile(repo + "/prod/mine.yaml", "kind: Mine\n");
  Git(repo, "add -A");
  Git(repo, "-c user.name=t -c user.email=t@t commit -q -m mine");
  DeliverOk(*p, MakeDelivery("prod", 2, {{"web.yaml", "w2\n"}, {"db.env", "X=1\n"}}));
  CHECK(Git(repo, "ls-tree -r --name-only HEAD") ==
        "prod/.cub-files\nprod/db.env\nprod/kustomization.yaml\nprod/mine.yaml\nprod/notes.txt\n"
        "prod/web.yaml\n");
  CHECK(Git(repo, "status --porcelain").empty());

  // A name that is a directory on the branch cannot become a file.
  fs::create_directories(repo + "/prod/sub.yaml");
  WriteFile(repo + "/prod/sub.yaml/x", "x\n");
  Git(repo, "add -A");
  Git(repo, "-c user.name=t -c user.email=t@t commit -q -m sub");
  auto r = Deliver1(*p, MakeDelivery("prod", 3, {{"sub.yaml", "s\n"}}));
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(MessageOf(r.status()).find("prod/sub.yaml is a directory") != std::string::npos);
}

TEST_CASE("Git writes a kustomization.yaml per Space with kustomization=true", "[targets]") {
  TempDir tmp;
  const std::string repo = tmp.path() + "/repo.git";
  REQUIRE(Run("git init -q --bare -b main '" + repo + "'").status == 0);
  CHECK(ValidateParams("Git", {{"repository", repo}, {"kustomization", "yes"}}).code() ==
        absl::StatusCode::kInvalidArgument);
  auto p = Make("Git", {{"repository", repo}, {"kustomization", "true"}}, tmp.path() + "/work");
  DeliverOk(*p, MakeDelivery("prod", 1,
                             {{"web.yaml", "w\n"}, {"db.yaml", "d\n"}, {"app.toml", "t=1\n"}}));
  CHECK(Git(repo, "show main:prod/kustomization.yaml") ==
        "# Generated by cub for space prod, release 1; cub rewrites it at every release.\n"
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n"
        "- db.yaml\n- web.yaml\n");
  CHECK(Git(repo, "show main:prod/.cub-files") ==
        Manifest("prod", 1, "app.toml\ndb.yaml\nkustomization.yaml\nweb.yaml\n"));
  DeliverOk(*p, MakeDelivery("prod", 2, {{"app.toml", "t=2\n"}}));
  CHECK(Git(repo, "show main:prod/kustomization.yaml").find("resources: []\n") !=
        std::string::npos);

  // The bundle may not carry the name the Target generates.
  auto named = Deliver1(*p, MakeDelivery("prod", 3, {{"kustomization.yaml", "x\n"}}));
  CHECK(named.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(MessageOf(named.status()).find("kustomization.yaml") != std::string::npos);

  // A kustomization.yaml cub did not write is never overwritten.
  const std::string local = tmp.path() + "/local";
  REQUIRE(Run("git init -q -b main '" + local + "'").status == 0);
  fs::create_directories(local + "/dev");
  WriteFile(local + "/dev/kustomization.yaml", "hand-written\n");
  Git(local, "add -A");
  Git(local, "-c user.name=t -c user.email=t@t commit -q -m init");
  auto k = Make("Git", {{"repository", local}, {"kustomization", "true"}}, tmp.path() + "/work");
  auto refused = Deliver1(*k, MakeDelivery("dev", 1, {{"web.yaml", "w\n"}}));
  CHECK(refused.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(MessageOf(refused.status()).find("dev/kustomization.yaml") != std::string::npos);
  CHECK(Git(local, "rev-list --count HEAD") == "1\n");
}

TEST_CASE("Git objects are sound whichever sink writes them", "[targets]") {
  using internal::ObjectSink;
  for (ObjectSink sink : {ObjectSink::kPack, ObjectSink::kLooseSyncfs}) {
    INFO("sink " << static_cast<int>(sink));
    internal::SetDefaultObjectSink(sink);
    TempDir tmp;
    const std::string repo = tmp.path() + "/repo.git";
    REQUIRE(Run("git init -q --bare -b main '" + repo + "'").status == 0);
    auto p = Make("Git", {{"repository", repo}, {"path", "a/{space}/b"}}, tmp.path() + "/work");
    for (int round = 1; round <= 3; ++round) {
      std::vector<Delivery> batch;
      // Round 2 is big enough (1,250 blobs, 500 trees) for the pack to be deflated in runs.
      for (int s = 0; s < (round == 2 ? 250 : 20); ++s) {
        std::vector<BundleFile> files;
        for (int f = 0; f < 5; ++f) {
          // Round 3 repeats round 1's content: objects the repository already has.
          files.push_back({"f" + std::to_string(f) + ".yaml",
                           std::string(300 * (f + 1), 'x') + std::to_string(round % 2 + s) + "\n"});
        }
        batch.push_back(MakeDelivery("s" + std::to_string(s), round, std::move(files)));
      }
      auto r = p->Deliver(batch);
      INFO(r.status().ToString());
      REQUIRE(r.ok());
    }
    CHECK(Run("git -C '" + repo + "' fsck --strict --no-progress 2>&1").status == 0);
    CHECK(Git(repo, "rev-list --count main") == "3\n");
    CHECK(Git(repo, "show main:a/s7/b/f2.yaml") == std::string(900, 'x') + "8\n");
  }
  internal::SetDefaultObjectSink(ObjectSink::kPack);
}

// --- Git, remote ------------------------------------------------------------------------------

TEST_CASE("Git pushes to a file:// URL through a reused clone", "[targets]") {
  TempDir tmp;
  const std::string bare = tmp.path() + "/remote.git";
  const std::string work = tmp.path() + "/work";
  REQUIRE(Run("git init -q --bare -b main '" + bare + "'").status == 0);
  const std::string url = "file://" + bare;
  auto p = Make("Git", {{"repository", url}, {"path", "envs/{space}"}}, work);

  // Into an empty remote: the branch is created.
  Delivered r1 = DeliverOk(*p, MakeDelivery("prod", 1, {{"web.yaml", "v1\n"}, {"db.yaml", "d\n"}}));
  CHECK(r1.pushed);
  CHECK(r1.location == "envs/prod");
  CHECK(Git(bare, "log --format=%H%n%s") == r1.commit + "\nRelease 1 of prod\n");
  CHECK(Git(bare, "show main:envs/prod/web.yaml") == "v1\n");
  CHECK(fs::is_directory(work + "/git"));
  CHECK(std::distance(fs::directory_iterator(work + "/git"), fs::directory_iterator()) == 1);

  // Someone else pushes to the remote in between; the next release builds on their commit.
  const std::string other = tmp.path() + "/other";
  REQUIRE(Run("git clone -q '" + url + "' '" + other + "' 2>/dev/null").status == 0);
  WriteFile(other + "/README.md", "hi\n");
  Git(other, "add README.md");
  Git(other, "-c user.name=t -c user.email=t@t commit -q -m readme");
  Git(other, "push -q origin main");

  Delivered r2 = DeliverOk(*p, MakeDelivery("prod", 2, {{"web.yaml", "v2\n"}}));
  CHECK(r2.pushed);
  CHECK(Git(bare, "log --format=%s main") == "Release 2 of prod\nreadme\nRelease 1 of prod\n");
  CHECK(Git(bare, "ls-tree -r --name-only main") ==
        "README.md\nenvs/prod/.cub-files\nenvs/prod/web.yaml\n");
  CHECK(Git(bare, "rev-parse main") == r2.commit + "\n");
  // Still one clone.
  CHECK(std::distance(fs::directory_iterator(work + "/git"), fs::directory_iterator()) == 1);

  // A second provider on the same URL and work_dir (a restarted cubd) reuses the clone.
  auto again = Make("Git", {{"repository", url}, {"path", "envs/{space}"}}, work);
  DeliverOk(*again, MakeDelivery("prod", 3, {{"web.yaml", "v3\n"}}));
  CHECK(Git(bare, "show main:envs/prod/web.yaml") == "v3\n");
  CHECK(Git(bare, "rev-list --count main") == "4\n");
}

TEST_CASE("Git reports an unreachable remote as UNAVAILABLE", "[targets]") {
  TempDir tmp;
  auto p =
      Make("Git", {{"repository", "file://" + tmp.path() + "/missing.git"}}, tmp.path() + "/work");
  auto r = Deliver1(*p, MakeDelivery("prod", 1, {{"a.yaml", "x"}}));
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(MessageOf(r.status()).find("missing.git") != std::string::npos);
}

}  // namespace
}  // namespace cub::targets
