// The Git provider: one commit per Release on refs/heads/<branch>, built with libgit2.
//
// The commit's tree is the previous commit's tree with the Space's directory updated: the
// directory's *.yaml files (direct children, regular or executable blobs) replaced by the
// bundle's, everything else in the repository kept as it was. It is built in an in-memory index,
// never in a work tree, so the same code serves bare repositories, non-bare ones and our clones.
//
// Every Deliver makes a commit, even when the tree equals the previous one (the same bundle
// published again): a Release is an event, and its commit records who published which digest
// when. Watchers (Argo CD, Flux) compare trees, so such a commit deploys nothing new.
//
// A branch that does not exist yet starts as a root commit holding only the Space's directory;
// it is not forked from HEAD or any other branch.
//
// Local repository (`repository` is a path):
//   - missing or empty directory: initialized as a non-bare repository whose HEAD is the branch;
//   - the branch ref is moved with compare-and-swap against the commit the tree was built on, so
//     a concurrent writer that is not serialized by our lock (a person committing, a cubd with
//     another work_dir) makes Deliver fail with ABORTED instead of losing their commit;
//   - if the repository is non-bare and its HEAD is that branch, the work tree and index are then
//     checked out at the Space's *.yaml paths (old and new; forced: they belong to cub), so
//     `git status` stays clean; other paths, and local changes to them, are not touched. A
//     failure here is reported as INTERNAL naming the commit, which is already on the branch.
//
// Remote repository (`repository` is a URL): a bare clone in <work_dir>/git/<sha256 of URL>,
// made once and reused. Each Deliver fetches the branch into refs/remotes/origin/<branch>,
// commits on top of it (or as a root commit when the remote has no such branch), points the
// clone's refs/heads/<branch> at the commit, and pushes that branch without force. A remote that
// moved in between rejects the push as not a fast-forward: ABORTED, retry. No credential
// callbacks are installed, so only remotes libgit2 reaches without credentials work (file://,
// and https:// for fetching public repositories); pushing over https or ssh fails with
// UNAVAILABLE and libgit2's authentication error. The remote should be a bare repository.
//
// Lock file: <work_dir>/locks/<sha256 of "git:" + repository>.lock. It serializes cubd
// processes sharing work_dir; for a local repository, processes with different work_dirs are
// caught by the compare-and-swap above instead.
//
// libgit2 is initialized once per process (and never shut down: other threads may still be
// delivering), with fsync of objects and refs enabled, since a Release that was reported
// delivered must survive a crash.

#include <git2.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "lib/targets/git_history.h"
#include "lib/targets/internal.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::targets::internal {
namespace {

namespace fs = std::filesystem;

void InitLibgit2() {
  static std::once_flag once;
  std::call_once(once, [] {
    git_libgit2_init();
    git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);
  });
}

std::string GitErrorText() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

template <typename T, void (*Free)(T*)>
struct GitFree {
  void operator()(T* p) const {
    if (p != nullptr) Free(p);
  }
};
using RepoPtr = std::unique_ptr<git_repository, GitFree<git_repository, git_repository_free>>;
using RefPtr = std::unique_ptr<git_reference, GitFree<git_reference, git_reference_free>>;
using CommitPtr = std::unique_ptr<git_commit, GitFree<git_commit, git_commit_free>>;
using TreePtr = std::unique_ptr<git_tree, GitFree<git_tree, git_tree_free>>;
using IndexPtr = std::unique_ptr<git_index, GitFree<git_index, git_index_free>>;
using RemotePtr = std::unique_ptr<git_remote, GitFree<git_remote, git_remote_free>>;
using SigPtr = std::unique_ptr<git_signature, GitFree<git_signature, git_signature_free>>;

// A git_strarray over strings that outlive it.
struct StrArray {
  explicit StrArray(const std::vector<std::string>& v) {
    for (const std::string& s : v) ptrs.push_back(const_cast<char*>(s.c_str()));
    arr.strings = ptrs.data();
    arr.count = ptrs.size();
  }
  std::vector<char*> ptrs;
  git_strarray arr{};
};

bool IsUrl(const std::string& repository) { return repository[0] != '/'; }

// Is `s` an scp-like "git@host:path"?
bool IsScpLike(const std::string& s) {
  if (s.rfind("git@", 0) != 0) return false;
  size_t colon = s.find(':', 4);
  if (colon == std::string::npos || colon == 4 || colon + 1 == s.size()) return false;
  return s.find('/', 4) == std::string::npos || s.find('/', 4) > colon;
}

std::string NormalizeLocal(const std::string& path) {
  std::string p = fs::path(path).lexically_normal().string();
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

struct PushResult {
  std::vector<std::string> rejections;
};

int OnPushUpdate(const char* refname, const char* status, void* payload) {
  if (status != nullptr) {
    static_cast<PushResult*>(payload)->rejections.push_back(
        absl::StrCat(refname != nullptr ? refname : "?", ": ", status));
  }
  return 0;
}

class GitProvider : public Provider {
 public:
  GitProvider(std::string repository, std::string branch, std::string path_template,
              std::string work_dir)
      : repository_(std::move(repository)),
        branch_(std::move(branch)),
        path_template_(std::move(path_template)),
        work_dir_(std::move(work_dir)),
        is_url_(IsUrl(repository_)),
        branch_ref_("refs/heads/" + branch_),
        tracking_ref_("refs/remotes/origin/" + branch_) {}

  absl::StatusOr<std::optional<std::string>> ReleaseAt(
      const std::string& commit, const std::string& space,
      const std::vector<Recorded>& recorded) override {
    return GitReleaseAt({repository_, is_url_, branch_, work_dir_, nullptr}, commit, space,
                        recorded);
  }

  // Transitional (branch i16-core): one commit per Release; the batch commit replaces it.
  absl::StatusOr<DeliveryResult> Deliver(const std::vector<Delivery>& batch) override {
    DeliveryResult out;
    for (const Delivery& d : batch) {
      CUB_ASSIGN_OR_RETURN(DeliveredRelease one, DeliverOne(d));
      out.new_commit = one.commit;
      out.pushed = is_url_;
      out.releases.push_back(std::move(one));
    }
    return out;
  }

 private:
  absl::StatusOr<DeliveredRelease> DeliverOne(const Delivery& d) {
    CUB_RETURN_IF_ERROR(ValidateDelivery(d));
    const std::string dir = ExpandPathTemplate(path_template_, d.space);
    CUB_RETURN_IF_ERROR(ValidateRepoRelativePath(Prefix() + "path", dir));
    InitLibgit2();
    CUB_ASSIGN_OR_RETURN(auto lock, LockRepository());
    Checkout co;
    CUB_RETURN_IF_ERROR(Open(co));
    CUB_RETURN_IF_ERROR(ReadBase(co));

    std::vector<std::string> owned;
    CUB_ASSIGN_OR_RETURN(auto new_tree,
                         BuildTree(co.repo.get(), co.old_tree.get(), dir, d.files, &owned));
    CUB_ASSIGN_OR_RETURN(const git_oid commit_id, Commit(co, new_tree.get(), CommitMessage(d)));
    char hex[GIT_OID_HEXSZ + 1];
    git_oid_tostr(hex, sizeof hex, &commit_id);
    const std::string commit_hex = hex;
    CUB_RETURN_IF_ERROR(MoveBranch(co, commit_id, d.release_num,
                                   absl::StrCat("cubd: release ", d.release_num, " of ", d.space)));

    DeliveredRelease out;
    out.release_id = d.release_id;
    out.location = dir;
    out.commit = commit_hex;
    if (is_url_) {
      CUB_RETURN_IF_ERROR(Push(co.remote.get()));
    } else {
      CUB_RETURN_IF_ERROR(
          UpdateWorkTree(co.repo.get(), co.old_tree.get(), new_tree.get(), owned, commit_hex));
    }
    return out;
  }

  // The repository a delivery works in, and the commit it builds on.
  struct Checkout {
    RepoPtr repo;
    RemotePtr remote;  // set for a URL
    CommitPtr parent;  // null for a branch's first commit
    git_oid parent_id{};
    TreePtr old_tree;  // null for a branch's first commit
  };

  // One delivery at a time per repository, across threads and processes.
  absl::StatusOr<std::unique_ptr<LocationLock>> LockRepository() const {
    std::error_code ec;
    const std::string locks = work_dir_ + "/locks";
    fs::create_directories(locks, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat(Prefix(), "cannot create ", locks, ": ", ec.message()));
    }
    const std::string key = "git:" + repository_;
    return LocationLock::Acquire(key, absl::StrCat(locks, "/", Sha256Hex(key), ".lock"));
  }

  // The local repository, or for a URL the clone, fetched from the remote.
  absl::Status Open(Checkout& co) const {
    if (!is_url_) {
      CUB_ASSIGN_OR_RETURN(co.repo, OpenOrInitLocal());
      return absl::OkStatus();
    }
    CUB_ASSIGN_OR_RETURN(co.repo, OpenClone());
    git_remote* rm = nullptr;
    // Anonymous, and without url.<base>.insteadOf rewriting from the user's git config: the
    // Target's URL is used as written (see OpenClone for why there is no `origin`).
    git_remote_create_options ro;
    git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
    ro.repository = co.repo.get();
    ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
    if (git_remote_create_with_opts(&rm, repository_.c_str(), &ro) != 0) {
      return Fail("cannot use the remote");
    }
    co.remote.reset(rm);
    return Fetch(co.repo.get(), co.remote.get());
  }

  // The commit to build on: the local branch, or what the remote's branch is; and its tree.
  absl::Status ReadBase(Checkout& co) const {
    const std::string& base_ref = is_url_ ? tracking_ref_ : branch_ref_;
    git_oid id;
    int rc = git_reference_name_to_id(&id, co.repo.get(), base_ref.c_str());
    if (rc == GIT_ENOTFOUND) return absl::OkStatus();
    if (rc != 0) return Fail(absl::StrCat("cannot resolve ", base_ref));
    git_commit* c = nullptr;
    if (git_commit_lookup(&c, co.repo.get(), &id) != 0) {
      return Fail(absl::StrCat("cannot read the commit ", base_ref, " points at"));
    }
    co.parent.reset(c);
    co.parent_id = id;
    git_tree* t = nullptr;
    if (git_commit_tree(&t, co.parent.get()) != 0) return Fail("cannot read the previous tree");
    co.old_tree.reset(t);
    return absl::OkStatus();
  }

  absl::StatusOr<git_oid> Commit(const Checkout& co, git_tree* tree,
                                 const std::string& message) const {
    git_signature* s = nullptr;
    if (git_signature_now(&s, "cubd", "cubd@localhost") != 0) return Fail("cannot sign");
    SigPtr sig(s);
    git_oid commit_id;
    const git_commit* parents[] = {co.parent.get()};
    if (git_commit_create(&commit_id, co.repo.get(), nullptr, sig.get(), sig.get(), nullptr,
                          message.c_str(), tree, co.parent ? 1 : 0, parents) != 0) {
      return Fail("cannot create the commit");
    }
    return commit_id;
  }

  // Points the branch at `commit_id`. A local branch moves only from the parent it was built
  // on (ABORTED when another writer moved it first).
  absl::Status MoveBranch(const Checkout& co, const git_oid& commit_id, int64_t release_num,
                          const std::string& reflog) const {
    git_reference* ref = nullptr;
    int rc;
    if (is_url_) {
      // The clone's own branch is scratch: it always follows what we are about to push.
      rc = git_reference_create(&ref, co.repo.get(), branch_ref_.c_str(), &commit_id, 1,
                                reflog.c_str());
    } else if (co.parent) {
      rc = git_reference_create_matching(&ref, co.repo.get(), branch_ref_.c_str(), &commit_id, 1,
                                         &co.parent_id, reflog.c_str());
    } else {
      rc = git_reference_create(&ref, co.repo.get(), branch_ref_.c_str(), &commit_id, 0,
                                reflog.c_str());
    }
    RefPtr ref_holder(ref);
    if (rc == GIT_EMODIFIED || rc == GIT_EEXISTS) {
      return Fail(absl::StatusCode::kAborted,
                  absl::StrCat("branch ", branch_, " changed while release ", release_num,
                               " was being committed; nothing was published, retry"));
    }
    if (rc == GIT_ELOCKED) {
      // Another writer holds <ref>.lock right now, or one died holding it; libgit2's text
      // names the file, which has to be removed by hand in the second case.
      return Fail(absl::StatusCode::kUnavailable,
                  absl::StrCat("cannot update ", branch_ref_, "; nothing was published"));
    }
    if (rc != 0) return Fail(absl::StrCat("cannot update ", branch_ref_));
    return absl::OkStatus();
  }

  std::string Prefix() const { return absl::StrCat("Git target ", repository_, ": "); }

  absl::Status Fail(const std::string& what) const {
    return Fail(absl::StatusCode::kInternal, what);
  }
  absl::Status Fail(absl::StatusCode code, const std::string& what) const {
    // Only attach libgit2's text to errors libgit2 reported.
    if (code == absl::StatusCode::kAborted) return absl::Status(code, Prefix() + what);
    return absl::Status(code, absl::StrCat(Prefix(), what, ": ", GitErrorText()));
  }

  static std::string CommitMessage(const Delivery& d) {
    std::string m = absl::StrCat("Release ", d.release_num, " of ", d.space, "\n\n");
    if (!d.change_order.empty()) absl::StrAppend(&m, "ChangeOrder: ", d.change_order, "\n");
    absl::StrAppend(&m, "Bundle-Digest: ", d.bundle_digest, "\n");
    absl::StrAppend(&m, "Published-By: ", d.author, "\n");
    return m;
  }

  absl::StatusOr<RepoPtr> OpenOrInitLocal() const {
    const std::string& path = repository_;
    std::error_code ec;
    bool exists = fs::exists(path, ec);
    bool fresh = !exists || (fs::is_directory(path, ec) && fs::is_empty(path, ec));
    git_repository* r = nullptr;
    if (fresh) {
      git_repository_init_options o;
      git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
      o.flags = GIT_REPOSITORY_INIT_MKPATH;
      o.initial_head = branch_.c_str();
      if (git_repository_init_ext(&r, path.c_str(), &o) != 0) {
        return Fail("cannot initialize a repository");
      }
      return RepoPtr(r);
    }
    int rc = git_repository_open_ext(&r, path.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr);
    if (rc == GIT_ENOTFOUND) {
      return absl::FailedPreconditionError(
          Prefix() + "the path exists and is neither an empty directory nor a git repository");
    }
    if (rc != 0) return Fail("cannot open the repository");
    return RepoPtr(r);
  }

  // Opens (or first makes) our bare clone of the URL. The clone is made with init rather than
  // git_clone, so that an empty remote works and a clone interrupted half-way is simply
  // completed by the next fetch. The remote is used anonymously (no `origin` in the clone's
  // config): that keeps the clone's config out of the way, and avoids libgit2 1.5's config
  // lookups, which leak a little memory on every call. The URL is kept in a file
  // `cub-target-url` in the clone, for people looking at work_dir and to check the clone is
  // the right one.
  absl::StatusOr<RepoPtr> OpenClone() const {
    const std::string dir = absl::StrCat(work_dir_, "/git/", Sha256Hex(repository_));
    const std::string url_file = dir + "/cub-target-url";
    git_repository* r = nullptr;
    std::error_code ec;
    if (fs::exists(dir, ec)) {
      std::ifstream in(url_file);
      std::string url;
      if (std::getline(in, url) && url == repository_ &&
          git_repository_open_ext(&r, dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) == 0) {
        return RepoPtr(r);
      }
      // Not a usable clone of this URL (a killed init): start over; it only holds what the
      // remote has.
      fs::remove_all(dir, ec);
      if (ec) {
        return absl::InternalError(
            absl::StrCat(Prefix(), "cannot remove the broken clone ", dir, ": ", ec.message()));
      }
    }
    git_repository_init_options o;
    git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
    o.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_BARE;
    if (git_repository_init_ext(&r, dir.c_str(), &o) != 0) {
      return Fail(absl::StrCat("cannot initialize the clone in ", dir));
    }
    RepoPtr repo(r);
    // Written last: its presence marks the clone as complete.
    std::ofstream out(url_file, std::ios::trunc);
    out << repository_ << "\n";
    out.close();
    if (!out) {
      return absl::InternalError(absl::StrCat(Prefix(), "cannot write ", url_file));
    }
    return repo;
  }

  absl::Status Fetch(git_repository* repo, git_remote* remote) const {
    // Forget what we knew of the remote's branch, so that after the fetch the tracking ref
    // exists exactly when the remote has the branch (a deleted remote branch is started anew).
    git_reference* old = nullptr;
    if (git_reference_lookup(&old, repo, tracking_ref_.c_str()) == 0) {
      RefPtr owned(old);
      if (git_reference_delete(owned.get()) != 0) return Fail("cannot reset " + tracking_ref_);
    }
    git_fetch_options fo;
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    std::vector<std::string> specs = {absl::StrCat("+", branch_ref_, ":", tracking_ref_)};
    StrArray arr(specs);
    if (int rc = git_remote_fetch(remote, &arr.arr, &fo, "cubd: fetch"); rc != 0) {
      return RemoteFailure(rc, "cannot fetch " + branch_ref_);
    }
    return absl::OkStatus();
  }

  absl::Status Push(git_remote* remote) const {
    PushResult result;
    git_push_options po;
    git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
    po.callbacks.push_update_reference = OnPushUpdate;
    po.callbacks.payload = &result;
    std::vector<std::string> specs = {absl::StrCat(branch_ref_, ":", branch_ref_)};
    StrArray arr(specs);
    int rc = git_remote_push(remote, &arr.arr, &po);
    if (rc == GIT_ENONFASTFORWARD) {
      return absl::AbortedError(Prefix() + "the remote branch " + branch_ +
                                " moved while the release was being committed; nothing was "
                                "published, retry");
    }
    if (rc != 0) return RemoteFailure(rc, "cannot push " + branch_ref_);
    if (!result.rejections.empty()) {
      std::string all;
      for (const std::string& r : result.rejections)
        absl::StrAppend(&all, all.empty() ? "" : "; ", r);
      return absl::AbortedError(
          absl::StrCat(Prefix(), "the remote rejected the push (", all,
                       "); nothing was published, retry if the branch moved"));
    }
    return absl::OkStatus();
  }

  // UNAVAILABLE with libgit2's text, and a note when the remote wanted credentials: no
  // credential callback is installed, so libgit2 fails with "... no callback set", which on its
  // own would not tell an operator that cub is what lacks the feature.
  absl::Status RemoteFailure(int rc, const std::string& what) const {
    std::string text = GitErrorText();
    std::string lower = text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    bool auth = rc == GIT_EAUTH || lower.find("auth") != std::string::npos ||
                lower.find("credential") != std::string::npos ||
                lower.find("callback") != std::string::npos;
    return absl::UnavailableError(absl::StrCat(
        Prefix(), what, ": ", text,
        auth ? " (cub does not support credentials for remote repositories yet: use a file:// "
               "URL or a local path, or a remote that needs none)"
             : ""));
  }

  // Builds the new tree in an in-memory index: `old_tree` (null: none), minus the *.yaml blobs
  // directly in `dir`, plus the bundle. Fills `owned` with the repository paths of the *.yaml files
  // that were or are now in `dir` (the paths this Deliver is responsible for), for the work tree
  // update.
  absl::StatusOr<TreePtr> BuildTree(git_repository* repo, git_tree* old_tree,
                                    const std::string& dir, const std::vector<BundleFile>& files,
                                    std::vector<std::string>* owned) const {
    git_index* ix = nullptr;
    if (git_index_new(&ix) != 0) return Fail("cannot create an index");
    IndexPtr index(ix);
    if (old_tree != nullptr && git_index_read_tree(index.get(), old_tree) != 0) {
      return Fail("cannot read the tree");
    }

    const std::string prefix = dir + "/";
    std::set<std::string> old_yaml;  // the *.yaml files in dir before
    for (size_t i = 0, n = git_index_entrycount(index.get()); i < n; ++i) {
      const git_index_entry* e = git_index_get_byindex(index.get(), i);
      std::string path = e->path;
      if (path.rfind(prefix, 0) != 0) continue;
      std::string rest = path.substr(prefix.size());
      if (rest.find('/') != std::string::npos || rest.size() <= 5 ||
          rest.compare(rest.size() - 5, 5, ".yaml") != 0) {
        continue;
      }
      if (e->mode != GIT_FILEMODE_BLOB && e->mode != GIT_FILEMODE_BLOB_EXECUTABLE) continue;
      old_yaml.insert(path);
    }
    for (const std::string& path : old_yaml) {
      if (git_index_remove(index.get(), path.c_str(), 0) != 0) {
        return Fail(absl::StrCat("cannot remove ", path, " from the index"));
      }
    }
    std::set<std::string> added;
    for (const BundleFile& f : files) {
      const std::string path = prefix + f.name;
      git_oid blob;
      if (git_blob_create_from_buffer(&blob, repo, f.content.data(), f.content.size()) != 0) {
        return Fail(absl::StrCat("cannot store ", path));
      }
      git_index_entry entry;
      std::memset(&entry, 0, sizeof entry);
      entry.mode = GIT_FILEMODE_BLOB;
      entry.id = blob;
      entry.path = path.c_str();
      if (git_index_add(index.get(), &entry) != 0) {
        return Fail(absl::StrCat("cannot add ", path));
      }
      added.insert(path);
      owned->push_back(path);
    }
    for (const std::string& path : old_yaml) {
      if (!added.count(path)) owned->push_back(path);
    }
    git_oid tree_id;
    if (git_index_write_tree_to(&tree_id, index.get(), repo) != 0) {
      return Fail("cannot write the tree");
    }
    git_tree* t = nullptr;
    if (git_tree_lookup(&t, repo, &tree_id) != 0) return Fail("cannot read the new tree");
    return TreePtr(t);
  }

  // In a non-bare local repository whose HEAD is our branch, makes the work tree and index
  // match the new commit at the paths this Deliver owns. `old_tree` (null: empty) is the
  // baseline: files it has and the new tree lacks are removed. Forced, and over every owned path
  // rather than only the changed ones, so that a work tree left behind (a failed update, a hand
  // edit) is brought back in line by the next release.
  absl::Status UpdateWorkTree(git_repository* repo, git_tree* old_tree, git_tree* new_tree,
                              const std::vector<std::string>& owned,
                              const std::string& commit_hex) const {
    if (git_repository_is_bare(repo) || owned.empty()) return absl::OkStatus();
    git_reference* h = nullptr;
    if (git_reference_lookup(&h, repo, "HEAD") != 0) return absl::OkStatus();
    RefPtr head(h);
    if (git_reference_type(head.get()) != GIT_REFERENCE_SYMBOLIC ||
        branch_ref_ != git_reference_symbolic_target(head.get())) {
      return absl::OkStatus();
    }
    git_checkout_options co;
    git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
    co.checkout_strategy = GIT_CHECKOUT_FORCE | GIT_CHECKOUT_DISABLE_PATHSPEC_MATCH;
    // Without a baseline libgit2 would compare against HEAD, which already is the new commit,
    // and so would not remove the files this release dropped.
    IndexPtr empty;
    if (old_tree != nullptr) {
      co.baseline = old_tree;
    } else {
      git_index* ix = nullptr;
      if (git_index_new(&ix) != 0) return Fail("cannot create an index");
      empty.reset(ix);
      co.baseline_index = empty.get();
    }
    StrArray paths(owned);
    co.paths = paths.arr;
    if (git_checkout_tree(repo, reinterpret_cast<git_object*>(new_tree), &co) != 0) {
      return Fail(absl::StrCat("commit ", commit_hex, " is on branch ", branch_,
                               ", but the work tree could not be updated to it"));
    }
    return absl::OkStatus();
  }

  const std::string repository_;  // a URL, or a normalized absolute path
  const std::string branch_;
  const std::string path_template_;
  const std::string work_dir_;
  const bool is_url_;
  const std::string branch_ref_;    // refs/heads/<branch>
  const std::string tracking_ref_;  // refs/remotes/origin/<branch>, in a clone
};

}  // namespace

absl::Status ValidateGitParams(const std::map<std::string, std::string>& params) {
  const std::string& repository = params.at("repository");
  bool ok = repository[0] == '/' || IsScpLike(repository);
  for (const char* scheme : {"file://", "https://", "ssh://"}) {
    size_t n = std::strlen(scheme);
    if (repository.size() > n && repository.compare(0, n, scheme) == 0) ok = true;
  }
  if (!ok || repository.find_first_of(std::string("\0\n\r", 3)) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Git target: param 'repository' must be an absolute path or a file://, https://, ssh:// "
        "or git@host:path URL, not '",
        repository, "'"));
  }
  if (auto it = params.find("branch"); it != params.end()) {
    InitLibgit2();
    int valid = 0;
    if (it->second.empty() || git_branch_name_is_valid(&valid, it->second.c_str()) != 0 || !valid) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Git target: param 'branch' is not a valid branch name: '", it->second, "'"));
    }
  }
  if (auto it = params.find("path"); it != params.end()) {
    const std::string& tmpl = it->second;
    std::string rest = ExpandPathTemplate(tmpl, "");
    if (rest.find_first_of("{}") != std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("Git target: param 'path' '", tmpl,
                                                     "' has a placeholder other than {space}"));
    }
    if (auto s =
            ValidateRepoRelativePath("Git target: param 'path'", ExpandPathTemplate(tmpl, "space"));
        !s.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(s.message(), tmpl.find("{space}") != std::string::npos
                                        ? absl::StrCat(" (template '", tmpl, "')")
                                        : std::string()));
    }
  }
  return absl::OkStatus();
}

std::unique_ptr<Provider> MakeGitProvider(const std::map<std::string, std::string>& params,
                                          const ProviderEnv& env) {
  const std::string& work_dir = env.work_dir;
  std::string repository = params.at("repository");
  if (!IsUrl(repository)) repository = NormalizeLocal(repository);
  auto get = [&](const char* k, const char* def) {
    auto it = params.find(k);
    return it == params.end() ? std::string(def) : it->second;
  };
  return std::make_unique<GitProvider>(std::move(repository), get("branch", "main"),
                                       get("path", "{space}"), NormalizeLocal(work_dir));
}

}  // namespace cub::targets::internal
