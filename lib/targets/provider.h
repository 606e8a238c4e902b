// Release Targets: where the files of published Releases go, so that a GitOps operator (Argo CD,
// Flux) can deploy them. cubd itself never talks to a cluster; it writes each Release's bundle
// (one file per Unit) to a place such an operator watches, and the operator applies it.
//
// Delivery is a step of its own, after the Releases are recorded (lib/ops/delivery.h): a
// Provider is handed a batch of recorded Releases and puts them all in place at once. Calling it
// again with the same batch is safe: a Release the Target already holds is recognized and
// reported, never written twice.
//
// Two providers:
//
//   Directory  params: path (absolute).
//              Writes <path>/<space>/<file> on the local file system, each file atomically
//              (temporary file, fsync, rename); the directory as a whole is not switched
//              atomically. Lock file: <path>/.<space>.cub-lock.
//
//   Git        params: repository (absolute local path, or a file://, https://, ssh:// or
//              git@host:path URL; http:// only to a loopback address), branch (default "main"),
//              path (a relative template in which {space} is replaced by the Space's name;
//              default "{space}"), and the credential and layout params of git.cc.
//              One commit per Deliver call on refs/heads/<branch>, carrying every Release of the
//              batch, and no commit when the batch changes nothing. The message names each
//              Release in a trailer "Cub-Release: <release-id>", which is how a retry finds
//              what an interrupted call already committed. Author: the publisher (name and
//              email); committer: ProviderEnv's. Optionally signed (ProviderEnv::signer).
//              With the params clusters, namespace and project (lib/argocd/application.h), the
//              same commit also writes one Argo CD Application per Space and cluster under
//              argocd/ of the repository, by the opt-in rule of lib/targets/argocd_files.h.
//
// Both keep, in each Space's directory, a manifest of the files cub wrote there (".cub-files"),
// and remove a file only when the manifest lists it and the new bundle does not: files cub did
// not write (a hand-written README, a kustomization.yml) are left alone.
//
// Delivery is serialized per location: per target directory (Directory) or per repository (Git),
// by a process-wide mutex and by flock(2) on the lock file, so concurrent Deliver calls of one
// cubd, or of several cubd processes on one machine sharing the lock file, do not interleave.
// Across machines, cubd serializes deliveries to one Target through PostgreSQL
// (lib/store/deliveries.h), and Git's compare-and-swap on the branch catches anyone else.
//
// Thread-safety: a Provider is immutable once made; Deliver may be called from any number of
// threads at once. ValidateParams and MakeProvider are thread-safe.

#ifndef CUB_LIB_TARGETS_PROVIDER_H_
#define CUB_LIB_TARGETS_PROVIDER_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::targets {

// One file of a Release's bundle.
struct BundleFile {
  // A plain file name: "<unit-slug><extension>", the extension given by the Unit's toolchain
  // (".yaml" for Kubernetes/YAML). Deliver rejects (INVALID_ARGUMENT) a name that is empty,
  // contains '/' or NUL, starts with '.' (this also excludes "." and ".."), or is a name the
  // provider writes itself (the manifest, a generated kustomization.yaml), and duplicate names
  // within one Release.
  std::string name;
  // The file's bytes, written as given.
  std::string content;
};

// A recorded Release to deliver: everything a provider writes, and what it records about it.
struct Delivery {
  // The Release's ID (a UUID). Named in the Git commit's trailers; how a retry recognizes it.
  std::string release_id;
  // The Space's name (a slug). Must be non-empty, contain no '/' or NUL and not start with '.'.
  std::string space;
  // The Release's number within the Space; must be >= 1.
  int64_t release_num = 0;
  // "BASE/NAME" of the ChangeOrder the Release belongs to, or empty.
  std::string change_order;
  // "sha256:" followed by 64 lowercase hex digits: the digest of the bundle.
  std::string bundle_digest;
  // The Release's description (may be empty; one line or several).
  std::string description;
  // Who published it: the username (Published-By trailer, commit author name) and their email
  // (commit author email; may be empty).
  std::string author;
  std::string author_email;
  // When it was published (Unix seconds). A retry looks for the Release in commits made since
  // (with an hour's slack for clocks), not in the whole history.
  int64_t published_at = 0;
  // The bundle; may be empty (then the Space's directory ends up with none of cub's files).
  std::vector<BundleFile> files;
  // Evidence an OCI Target pushes beside the artifact (lib/oci/evidence.h), as cubd recorded
  // it: the signed provenance (DSSE envelope JSON), the sealed approvals (DSSE envelope JSON,
  // empty when none were sealed), and the signed promotion records of the Release's
  // ChangeOrder in this Space (each a DSSE envelope JSON). Other providers ignore them.
  std::string provenance;
  std::string sealed_approvals;
  std::vector<std::string> promotion_records;
  // Whether a release gate of the Space's Stage requires approvals: then verification needs
  // sealed approvals with result Approved in the registry (ApprovalsMissing otherwise).
  bool approvals_required = false;
  // A rollback (published with --release N): Release N of the same Space, whose artifact an
  // OCI Target deploys again, after verifying it in the registry as it verifies every artifact,
  // instead of pushing a new one (the bundle is N's, byte for byte). Empty release_id when the
  // Release is no rollback. Other providers ignore it.
  struct Earlier {
    std::string release_id;
    int64_t release_num = 0;
    std::string change_order;
    bool approvals_required = false;
  };
  Earlier rollback_of;
  // change_order, bundle_digest, author and author_email must not contain CR, LF or NUL: they
  // become lines of the Git commit message; a line break would let a value forge a trailer.
  // The description may span lines; a line of it that looks like a trailer is not one (git.cc
  // places trailers after it).
};

// What Deliver did for one Release.
struct DeliveredRelease {
  std::string release_id;
  // Directory: the absolute directory written, <path>/<space>.
  // Git: the Space's directory inside the repository, relative to its root (the `path` param
  // with {space} replaced), e.g. "clusters/prod". This is what an Argo CD Application's
  // source.path or a Flux Kustomization's spec.path names.
  std::string location;
  // Git: the commit that holds the Release's files (40 hex digits): the new commit, the one an
  // earlier call made for it (found_earlier), or, when the batch changed nothing, the branch's
  // tip. Directory: empty.
  std::string commit;
  // The Target already held it, from an earlier Deliver of the same Release that was not
  // recorded (cubd stopped in between); nothing was written for it this time.
  bool found_earlier = false;
  // OCI: the artifact manifest's digest and the reference pushed ("HOST/PATH:TAG").
  std::string artifact_digest;
  std::string artifact_ref;
  // OCI: the verification of the artifact's evidence, read back from the registry before the
  // Space's deploy tag was moved to it. reason "Verified" or one of the refusals of
  // v1::ReleaseVerification; the deploy tag moves only when Verified. Empty for other
  // providers.
  std::string verification_reason;
  std::string verification_message;
  std::string verification_key_id;
  // Clusters whose Argo CD Application cub left alone (a pre-existing one without the opt-in
  // annotation): "cluster" -> message. Git with the clusters param only.
  std::map<std::string, std::string> held_clusters;
};

// What a Deliver call did.
struct DeliveryResult {
  // One per Delivery of the batch, in the batch's order.
  std::vector<DeliveredRelease> releases;
  // Git: the commit this call made, empty when it made none (everything found earlier, or the
  // tree unchanged).
  std::string new_commit;
  // Git: true when a commit was pushed to the repository URL.
  bool pushed = false;
};

class Provider {
 public:
  virtual ~Provider() = default;

  // Puts every Release of `batch` in place, in order (a later Release of the same Space wins),
  // as one change: Git makes at most one commit. For each Space it writes the bundle's files and
  // the manifest, and removes the files the old manifest lists that the bundle lacks. Releases
  // found already delivered by an earlier call are reported (found_earlier) and not written
  // again. Blocks while another Deliver to the same location runs (in this process or, through
  // the lock file, in another). Thread-safe.
  //
  // Errors (messages name the path or repository and carry the system's or libgit2's text):
  //   INVALID_ARGUMENT     a Delivery breaks the contracts above; nothing was written.
  //   ABORTED              Git: someone else moved the branch while this Deliver ran (the local
  //                        ref changed under it, or the remote rejected the push as not a
  //                        fast-forward). Nothing was published; calling Deliver again is safe.
  //   UNAVAILABLE          Git: the remote cannot be fetched from or pushed to (unreachable,
  //                        credentials refused, host key unknown), or the local branch ref is
  //                        locked (<ref>.lock exists). Nothing was published.
  //   FAILED_PRECONDITION  Directory: <path>/<space> exists and is not a directory. Git: the
  //                        local repository path exists and is neither empty nor a repository;
  //                        a credential file is missing or readable by others.
  //   INTERNAL             file system and other libgit2 failures. One case leaves a result
  //                        behind: Git to a local non-bare repository whose HEAD is the branch,
  //                        when the commit was made but the work tree could not be updated; the
  //                        message names the commit, and the next Deliver repairs the work tree.
  // Directory writes file by file, so other errors may leave some of the batch written; a retry
  // writes it all again.
  virtual absl::StatusOr<DeliveryResult> Deliver(const std::vector<Delivery>& batch) = 0;

  // The Release of `space` that commit `commit` (40 hex digits, or a Flux revision
  // "<branch>@sha1:<hex>") deploys. Walking from the commit back through its ancestors, the
  // first commit that names a Release of the Space in a Cub-Release trailer or that `recorded`
  // lists decides: of the Releases it names or is recorded for, the highest-numbered one.
  // `recorded` is what cubd recorded of the Space's delivered Releases; it matters for a Release
  // that changed nothing, which has no commit of its own (DeliveredRelease::commit is the tip
  // then). Returns the Release's ID; nullopt when no commit there names one (within
  // kMaxHistoryWalk commits, lib/targets/git_history.h).
  // INVALID_ARGUMENT for another form of `commit`; NOT_FOUND when the repository has no such
  // commit (a remote's clone is fetched first); UNIMPLEMENTED for providers that keep no history
  // (Directory, the default).
  struct Recorded {
    std::string release_id;
    int64_t release_num = 0;
    std::string commit;  // 40 hex digits
  };
  virtual absl::StatusOr<std::optional<std::string>> ReleaseAt(
      const std::string& commit, const std::string& space, const std::vector<Recorded>& recorded);
};

// Signs Git commits (lib/targets/commit_signer.h).
class CommitSigner;

}  // namespace cub::targets

namespace cub::sign {
class KeyRing;  // lib/sign/key_ring.h
}  // namespace cub::sign

namespace cub::oci {
class VerificationCache;  // lib/oci/verify.h
}  // namespace cub::oci

namespace cub::targets {

// What providers need of the server, the same for every Target.
struct ProviderEnv {
  // A directory cubd owns (created when needed): a Git provider keeps lock files in
  // <work_dir>/locks/ and clones of remote repositories in <work_dir>/git/<sha256 of the URL>/.
  // Must be absolute for Git.
  std::string work_dir;
  // Where the credential files a Git Target's params name are (`cubd serve
  // --git-credentials-dir`). A Target names a file by a plain name inside it, never by a path,
  // so whoever may create a Target cannot make cubd send any other file to a remote. Empty: no
  // Target may name credentials.
  std::string credentials_dir;
  // Signs every commit when set (`cubd serve --git-signing-key`); unsigned commits when null.
  std::shared_ptr<const CommitSigner> signer;
  // The commits' committer.
  std::string committer_name = "cubd";
  std::string committer_email = "cubd@localhost";
  // The keys that sign OCI evidence and verify it when read back (null: an OCI Target refuses
  // to deliver, FAILED_PRECONDITION).
  std::shared_ptr<sign::KeyRing> keys;
  // OCI: verification results kept across deliveries (null: none kept).
  std::shared_ptr<oci::VerificationCache> verifications;
};

// Checks a Target's provider name and params without touching the file system or network.
// Providers are "Directory" and "Git" (exact case). Every param must be known, and required ones
// present and non-empty:
//   Directory: path (required, absolute).
//   Git: repository (required: an absolute local path, or a file://, https://, ssh:// or
//        git@host:path URL, or http:// to a loopback address), branch (optional, default "main";
//        a valid Git branch name), path (optional, default "{space}"; relative, '/'-separated,
//        no empty, ".", ".." or ".git" components, so it cannot leave the repository or reach
//        into its metadata; "{space}" is the only placeholder, and may appear anywhere, or not
//        at all: a path without it puts every Space delivering to the repository into one
//        directory, which is right only for a repository (or branch) per Space), the params
//        git.cc documents for credentials and layout, and clusters, namespace and project
//        (checked by argocd::ValidateParams).
// Errors: INVALID_ARGUMENT naming the provider and param, e.g.
//   "Git target: unknown param 'repo'; known: repository, branch, path, ...".
absl::Status ValidateParams(std::string_view provider,
                            const std::map<std::string, std::string>& params);

// Makes the provider after ValidateParams(provider, params). A Git provider needs a non-empty,
// absolute env.work_dir (INVALID_ARGUMENT otherwise). Touches nothing on disk: a repository that
// does not exist yet is only created by the first Deliver, and credential files are read by
// each Deliver (so a rotated token is used at once).
absl::StatusOr<std::unique_ptr<Provider>> MakeProvider(
    std::string_view provider, const std::map<std::string, std::string>& params,
    const ProviderEnv& env);

}  // namespace cub::targets

#endif  // CUB_LIB_TARGETS_PROVIDER_H_
