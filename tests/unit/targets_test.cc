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

#include "lib/targets/provider.h"

namespace cub::targets {
namespace {

namespace fs = std::filesystem;

const std::string kDigest = "sha256:" + std::string(64, 'a');

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/cub-targets-test.XXXXXX";
    REQUIRE(mkdtemp(tmpl) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
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
        "Git target: unknown param 'repo'; known: repository, branch, path, username, "
        "password-file, ssh-key-file, known-hosts-file");
  CHECK(bad("Git", {}) == "Git target: missing param 'repository'");
  CHECK(bad("Git", {{"repository", ""}}) == "Git target: missing param 'repository'");
  CHECK(bad("Directory", {}) == "Directory target: missing param 'path'");
  CHECK(bad("Directory", {{"path", "/x"}, {"branch", "main"}}) ==
        "Directory target: unknown param 'branch'; known: path");
  CHECK(bad("S3", {{"bucket", "b"}}) == "unknown target provider 'S3'; known: Directory, Git");
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
  for (const char* name : {"", "a/b.yaml", "..", ".hidden.yaml", "x.yml", "x", ".yaml"}) {
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
  CHECK_FALSE(fs::exists(tmp.path() + "/out/prod"));
}

// --- Directory --------------------------------------------------------------------------------

TEST_CASE("Directory writes the bundle and removes stale yaml files only", "[targets]") {
  TempDir tmp;
  const std::string root = tmp.path() + "/deploy/nested";  // created on demand
  auto p = Make("Directory", {{"path", root + "/"}}, "");

  Delivered r1 =
      DeliverOk(*p, MakeDelivery("prod", 1, {{"web.yaml", "kind: A\n"}, {"db.yaml", "kind: B\n"}}));
  const std::string dir = root + "/prod";
  CHECK(r1.location == dir);
  CHECK(r1.commit.empty());
  CHECK_FALSE(r1.pushed);
  CHECK(ListDir(dir) == std::set<std::string>{"web.yaml", "db.yaml"});
  CHECK(ReadFile(dir + "/web.yaml") == "kind: A\n");

  // Hand-written neighbours: only *.yaml files are cub's.
  WriteFile(dir + "/kustomization.yml", "resources: []\n");
  WriteFile(dir + "/README", "hello\n");
  WriteFile(dir + "/old.yaml", "kind: Stale\n");
  fs::create_directory(dir + "/sub.yaml");
  WriteFile(dir + "/sub.yaml/inner.yaml", "x");

  Delivered r2 =
      DeliverOk(*p, MakeDelivery("prod", 2, {{"web.yaml", "kind: A2\n"}, {"cache.yaml", ""}}));
  CHECK(r2.location == dir);
  CHECK(ListDir(dir) ==
        std::set<std::string>{"web.yaml", "cache.yaml", "kustomization.yml", "README", "sub.yaml"});
  CHECK(ReadFile(dir + "/web.yaml") == "kind: A2\n");
  CHECK(ReadFile(dir + "/cache.yaml").empty());
  CHECK(ReadFile(dir + "/README") == "hello\n");
  CHECK(fs::exists(dir + "/sub.yaml/inner.yaml"));

  // Another Space beside it is untouched; an empty bundle empties the Space of yaml.
  DeliverOk(*p, MakeDelivery("dev", 1, {{"web.yaml", "dev\n"}}));
  DeliverOk(*p, MakeDelivery("prod", 3, {}));
  CHECK(ListDir(dir) == std::set<std::string>{"kustomization.yml", "README", "sub.yaml"});
  CHECK(ReadFile(root + "/dev/web.yaml") == "dev\n");
  // The Space's directory holds no lock or temporary files of ours.
  for (const std::string& name : ListDir(root + "/dev")) CHECK(name == "web.yaml");
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
            "\nPublished-By: alice\n\n");
  CHECK(Git(repo, "log -1 --format=%an%n%ae%n%cn%n%ce") ==
        "cubd\ncubd@localhost\ncubd\ncubd@localhost\n");
  CHECK(Git(repo, "status --porcelain").empty());
  CHECK(ReadFile(repo + "/prod/db.yaml") == "kind: B\n");

  // Release 2 changes web, drops db, adds cache.
  Delivered r2 = DeliverOk(
      *p, MakeDelivery("prod", 2, {{"web.yaml", "kind: A2\n"}, {"cache.yaml", "kind: C\n"}}));
  CHECK(r2.commit != r1.commit);
  CHECK(Git(repo, "log --format=%s") == "Release 2 of prod\nRelease 1 of prod\n");
  CHECK(Git(repo, "log -1 --format=%B").find("ChangeOrder:") == std::string::npos);
  CHECK(Git(repo, "show HEAD:prod/web.yaml") == "kind: A2\n");
  CHECK(Git(repo, "ls-tree -r --name-only HEAD") == "prod/cache.yaml\nprod/web.yaml\n");
  CHECK(Git(repo, "status --porcelain").empty());
  CHECK_FALSE(fs::exists(repo + "/prod/db.yaml"));
  CHECK(ReadFile(repo + "/prod/web.yaml") == "kind: A2\n");
  std::string patch = Git(repo, "log -p -1");
  CHECK(patch.find("deleted file mode 100644") != std::string::npos);
  CHECK(patch.find("+kind: A2") != std::string::npos);

  // The same bundle again is still a release: a commit with an unchanged tree.
  Delivered r3 = DeliverOk(
      *p, MakeDelivery("prod", 3, {{"web.yaml", "kind: A2\n"}, {"cache.yaml", "kind: C\n"}}));
  CHECK(Git(repo, "rev-parse HEAD^{tree}") == Git(repo, "rev-parse HEAD~1^{tree}"));
  CHECK(Git(repo, "rev-list --count HEAD") == "3\n");
  CHECK(r3.commit != r2.commit);
  CHECK(Git(repo, "status --porcelain").empty());
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
        "README.md\nclusters/dev/web.yaml\nclusters/prod/api.yaml\n"
        "clusters/prod/kustomization.yml\n");
  CHECK(Git(repo, "show HEAD:clusters/dev/web.yaml") == "dev2\n");
  CHECK(Git(repo, "log --format=%s") ==
        "Release 2 of dev\nRelease 2 of prod\nRelease 1 of dev\nRelease 1 of prod\ninit\n");
  CHECK(Git(repo, "status --porcelain").empty());
  CHECK(ListDir(repo + "/clusters/prod") == std::set<std::string>{"api.yaml", "kustomization.yml"});
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
  CHECK(Git(bare, "ls-tree -r --name-only main") == "README.md\nenvs/prod/web.yaml\n");
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
