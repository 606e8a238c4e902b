// The Git provider: one commit per Deliver on refs/heads/<branch>, carrying every Release of the
// batch, built with libgit2.
//
// The commit's tree is the previous commit's tree with each Space's directory updated, built
// with git_tree_create_updated: only the trees on the way to a changed file are rewritten, the
// rest of the repository is not even read. In each Space's directory cub writes the bundle's
// files, the manifest .cub-files and (param kustomization=true) a kustomization.yaml, and
// removes the files the old manifest lists that the new bundle lacks (space_files.h; a directory
// without a manifest falls back to the old rule: its direct *.yaml children). It is never built
// in a work tree, so the same code serves bare repositories, non-bare ones and our clones. New
// objects are kept in memory and written as one pack before the branch moves (git_objects.h).
//
// No commit is made when the tree comes out unchanged: a batch that changes nothing (the same
// Release delivered again after its commit fell outside the search below) reports the branch's
// tip. Since the manifest names the Release number, a new Release always changes its Space's
// directory, so every Release ends up named in a commit.
//
// Idempotent retries: the message names each Release it carries in a Cub-Release trailer
// (git_message.h). Before building, Deliver walks the branch back from its tip (newest first,
// while commits are no older than the batch's oldest published_at less an hour, at most 10,000
// commits) and reports every Release of the batch it finds there as found_earlier, with that
// commit, without writing it again. A batch's commit is atomic, so a Release is either wholly
// in a commit or not at all.
//
// Author: the publisher (Delivery::author and author_email of the batch's first Release, at its
// published_at; the committer's email when it has none); committer: ProviderEnv's, now.
//
// A branch that does not exist yet starts as a root commit; it is not forked from HEAD or any
// other branch.
//
// Local repository (`repository` is a path):
//   - missing or empty directory: initialized as a non-bare repository whose HEAD is the branch;
//   - the branch ref is moved with compare-and-swap against the commit the tree was built on, so
//     a concurrent writer that is not serialized by our lock (a person committing, a cubd with
//     another work_dir) makes Deliver fail with ABORTED instead of losing their commit;
//   - if the repository is non-bare and its HEAD is that branch, the work tree and index are then
//     checked out at the paths of cub's files (old and new; forced: they belong to cub), so
//     `git status` stays clean; other paths, and local changes to them, are not touched. A
//     failure here is reported as INTERNAL naming the commit, which is already on the branch.
//
// Remote repository (`repository` is a URL): a bare clone in <work_dir>/git/<sha256 of URL>,
// made once and reused. Each Deliver fetches the branch into refs/remotes/origin/<branch>,
// commits on top of it (or as a root commit when the remote has no such branch), points the
// clone's refs/heads/<branch> at the commit, and pushes that branch without force. A remote that
// moved in between rejects the push as not a fast-forward: ABORTED, retry. Fetch and push log
// in as the Target's credential params say (git_auth.cc), and check an SSH server's host key
// against its known_hosts file. The remote should be a bare repository.
//
// Lock file: <work_dir>/locks/<sha256 of "git:" + repository>.lock. It serializes cubd
// processes sharing work_dir; for a local repository, processes with different work_dirs are
// caught by the compare-and-swap above instead.
//
// Params besides repository, branch and path: kustomization ("true" or "false", default false),
// and clusters, namespace and project: Argo CD Applications under argocd/ (argocd_files.h).
//
// libgit2 is initialized once per process (and never shut down: other threads may still be
// delivering), with fsync of objects, packs and refs enabled, since a Release that was reported
// delivered must survive a crash.

#include <git2.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <deque>
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
#include "lib/argocd/application.h"
#include "lib/targets/argocd_files.h"
#include "lib/targets/commit_signer.h"
#include "lib/targets/git_history.h"
#include "lib/targets/git_message.h"
#include "lib/targets/git_objects.h"
#include "lib/targets/internal.h"
#include "lib/targets/space_files.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::targets::internal {
namespace {

namespace fs = std::filesystem;

// How far back a Deliver looks for Releases an earlier call committed: commits no older than the
// batch's oldest published_at less this much (clocks of cubd hosts and the Git host differ), and
// no more than this many.
constexpr int64_t kClockSlackSeconds = 3600;
constexpr int kMaxCommitsSearched = 10000;

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
    static_cast<PushResult*>(static_cast<RemoteAuthPayload*>(payload)->user)
        ->rejections.push_back(absl::StrCat(refname != nullptr ? refname : "?", ": ", status));
  }
  return 0;
}

std::string Hex(const git_oid& id) {
  char hex[GIT_OID_HEXSZ + 1];
  git_oid_tostr(hex, sizeof hex, &id);
  return hex;
}

// The blob entries of a directory of the old tree, by name; and the names of its subtrees.
struct DirEntries {
  std::map<std::string, std::pair<git_oid, git_filemode_t>> blobs;
  std::set<std::string> subtrees;
};

// Clusters held by the opt-in rule: release ID -> cluster -> why.
using HeldClusters = std::map<std::string, std::map<std::string, std::string>>;

// The tree updates of one Deliver. Paths are kept in a deque so the c_str()s git_tree_update
// points at stay put.
struct TreeChanges {
  std::deque<std::string> paths;
  std::vector<git_tree_update> updates;
  std::vector<std::string> owned;  // repository paths of cub's files, before and after
  void Upsert(std::string path, const git_oid& id) {
    paths.push_back(std::move(path));
    git_tree_update u{};
    u.action = GIT_TREE_UPDATE_UPSERT;
    u.id = id;
    u.filemode = GIT_FILEMODE_BLOB;
    u.path = paths.back().c_str();
    updates.push_back(u);
  }
  void Remove(std::string path) {
    paths.push_back(std::move(path));
    git_tree_update u{};
    u.action = GIT_TREE_UPDATE_REMOVE;
    u.path = paths.back().c_str();
    updates.push_back(u);
  }
};

class GitProvider : public Provider {
 public:
  GitProvider(std::string repository, std::map<std::string, std::string> params,
              const ProviderEnv& env)
      : repository_(std::move(repository)),
        params_(std::move(params)),
        env_(env),
        auth_(GitAuthOf(params_, env_)),
        branch_(Param("branch", "main")),
        path_template_(Param("path", "{space}")),
        kustomization_(Param("kustomization", "false") == "true"),
        argocd_(argocd::SettingsOf(params_)),
        work_dir_(NormalizeLocal(env.work_dir)),
        is_url_(IsUrl(repository_)),
        branch_ref_("refs/heads/" + branch_),
        tracking_ref_("refs/remotes/origin/" + branch_) {}

  absl::StatusOr<std::optional<std::string>> ReleaseAt(
      const std::string& commit, const std::string& space,
      const std::vector<Recorded>& recorded) override {
    InstallFetchAuth auth =
        [this](git_remote_callbacks* callbacks) -> absl::StatusOr<std::shared_ptr<void>> {
      if (!auth_.ok()) return auth_.status();
      CUB_ASSIGN_OR_RETURN(auto payload, InstallRemoteAuth(*auth_, callbacks));
      return std::shared_ptr<void>(std::move(payload));
    };
    return GitReleaseAt({repository_, is_url_, branch_, work_dir_, std::move(auth)}, commit, space,
                        recorded);
  }

  absl::StatusOr<DeliveryResult> Deliver(const std::vector<Delivery>& batch) override {
    DeliveryResult out;
    std::vector<std::string> dirs;
    for (const Delivery& d : batch) {
      CUB_ASSIGN_OR_RETURN(std::string dir, CheckDelivery(d));
      out.releases.push_back(DeliveredRelease{d.release_id, dir, "", false});
      dirs.push_back(std::move(dir));
    }
    if (batch.empty()) return out;
    InitLibgit2();
    CUB_ASSIGN_OR_RETURN(auto lock, LockRepository());
    Checkout co;
    CUB_RETURN_IF_ERROR(Open(co));
    CUB_RETURN_IF_ERROR(ReadBase(co));

    CUB_ASSIGN_OR_RETURN(const auto earlier, FindEarlier(co, batch));
    std::vector<const Delivery*> carried;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (auto it = earlier.find(batch[i].release_id); it != earlier.end()) {
        out.releases[i].commit = it->second;
        out.releases[i].found_earlier = true;
      } else {
        carried.push_back(&batch[i]);
      }
    }
    if (carried.empty()) {
      CUB_RETURN_IF_ERROR(RepairWorkTree(co, dirs));
      return out;
    }

    CUB_ASSIGN_OR_RETURN(auto objects, NewObjects::Attach(co.repo.get(), DefaultObjectSink()));
    TreeChanges changes;
    HeldClusters held;
    CUB_ASSIGN_OR_RETURN(auto new_tree,
                         BuildTree(co, batch, dirs, earlier, objects.get(), &changes, &held));
    for (DeliveredRelease& r : out.releases) {
      if (auto it = held.find(r.release_id); it != held.end()) r.held_clusters = it->second;
    }
    const bool unchanged =
        co.old_tree ? git_oid_equal(git_tree_id(new_tree.get()), git_tree_id(co.old_tree.get()))
                    : git_tree_entrycount(new_tree.get()) == 0;
    if (unchanged) {
      const std::string tip = co.parent ? Hex(co.parent_id) : "";
      for (DeliveredRelease& r : out.releases) {
        if (!r.found_earlier) r.commit = tip;
      }
      CUB_RETURN_IF_ERROR(RepairWorkTree(co, dirs));
      return out;
    }
    const std::string message = BatchCommitMessage(carried);
    CUB_ASSIGN_OR_RETURN(const git_oid commit_id,
                         Commit(co, new_tree.get(), message, *carried.front()));
    CUB_RETURN_IF_ERROR(objects->Persist());
    const std::string commit_hex = Hex(commit_id);
    CUB_RETURN_IF_ERROR(
        MoveBranch(co, commit_id, "cubd: " + message.substr(0, message.find('\n'))));
    for (DeliveredRelease& r : out.releases) {
      if (!r.found_earlier) r.commit = commit_hex;
    }
    out.new_commit = commit_hex;
    if (is_url_) {
      CUB_RETURN_IF_ERROR(Push(co.remote.get()));
      out.pushed = true;
    } else {
      CUB_RETURN_IF_ERROR(UpdateWorkTree(co.repo.get(), co.old_tree.get(), new_tree.get(),
                                         changes.owned, commit_hex));
    }
    return out;
  }

 private:
  std::string Param(const char* key, const char* def) const {
    auto it = params_.find(key);
    return it == params_.end() ? std::string(def) : it->second;
  }

  // The Space's directory in the repository, after checking `d`.
  absl::StatusOr<std::string> CheckDelivery(const Delivery& d) const {
    CUB_RETURN_IF_ERROR(ValidateDelivery(d));
    CUB_RETURN_IF_ERROR(CheckReservedNames(d, kustomization_, Prefix()));
    std::string dir = ExpandPathTemplate(path_template_, d.space);
    CUB_RETURN_IF_ERROR(ValidateRepoRelativePath(Prefix() + "path", dir));
    if (argocd_ &&
        (dir == kArgoDirectory || dir.rfind(std::string(kArgoDirectory) + "/", 0) == 0)) {
      return absl::InvalidArgumentError(absl::StrCat(
          Prefix(), "space ", d.space, "'s directory ", dir, " is inside ", kArgoDirectory,
          "/, where the Target's param clusters puts Argo CD Applications; change param path"));
    }
    return dir;
  }

  // The repository a delivery works in, and the commit it builds on.
  struct Checkout {
    RepoPtr repo;
    RemotePtr remote;  // set for a URL
    CommitPtr parent;  // null for a branch's first commit
    git_oid parent_id{};
    TreePtr old_tree;  // null for a branch's first commit
  };

  // The Releases of `batch` that commits on the branch already carry: release ID -> commit.
  absl::StatusOr<std::map<std::string, std::string>> FindEarlier(
      const Checkout& co, const std::vector<Delivery>& batch) const {
    std::map<std::string, std::string> found;
    if (!co.parent) return found;
    std::set<std::string> wanted;
    int64_t oldest = batch.front().published_at;
    for (const Delivery& d : batch) {
      wanted.insert(d.release_id);
      oldest = std::min(oldest, d.published_at);
    }
    const int64_t cutoff = oldest > 0 ? oldest - kClockSlackSeconds : 0;
    git_revwalk* w = nullptr;
    if (git_revwalk_new(&w, co.repo.get()) != 0) return Fail("cannot walk the branch");
    std::unique_ptr<git_revwalk, GitFree<git_revwalk, git_revwalk_free>> walk(w);
    // Along first parents, unsorted: libgit2 then reads one commit per step, where a sorted
    // walk would read the whole history before the first. cub's commits are the branch's
    // first-parent line (each builds on the tip), and their times only grow along it.
    git_revwalk_sorting(walk.get(), GIT_SORT_NONE);
    if (git_revwalk_push(walk.get(), &co.parent_id) != 0) return Fail("cannot walk the branch");
    git_revwalk_simplify_first_parent(walk.get());
    git_oid id;
    for (int n = 0; n < kMaxCommitsSearched && found.size() < wanted.size() &&
                    git_revwalk_next(&id, walk.get()) == 0;
         ++n) {
      git_commit* c = nullptr;
      if (git_commit_lookup(&c, co.repo.get(), &id) != 0) {
        return Fail("cannot read a commit of branch " + branch_);
      }
      CommitPtr commit(c);
      if (git_commit_time(commit.get()) < cutoff) break;
      const char* message = git_commit_message(commit.get());
      if (message == nullptr || std::strstr(message, "Cub-Release: ") == nullptr) continue;
      for (const CubReleaseTrailer& t : ParseCubReleaseTrailers(message)) {
        if (wanted.count(t.release_id) != 0) found.emplace(t.release_id, Hex(id));
      }
    }
    return found;
  }

  // The new tree: the old one (or the empty tree) with each Space's directory updated to the
  // last Release of the batch for it. A directory whose last Release was found earlier is left
  // as it is: whatever the branch holds there now is that Release or a later one.
  absl::StatusOr<TreePtr> BuildTree(const Checkout& co, const std::vector<Delivery>& batch,
                                    const std::vector<std::string>& dirs,
                                    const std::map<std::string, std::string>& earlier,
                                    NewObjects* objects, TreeChanges* changes,
                                    HeldClusters* held) const {
    git_repository* repo = co.repo.get();
    TreePtr empty;
    git_tree* base = co.old_tree.get();
    if (base == nullptr) {
      CUB_ASSIGN_OR_RETURN(empty, EmptyTree(repo));
      base = empty.get();
    }
    std::map<std::string, size_t> last;  // directory -> index of its last Release in the batch
    for (size_t i = 0; i < batch.size(); ++i) last[dirs[i]] = i;
    for (const auto& [dir, i] : last) {
      if (earlier.count(batch[i].release_id) != 0) continue;
      CUB_RETURN_IF_ERROR(PlanDirectory(repo, base, dir, batch[i], objects, changes));
    }
    CUB_RETURN_IF_ERROR(PlanApplications(repo, base, batch, dirs, earlier, objects, changes, held));
    git_oid tree_id;
    if (git_tree_create_updated(&tree_id, repo, base, changes->updates.size(),
                                changes->updates.data()) != 0) {
      return Fail("cannot build the new tree");
    }
    git_tree* t = nullptr;
    if (git_tree_lookup(&t, repo, &tree_id) != 0) return Fail("cannot read the new tree");
    return TreePtr(t);
  }

  absl::StatusOr<TreePtr> EmptyTree(git_repository* repo) const {
    git_treebuilder* b = nullptr;
    if (git_treebuilder_new(&b, repo, nullptr) != 0) return Fail("cannot make an empty tree");
    git_oid id;
    int rc = git_treebuilder_write(&id, b);
    git_treebuilder_free(b);
    git_tree* t = nullptr;
    if (rc != 0 || git_tree_lookup(&t, repo, &id) != 0) return Fail("cannot make an empty tree");
    return TreePtr(t);
  }

  // What directory `dir` of `base` holds now.
  absl::StatusOr<DirEntries> ReadDirectory(git_repository* repo, git_tree* base,
                                           const std::string& dir) const {
    DirEntries out;
    git_tree_entry* e = nullptr;
    int rc = git_tree_entry_bypath(&e, base, dir.c_str());
    if (rc == GIT_ENOTFOUND) return out;
    if (rc != 0) return Fail("cannot read " + dir);
    std::unique_ptr<git_tree_entry, GitFree<git_tree_entry, git_tree_entry_free>> entry(e);
    if (git_tree_entry_type(entry.get()) != GIT_OBJECT_TREE) {
      return absl::FailedPreconditionError(absl::StrCat(Prefix(), dir, " is a file on branch ",
                                                        branch_,
                                                        ", not a directory; cub needs it to be "
                                                        "the Space's directory"));
    }
    git_tree* t = nullptr;
    if (git_tree_lookup(&t, repo, git_tree_entry_id(entry.get())) != 0) {
      return Fail("cannot read " + dir);
    }
    TreePtr tree(t);
    for (size_t i = 0, n = git_tree_entrycount(tree.get()); i < n; ++i) {
      const git_tree_entry* c = git_tree_entry_byindex(tree.get(), i);
      std::string name = git_tree_entry_name(c);
      if (git_tree_entry_type(c) == GIT_OBJECT_TREE) {
        out.subtrees.insert(std::move(name));
      } else if (git_tree_entry_type(c) == GIT_OBJECT_BLOB) {
        out.blobs[name] = {*git_tree_entry_id(c), git_tree_entry_filemode(c)};
      }
    }
    return out;
  }

  // The names cub wrote in a directory: its manifest's list, or the rule for directories
  // without a manifest.
  absl::StatusOr<std::set<std::string>> OwnedBefore(git_repository* repo, const DirEntries& now,
                                                    const std::string& dir) const {
    std::set<std::string> owned;
    auto m = now.blobs.find(kManifestName);
    if (m == now.blobs.end()) {
      for (const auto& [name, entry] : now.blobs) {
        if (OwnedWithoutManifest(name)) owned.insert(name);
      }
      return owned;
    }
    git_blob* b = nullptr;
    if (git_blob_lookup(&b, repo, &m->second.first) != 0) {
      return Fail(absl::StrCat("cannot read ", dir, "/", kManifestName));
    }
    std::string_view text(static_cast<const char*>(git_blob_rawcontent(b)),
                          static_cast<size_t>(git_blob_rawsize(b)));
    owned = ParseManifest(text);
    git_blob_free(b);
    return owned;
  }

  // Adds to `changes` what makes `dir` hold `d`: its files (and kustomization.yaml) written,
  // the files the old manifest lists that `d` lacks removed, the manifest rewritten.
  absl::Status PlanDirectory(git_repository* repo, git_tree* base, const std::string& dir,
                             const Delivery& d, NewObjects* objects, TreeChanges* changes) const {
    CUB_ASSIGN_OR_RETURN(const DirEntries now, ReadDirectory(repo, base, dir));
    CUB_ASSIGN_OR_RETURN(const std::set<std::string> before, OwnedBefore(repo, now, dir));
    const std::set<std::string> names = NamesWritten(d, kustomization_);
    if (kustomization_ && now.blobs.count(kKustomizationName) != 0 &&
        before.count(kKustomizationName) == 0) {
      return absl::FailedPreconditionError(absl::StrCat(
          Prefix(), dir, "/", kKustomizationName, " on branch ", branch_,
          " was not written by cub, which does not overwrite it; remove it, or set the Target's "
          "param kustomization=false"));
    }
    const std::string prefix = dir + "/";
    auto put = [&](const std::string& name, const std::string& content) -> absl::Status {
      if (now.subtrees.count(name) != 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            Prefix(), prefix, name, " is a directory on branch ", branch_, ", so release ",
            d.release_num, " of space ", d.space, " cannot write a file there"));
      }
      git_oid id;
      if (git_odb_hash(&id, content.data(), content.size(), GIT_OBJECT_BLOB) != 0) {
        return Fail("cannot hash " + prefix + name);
      }
      auto it = now.blobs.find(name);
      if (it != now.blobs.end() && git_oid_equal(&it->second.first, &id) &&
          it->second.second == GIT_FILEMODE_BLOB) {
        return absl::OkStatus();  // unchanged
      }
      CUB_RETURN_IF_ERROR(objects->AddBlob(content, id));
      changes->Upsert(prefix + name, id);
      return absl::OkStatus();
    };
    for (const BundleFile& f : d.files) CUB_RETURN_IF_ERROR(put(f.name, f.content));
    if (kustomization_) CUB_RETURN_IF_ERROR(put(kKustomizationName, KustomizationContent(d)));
    for (const std::string& name : before) {
      if (names.count(name) == 0 && now.blobs.count(name) != 0) changes->Remove(prefix + name);
    }
    if (!names.empty()) {
      CUB_RETURN_IF_ERROR(put(kManifestName, ManifestContent(d.space, d.release_num, names)));
    } else if (now.blobs.count(kManifestName) != 0) {
      changes->Remove(prefix + kManifestName);
    }
    std::set<std::string> owned = before;
    owned.insert(names.begin(), names.end());
    owned.insert(kManifestName);
    for (const std::string& name : owned) changes->owned.push_back(prefix + name);
    return absl::OkStatus();
  }

  // Adds to `changes` what makes argocd/ hold the Applications of the last Release of each Space
  // of the batch (argocd_files.h), and reports the clusters held by the opt-in rule. Without
  // the clusters param, only removes the Applications an earlier setting left for these Spaces.
  absl::Status PlanApplications(git_repository* repo, git_tree* base,
                                const std::vector<Delivery>& batch,
                                const std::vector<std::string>& dirs,
                                const std::map<std::string, std::string>& earlier,
                                NewObjects* objects, TreeChanges* changes,
                                HeldClusters* held) const {
    const std::string prefix = absl::StrCat(kArgoDirectory, "/");
    if (!argocd_) {
      git_tree_entry* e = nullptr;
      if (git_tree_entry_bypath(&e, base, (prefix + kManifestName).c_str()) != 0) {
        return absl::OkStatus();
      }
      git_tree_entry_free(e);
    }
    CUB_ASSIGN_OR_RETURN(const DirEntries now, ReadDirectory(repo, base, kArgoDirectory));
    auto read = [&](const std::string& name) -> std::string {
      auto it = now.blobs.find(name);
      git_blob* b = nullptr;
      if (it == now.blobs.end() || git_blob_lookup(&b, repo, &it->second.first) != 0) return "";
      std::string text(static_cast<const char*>(git_blob_rawcontent(b)),
                       static_cast<size_t>(git_blob_rawsize(b)));
      git_blob_free(b);
      return text;
    };
    ArgoDirectory dir_now;
    for (const auto& [name, entry] : now.blobs) {
      if (name != kManifestName) dir_now.files.insert(name);
    }
    dir_now.subtrees = now.subtrees;
    dir_now.manifest = read(kManifestName);
    std::map<std::string, size_t> last;  // space -> index of its last Release in the batch
    for (size_t i = 0; i < batch.size(); ++i) last[batch[i].space] = i;
    std::vector<SpaceApplications> spaces;
    for (const auto& [space, i] : last) {
      if (earlier.count(batch[i].release_id) != 0) continue;
      SpaceApplications s{space, batch[i].release_id, {}};
      if (argocd_) {
        s.applications = argocd::RenderAll(space, batch[i].release_num, *argocd_,
                                           argocd::GitSource(repository_, dirs[i], branch_));
      }
      spaces.push_back(std::move(s));
    }
    const ArgoPlan plan = PlanArgoDirectory(dir_now, spaces, read);
    auto put = [&](const std::string& name, const std::string& content) -> absl::Status {
      git_oid id;
      if (git_odb_hash(&id, content.data(), content.size(), GIT_OBJECT_BLOB) != 0) {
        return Fail("cannot hash " + prefix + name);
      }
      auto it = now.blobs.find(name);
      if (it != now.blobs.end() && git_oid_equal(&it->second.first, &id) &&
          it->second.second == GIT_FILEMODE_BLOB) {
        return absl::OkStatus();
      }
      CUB_RETURN_IF_ERROR(objects->AddBlob(content, id));
      changes->Upsert(prefix + name, id);
      return absl::OkStatus();
    };
    for (const auto& [name, content] : plan.writes) CUB_RETURN_IF_ERROR(put(name, content));
    for (const std::string& name : plan.removes) changes->Remove(prefix + name);
    if (plan.manifest) {
      CUB_RETURN_IF_ERROR(put(kManifestName, *plan.manifest));
    } else if (now.blobs.count(kManifestName) != 0) {
      changes->Remove(prefix + kManifestName);
    }
    for (const std::string& name : plan.owned) changes->owned.push_back(prefix + name);
    changes->owned.push_back(prefix + kManifestName);
    *held = plan.held;
    return absl::OkStatus();
  }

  // When a Deliver commits nothing (all found earlier, or nothing changed), the work tree of a
  // non-bare local repository is still brought in line at cub's files in `dirs`, as the branch
  // has them: an earlier Deliver may have committed and then failed to update it.
  absl::Status RepairWorkTree(const Checkout& co, const std::vector<std::string>& dirs) const {
    if (is_url_ || !co.old_tree || git_repository_is_bare(co.repo.get())) {
      return absl::OkStatus();
    }
    std::vector<std::string> paths;
    for (const std::string& dir : std::set<std::string>(dirs.begin(), dirs.end())) {
      CUB_ASSIGN_OR_RETURN(const DirEntries now,
                           ReadDirectory(co.repo.get(), co.old_tree.get(), dir));
      CUB_ASSIGN_OR_RETURN(std::set<std::string> names, OwnedBefore(co.repo.get(), now, dir));
      if (now.blobs.count(kManifestName) != 0) names.insert(kManifestName);
      for (const std::string& name : names) paths.push_back(dir + "/" + name);
    }
    return UpdateWorkTree(co.repo.get(), co.old_tree.get(), co.old_tree.get(), paths,
                          Hex(co.parent_id));
  }

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

  // The commit of `tree` on the branch: authored by `first`'s publisher when it was published,
  // committed by ProviderEnv's committer now.
  absl::StatusOr<git_oid> Commit(const Checkout& co, git_tree* tree, const std::string& message,
                                 const Delivery& first) const {
    git_signature* s = nullptr;
    if (git_signature_now(&s, env_.committer_name.c_str(), env_.committer_email.c_str()) != 0) {
      return Fail(absl::StrCat("the committer '", env_.committer_name, " <", env_.committer_email,
                               ">' is not valid"));
    }
    SigPtr committer(s);
    // libgit2 refuses an empty email (git would write "<>"): a publisher without one gets the
    // committer's.
    const std::string& author_name = first.author.empty() ? env_.committer_name : first.author;
    const std::string& author_email =
        first.author_email.empty() ? env_.committer_email : first.author_email;
    const int64_t when = first.published_at > 0 ? first.published_at : committer->when.time;
    if (git_signature_new(&s, author_name.c_str(), author_email.c_str(), when, 0) != 0) {
      return Fail(absl::StrCat("the author '", author_name, " <", author_email, ">' of release ",
                               first.release_num, " of space ", first.space, " is not valid"));
    }
    SigPtr author(s);
    git_oid commit_id;
    const git_commit* parents[] = {co.parent.get()};
    if (!env_.signer) {
      if (git_commit_create(&commit_id, co.repo.get(), nullptr, author.get(), committer.get(),
                            nullptr, message.c_str(), tree, co.parent ? 1 : 0, parents) != 0) {
        return Fail("cannot create the commit");
      }
      return commit_id;
    }
    // Signed (gpg.format=ssh): the commit's text, its SSH signature in the gpgsig header.
    git_buf buf = GIT_BUF_INIT;
    if (git_commit_create_buffer(&buf, co.repo.get(), author.get(), committer.get(), nullptr,
                                 message.c_str(), tree, co.parent ? 1 : 0, parents) != 0) {
      return Fail("cannot create the commit");
    }
    std::string text(buf.ptr, buf.size);
    git_buf_dispose(&buf);
    absl::StatusOr<std::string> signature = env_.signer->Sign(text);
    if (!signature.ok()) {
      return absl::InternalError(absl::StrCat(Prefix(), signature.status().message()));
    }
    if (git_commit_create_with_signature(&commit_id, co.repo.get(), text.c_str(),
                                         signature->c_str(), "gpgsig") != 0) {
      return Fail("cannot create the signed commit");
    }
    return commit_id;
  }

  // Points the branch at `commit_id`. A local branch moves only from the parent it was built
  // on (ABORTED when another writer moved it first).
  absl::Status MoveBranch(const Checkout& co, const git_oid& commit_id,
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
                  absl::StrCat("branch ", branch_,
                               " changed while the batch was being committed; nothing was "
                               "published, retry"));
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
  // The lock files libgit2 leaves in the clone when cubd dies while a Deliver fetches or moves
  // the branch: the clone's refs/heads/<branch> and refs/remotes/origin/<branch> are only
  // written by Deliver, under LockRepository, which the caller holds, so a lock file of theirs
  // found now is a dead writer's. Left in place, it would fail every later delivery to the
  // Target. (Other refs of the clone, such as those ReleaseAt fetches into without this lock,
  // are not touched.)
  void RemoveStaleLocks(const std::string& dir) const {
    std::error_code ec;
    fs::remove(absl::StrCat(dir, "/", branch_ref_, ".lock"), ec);
    fs::remove(absl::StrCat(dir, "/refs/remotes/origin/", branch_, ".lock"), ec);
  }

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
        RemoveStaleLocks(dir);
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
    // No redirects: a redirect could carry the Target's credentials to another host.
    fo.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    if (!auth_.ok()) return auth_.status();
    CUB_ASSIGN_OR_RETURN(auto auth_payload, InstallRemoteAuth(*auth_, &fo.callbacks));
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
    // No redirects: a redirect could carry the Target's credentials to another host.
    po.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
    if (!auth_.ok()) return auth_.status();
    CUB_ASSIGN_OR_RETURN(auto auth_payload, InstallRemoteAuth(*auth_, &po.callbacks));
    po.callbacks.push_update_reference = OnPushUpdate;
    auth_payload->user = &result;
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

  // UNAVAILABLE with libgit2's text (for a refused login or host key, git_auth.cc's message).
  absl::Status RemoteFailure(int /*rc*/, const std::string& what) const {
    return absl::UnavailableError(absl::StrCat(Prefix(), what, ": ", GitErrorText()));
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
  const std::map<std::string, std::string> params_;
  const ProviderEnv env_;               // env_.signer: signs every commit when set
  const absl::StatusOr<GitAuth> auth_;  // how to log in to a URL (git_auth.cc)
  const std::string branch_;
  const std::string path_template_;
  const bool kustomization_;
  const std::optional<argocd::Settings> argocd_;  // the clusters param's, when set
  const std::string work_dir_;
  const bool is_url_;
  const std::string branch_ref_;    // refs/heads/<branch>
  const std::string tracking_ref_;  // refs/remotes/origin/<branch>, in a clone
};

}  // namespace

absl::Status ValidateGitParams(const std::map<std::string, std::string>& params) {
  const std::string& repository = params.at("repository");
  bool ok = repository[0] == '/' || IsScpLike(repository) || IsLoopbackHttpUrl(repository);
  for (const char* scheme : {"file://", "https://", "ssh://"}) {
    size_t n = std::strlen(scheme);
    if (repository.size() > n && repository.compare(0, n, scheme) == 0) ok = true;
  }
  if (!ok || repository.find_first_of(std::string("\0\n\r", 3)) != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Git target: param 'repository' must be an absolute path or a file://, https://, ssh:// "
        "or git@host:path URL (http:// only to a loopback address), not '",
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
  if (auto it = params.find("kustomization"); it != params.end()) {
    if (it->second != "true" && it->second != "false") {
      return absl::InvalidArgumentError(absl::StrCat(
          "Git target: param 'kustomization' must be 'true' or 'false', not '", it->second, "'"));
    }
  }
  CUB_RETURN_IF_ERROR(ValidateGitAuthParams(params));
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
  std::string repository = params.at("repository");
  if (!IsUrl(repository)) repository = NormalizeLocal(repository);
  return std::make_unique<GitProvider>(std::move(repository), params, env);
}

}  // namespace cub::targets::internal
