// Which Release of a Space a deployed Git commit carries: how a GitOps reporter that knows only
// the commit it runs (Argo CD's status.sync.revision, Flux's "main@sha1:<hex>") names the
// Release to cub.
//
// A Git Target's commit names each Release it carries in a trailer (git_message.h)
//
//   Cub-Release: <release-id> <space> <release-num> sha256:<hex>
//
// in the last paragraph of its message. A commit carries, for a Space, the Release its nearest
// commit naming that Space names: a batch commit names many Spaces, and a later commit for
// another Space still deploys this Space's files unchanged, so the walk goes back through the
// ancestors until a trailer names the Space.

#ifndef CUB_LIB_TARGETS_GIT_HISTORY_H_
#define CUB_LIB_TARGETS_GIT_HISTORY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/targets/provider.h"

struct git_remote_callbacks;

namespace cub::targets {

// The commit id (40 lowercase hex digits) a reported revision names. Accepted forms:
//   <40 hex>                 a Git commit id (Argo CD's sync.revision), either case
//   <ref>@sha1:<40 hex>      Flux's revision (source-controller v1, Flux 2.x), e.g.
//                            "main@sha1:1f2e...", "refs/heads/main@sha1:...", "sha1:..."
//   <branch>/<40 hex>        Flux's revision before Flux 2.0, e.g. "main/1f2e..."
// INVALID_ARGUMENT otherwise, naming the value and the forms (abbreviated ids are refused: a
// reporter always has the full id, and a prefix could name another commit later).
absl::StatusOr<std::string> ParseDeployedCommit(const std::string& revision);

// ReleaseAt reads at most this many commits, from the given commit back, before giving up
// (nullopt): a Space whose last Release is older than that is not found.
inline constexpr int kMaxHistoryWalk = 10000;

namespace internal {

// Installs a Target's credential callbacks on `callbacks` for a fetch; the returned object must
// be kept until the fetch is over. Given by git.cc, which knows the Target's credentials.
using InstallFetchAuth =
    std::function<absl::StatusOr<std::shared_ptr<void>>(git_remote_callbacks* callbacks)>;

// Where a Git Target's history is.
struct GitHistorySource {
  // A normalized absolute path (a local repository) or a URL (is_url).
  std::string repository;
  bool is_url = false;
  std::string branch;
  // cubd's work directory: a URL's clone is <work_dir>/git/<sha256 of the URL>.
  std::string work_dir;
  // For a URL: credentials for the fetch; null fetches anonymously.
  InstallFetchAuth install_auth;
};

// Provider::ReleaseAt for Git (provider.h). A local repository is only opened, never created or
// written. For a URL, the clone cubd delivers through is used (made when missing, as git.cc
// makes it); when it lacks the commit, the Target's branch is fetched from the remote into
// refs/cub/reported/<branch> (Deliver's refs are left alone, so a concurrent Deliver is not
// disturbed) and the commit looked up again.
// Errors: INVALID_ARGUMENT for a revision ParseDeployedCommit refuses; NOT_FOUND when the
// repository (or, after the fetch, the clone) has no such commit, or a local repository does not
// exist; UNAVAILABLE when the remote cannot be fetched from; INTERNAL for other libgit2 failures.
// Messages start "Git target <repository>: ".
absl::StatusOr<std::optional<std::string>> GitReleaseAt(
    const GitHistorySource& source, const std::string& revision, const std::string& space,
    const std::vector<Provider::Recorded>& recorded);

}  // namespace internal
}  // namespace cub::targets

#endif  // CUB_LIB_TARGETS_GIT_HISTORY_H_
