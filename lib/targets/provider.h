// Release Targets: where the files of a published Release go, so that a GitOps operator (Argo CD,
// Flux) can deploy them. cubd itself never talks to a cluster; it writes the Release's bundle
// (one YAML file per Unit) to a place such an operator watches, and the operator applies it.
//
// Two providers:
//
//   Directory  params: path (absolute).
//              Writes <path>/<space>/<unit>.yaml on the local file system, each file atomically
//              (temporary file, fsync, rename); the directory as a whole is not switched
//              atomically. Lock file: <path>/.<space>.cub-lock.
//
//   Git        params: repository (absolute local path, or a file://, https://, ssh:// or
//              git@host:path URL), branch (default "main"), path (a relative template in which
//              {space} is replaced by the Space's name; default "{space}").
//              One commit per Deliver on refs/heads/<branch>, even when the tree is unchanged
//              (a Release is an event), author and committer "cubd <cubd@localhost>", message:
//                  Release <N> of <space>
//                  <blank line>
//                  ChangeOrder: <BASE/NAME>      (only when set)
//                  Bundle-Digest: sha256:<hex>
//                  Published-By: <author>
//              A local repository that does not exist (or is an empty directory) is initialized
//              with the branch as HEAD; when it is non-bare with HEAD on the branch, its work
//              tree and index follow the commit. A URL is cloned (bare) into work_dir, fetched
//              before and pushed after each commit. No credentials are supported yet: pushing
//              to a remote that wants them fails (UNAVAILABLE). Lock file:
//              <work_dir>/locks/<sha256 of "git:" + repository>.lock; the branch ref of a local
//              repository is also moved with compare-and-swap, which catches writers the lock
//              does not (see git.cc).
//
// Both make the Space's directory hold exactly the bundle's *.yaml files: a Unit removed from the
// Space disappears from the deployment. Files in that directory whose names do not end in .yaml,
// and subdirectories, are left alone, so a directory can be shared with hand-written files
// (a kustomization.yml, a README).
//
// Delivery is serialized per location: per target directory (Directory) or per repository (Git),
// by a process-wide mutex and by flock(2) on the lock file, so concurrent Deliver calls of one
// cubd, or of several cubd processes on one machine sharing the lock file, do not interleave.
//
// Thread-safety: a Provider is immutable once made; Deliver may be called from any number of
// threads at once. ValidateParams and MakeProvider are thread-safe.

#ifndef CUB_LIB_TARGETS_PROVIDER_H_
#define CUB_LIB_TARGETS_PROVIDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::targets {

// One file of a Release's bundle.
struct BundleFile {
  // "<unit-slug>.yaml": a plain file name. Deliver rejects (INVALID_ARGUMENT) a name that is
  // empty, contains '/' or NUL, starts with '.' (this also excludes "." and ".."), or does not
  // end in ".yaml" (only *.yaml files are ever removed again, so any other name could never
  // disappear from the deployment), and duplicate names within one Delivery.
  std::string name;
  // The file's bytes, written as given.
  std::string content;
};

// A Release to deliver: everything a provider writes, and what it records about it.
struct Delivery {
  // The Space's name (a slug). Must be non-empty, contain no '/' or NUL and not start with '.'.
  std::string space;
  // The Release's number within the Space; must be >= 1.
  int64_t release_num = 0;
  // "BASE/NAME" of the ChangeOrder the Release belongs to, or empty.
  std::string change_order;
  // "sha256:" followed by 64 lowercase hex digits: the digest of the bundle.
  std::string bundle_digest;
  // The username of who published the Release.
  std::string author;
  // The bundle; may be empty (then the Space's directory ends up with no *.yaml files).
  std::vector<BundleFile> files;
  // change_order, bundle_digest and author must not contain CR, LF or NUL: they become lines of
  // the Git commit message, and a line break would let a value forge another trailer.
};

// What Deliver did.
struct Delivered {
  // Directory: the absolute directory written, <path>/<space>.
  // Git: the Space's directory inside the repository, relative to its root (the `path` param
  // with {space} replaced), e.g. "clusters/prod". This is what an Argo CD Application's
  // source.path or a Flux Kustomization's spec.path names.
  std::string location;
  // Git: the new commit's id (40 hex digits). Directory: empty.
  std::string commit;
  // Git: true when the commit was pushed to the repository URL. false for a local repository
  // and for Directory.
  bool pushed = false;
};

class Provider {
 public:
  virtual ~Provider() = default;

  // Writes `d`'s files to the Space's location and removes the *.yaml files there that are not
  // in the bundle. Blocks while another Deliver to the same location runs (in this process or,
  // through the lock file, in another). Thread-safe.
  //
  // Errors (messages name the path or repository and carry the system's or libgit2's text):
  //   INVALID_ARGUMENT     the Delivery breaks the contracts above; nothing was written.
  //   ABORTED              Git: someone else moved the branch while this Deliver ran (the local
  //                        ref changed under it, or the remote rejected the push as not a
  //                        fast-forward). Nothing was published; calling Deliver again is safe.
  //   UNAVAILABLE          Git: the remote cannot be fetched from or pushed to (this includes a
  //                        remote that wants credentials, which are not supported yet), or the
  //                        local branch ref is locked (<ref>.lock exists). Nothing was published.
  //   FAILED_PRECONDITION  Directory: <path>/<space> exists and is not a directory. Git: the
  //                        local repository path exists and is neither empty nor a repository.
  //   INTERNAL             file system and other libgit2 failures. One case leaves a result
  //                        behind: Git to a local non-bare repository whose HEAD is the branch,
  //                        when the commit was made but the work tree could not be updated; the
  //                        message names the commit, and the next Deliver repairs the work tree.
  // Directory writes file by file, so other errors may leave some of the bundle written.
  virtual absl::StatusOr<Delivered> Deliver(const Delivery& d) = 0;
};

// Checks a Target's provider name and params without touching the file system or network.
// Providers are "Directory" and "Git" (exact case). Every param must be known, and required ones
// present and non-empty:
//   Directory: path (required, absolute).
//   Git: repository (required: an absolute local path, or a file://, https://, ssh:// or
//        git@host:path URL), branch (optional, default "main"; a valid Git branch name),
//        path (optional, default "{space}"; relative, '/'-separated, no empty, ".", ".." or
//        ".git" components, so it cannot leave the repository or reach into its metadata;
//        "{space}" is the only placeholder, and may appear anywhere, or not at all: a path
//        without it puts every Space delivering to the repository into one directory, which is
//        right only for a repository (or branch) per Space).
// Errors: INVALID_ARGUMENT naming the provider and param, e.g.
//   "Git target: unknown param 'repo'; known: repository, branch, path".
absl::Status ValidateParams(std::string_view provider,
                            const std::map<std::string, std::string>& params);

// Makes the provider after ValidateParams(provider, params). `work_dir` is a directory cubd owns
// (created when needed): a Git provider keeps lock files in <work_dir>/locks/ and clones of
// remote repositories in <work_dir>/git/<sha256 of the URL>/; Directory does not use it. A Git
// provider needs a non-empty, absolute work_dir (INVALID_ARGUMENT otherwise). Touches nothing on
// disk: a repository that does not exist yet is only created by the first Deliver.
absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(
    std::string_view provider, const std::map<std::string, std::string>& params,
    const std::string& work_dir);

}  // namespace cub::targets

#endif  // CUB_LIB_TARGETS_PROVIDER_H_
