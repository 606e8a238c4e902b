// Provider::ReleaseAt for Git: from a deployed commit back to the Release of a Space it carries.
//
// The walk is our own, newest first by commit time: libgit2's revwalk, once sorted, first reads
// the whole history (and orders commits of the same second arbitrarily), and unsorted it gives
// no order at all. A parent is only queued once a child was read, so on cub's linear branch this
// is exactly the branch from the commit back; across a merge it takes the newest of either
// side.

#include "lib/targets/git_history.h"

#include <git2.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/targets/git_message.h"
#include "lib/targets/internal.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::targets {
namespace {

namespace fs = std::filesystem;

// A report naming a commit the clone lacks makes cubd fetch; a caller looping over made-up
// commits would otherwise keep the Target's lock (and the network) busy. So after a fetch that
// did not bring the commit, the repository is not fetched for reports again for
// kReportFetchQuietSeconds; a fetch that found its commit starts no quiet time.
constexpr int kReportFetchQuietSeconds = 10;

std::mutex report_fetch_mu;
std::map<std::string, std::chrono::steady_clock::time_point>& MissedFetches() {
  static auto* missed = new std::map<std::string, std::chrono::steady_clock::time_point>();
  return *missed;
}

// Whether a report may fetch `repository` now.
bool ReportFetchAllowed(const std::string& repository) {
  std::lock_guard<std::mutex> hold(report_fetch_mu);
  auto it = MissedFetches().find(repository);
  return it == MissedFetches().end() || std::chrono::steady_clock::now() - it->second >=
                                            std::chrono::seconds(kReportFetchQuietSeconds);
}

void NoteReportFetchMissed(const std::string& repository) {
  std::lock_guard<std::mutex> hold(report_fetch_mu);
  MissedFetches()[repository] = std::chrono::steady_clock::now();
}

bool IsHex(const std::string& s) {
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::string> ParseDeployedCommit(const std::string& revision) {
  constexpr size_t kHex = 40;
  std::string hex;
  if (revision.size() == kHex) {
    hex = revision;
  } else if (size_t at = revision.rfind("sha1:"); at != std::string::npos &&
                                                  (at == 0 || revision[at - 1] == '@') &&
                                                  revision.size() == at + 5 + kHex) {
    hex = revision.substr(at + 5);
  } else if (revision.size() > kHex + 1 && revision[revision.size() - kHex - 1] == '/') {
    hex = revision.substr(revision.size() - kHex);
  }
  if (hex.size() != kHex || !IsHex(hex)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Commit '", revision,
        "' is neither a Git commit id (40 hex digits) nor a Flux revision ('<branch>@sha1:<40 hex "
        "digits>', or before Flux 2.0 '<branch>/<40 hex digits>')"));
  }
  return absl::AsciiStrToLower(hex);
}

namespace internal {
namespace {

template <typename T, void (*Free)(T*)>
struct GitFree {
  void operator()(T* p) const {
    if (p != nullptr) Free(p);
  }
};
using RepoPtr = std::unique_ptr<git_repository, GitFree<git_repository, git_repository_free>>;
using CommitPtr = std::unique_ptr<git_commit, GitFree<git_commit, git_commit_free>>;
using RemotePtr = std::unique_ptr<git_remote, GitFree<git_remote, git_remote_free>>;

void InitLibgit2Once() {
  static std::once_flag once;
  std::call_once(once, [] { git_libgit2_init(); });
}

std::string GitErrorText() {
  const git_error* e = git_error_last();
  return e != nullptr && e->message != nullptr ? e->message : "unknown libgit2 error";
}

class History {
 public:
  History(const GitHistorySource& source, std::string commit)
      : src_(source), commit_(std::move(commit)) {}

  absl::StatusOr<std::optional<std::string>> ReleaseOf(
      const std::string& space, const std::vector<Provider::Recorded>& recorded) {
    InitLibgit2Once();
    if (git_oid_fromstr(&oid_, commit_.c_str()) != 0) return Internal("cannot parse the commit");
    bool have = false;
    if (!src_.is_url) {
      CUB_RETURN_IF_ERROR(OpenLocal());
      CUB_ASSIGN_OR_RETURN(have, HasCommit());
    } else {
      // Reading needs no lock. Writing the clone (making it, fetching) happens only under the
      // Target's lock, as every Deliver writes it: Deliver takes any lock file it finds there
      // for a dead writer's.
      CUB_ASSIGN_OR_RETURN(bool opened, OpenClone(/*may_repair=*/false));
      if (opened) {
        CUB_ASSIGN_OR_RETURN(have, HasCommit());
      }
      if (!have && !ReportFetchAllowed(src_.repository)) {
        return absl::NotFoundError(absl::StrCat(Prefix(), "no commit ", commit_,
                                                " in cubd's clone, and a fetch for another such "
                                                "report found nothing less than ",
                                                kReportFetchQuietSeconds,
                                                " s ago; report again later"));
      }
      if (!have) {
        CUB_ASSIGN_OR_RETURN(auto lock, LockTarget());
        CUB_RETURN_IF_ERROR(OpenClone(/*may_repair=*/true).status());
        CUB_ASSIGN_OR_RETURN(have, HasCommit());  // a Deliver may have fetched it meanwhile
        if (!have) {
          CUB_RETURN_IF_ERROR(FetchBranch());
          CUB_ASSIGN_OR_RETURN(have, HasCommit());
          if (!have) NoteReportFetchMissed(src_.repository);
        }
      }
    }
    if (!have) {
      return absl::NotFoundError(absl::StrCat(
          Prefix(), "no commit ", commit_,
          src_.is_url ? absl::StrCat(" (not even after fetching branch ", src_.branch, ")") : ""));
    }
    return Walk(space, recorded);
  }

 private:
  std::string Prefix() const { return absl::StrCat("Git target ", src_.repository, ": "); }
  absl::Status Internal(const std::string& what) const {
    return absl::InternalError(absl::StrCat(Prefix(), what, ": ", GitErrorText()));
  }

  absl::Status OpenLocal() {
    git_repository* r = nullptr;
    int rc = git_repository_open_ext(&r, src_.repository.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH,
                                     nullptr);
    if (rc == GIT_ENOTFOUND) {
      return absl::NotFoundError(absl::StrCat(Prefix(), "there is no repository at ",
                                              src_.repository, ", so no commit ", commit_));
    }
    if (rc != 0) return Internal("cannot open the repository");
    repo_.reset(r);
    return absl::OkStatus();
  }

  // The lock Deliver holds while it writes the clone (git.cc's LockRepository).
  absl::StatusOr<std::unique_ptr<LocationLock>> LockTarget() const {
    std::error_code ec;
    const std::string locks = src_.work_dir + "/locks";
    fs::create_directories(locks, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat(Prefix(), "cannot create ", locks, ": ", ec.message()));
    }
    const std::string key = "git:" + src_.repository;
    return LocationLock::Acquire(key, absl::StrCat(locks, "/", Sha256Hex(key), ".lock"));
  }

  // Opens cubd's clone of the URL, as git.cc keeps it: complete once `cub-target-url` names the
  // URL. Without `may_repair` (no lock held) returns false when there is no complete clone;
  // with it (under LockTarget) makes one the way git.cc does, starting over from a half-made
  // one (it only holds what the remote has), URL file last.
  absl::StatusOr<bool> OpenClone(bool may_repair) {
    const std::string dir = absl::StrCat(src_.work_dir, "/git/", Sha256Hex(src_.repository));
    const std::string url_file = dir + "/cub-target-url";
    git_repository* r = nullptr;
    std::error_code ec;
    repo_.reset();
    if (fs::exists(dir, ec)) {
      std::ifstream in(url_file);
      std::string url;
      if (std::getline(in, url) && url == src_.repository &&
          git_repository_open_ext(&r, dir.c_str(), GIT_REPOSITORY_OPEN_NO_SEARCH, nullptr) == 0) {
        repo_.reset(r);
        return true;
      }
      if (!may_repair) return false;
      fs::remove_all(dir, ec);
      if (ec) {
        return absl::InternalError(
            absl::StrCat(Prefix(), "cannot remove the broken clone ", dir, ": ", ec.message()));
      }
    }
    if (!may_repair) return false;
    git_repository_init_options o;
    git_repository_init_options_init(&o, GIT_REPOSITORY_INIT_OPTIONS_VERSION);
    o.flags = GIT_REPOSITORY_INIT_MKPATH | GIT_REPOSITORY_INIT_BARE;
    if (git_repository_init_ext(&r, dir.c_str(), &o) != 0) {
      return Internal(absl::StrCat("cannot initialize the clone in ", dir));
    }
    repo_.reset(r);
    std::ofstream out(url_file, std::ios::trunc);
    out << src_.repository << "\n";
    out.close();
    if (!out) return absl::InternalError(absl::StrCat(Prefix(), "cannot write ", url_file));
    return true;
  }

  absl::StatusOr<bool> HasCommit() const {
    git_commit* c = nullptr;
    int rc = git_commit_lookup(&c, repo_.get(), &oid_);
    CommitPtr owned(c);
    if (rc == GIT_ENOTFOUND) return false;
    if (rc != 0) return Internal(absl::StrCat("cannot read commit ", commit_));
    return true;
  }

  // Under LockTarget. Into a ref of its own, and without FETCH_HEAD: Deliver's
  // refs/remotes/origin/<branch> is what it builds on, and is its business.
  absl::Status FetchBranch() {
    // A lock file of our ref now is a dead report's (we hold the Target's lock).
    std::error_code ec;
    fs::remove(
        absl::StrCat(git_repository_path(repo_.get()), "refs/cub/reported/", src_.branch, ".lock"),
        ec);
    git_remote_create_options ro;
    git_remote_create_options_init(&ro, GIT_REMOTE_CREATE_OPTIONS_VERSION);
    ro.repository = repo_.get();
    ro.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF | GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
    git_remote* rm = nullptr;
    if (git_remote_create_with_opts(&rm, src_.repository.c_str(), &ro) != 0) {
      return Internal("cannot use the remote");
    }
    RemotePtr remote(rm);
    git_fetch_options fo;
    git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
    // No redirects: a redirect could carry the Target's credentials to another host.
    fo.follow_redirects = GIT_REMOTE_REDIRECT_NONE;
    fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
    fo.update_fetchhead = 0;
    std::shared_ptr<void> auth;
    if (src_.install_auth) {
      CUB_ASSIGN_OR_RETURN(auth, src_.install_auth(&fo.callbacks));
    }
    std::string spec =
        absl::StrCat("+refs/heads/", src_.branch, ":refs/cub/reported/", src_.branch);
    char* specs[] = {spec.data()};
    git_strarray arr{specs, 1};
    if (git_remote_fetch(remote.get(), &arr, &fo, "cubd: fetch for a status report") != 0) {
      return absl::UnavailableError(absl::StrCat(Prefix(), "cannot fetch branch ", src_.branch,
                                                 " to look for commit ", commit_, ": ",
                                                 GitErrorText()));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::optional<std::string>> Walk(
      const std::string& space, const std::vector<Provider::Recorded>& recorded) const {
    // Per commit, the highest-numbered Release cubd recorded there.
    std::map<std::string, const Provider::Recorded*> by_commit;
    for (const Provider::Recorded& r : recorded) {
      const Provider::Recorded*& best = by_commit[absl::AsciiStrToLower(r.commit)];
      if (best == nullptr || r.release_num > best->release_num) best = &r;
    }
    // Newest first by commit time; among equal times, first queued first, so a commit made in
    // the same second as its parent still comes before it.
    struct Item {
      int64_t time;
      uint64_t seq;
      std::shared_ptr<git_commit> commit;
    };
    auto later = [](const Item& a, const Item& b) {
      return a.time != b.time ? a.time < b.time : a.seq > b.seq;
    };
    std::priority_queue<Item, std::vector<Item>, decltype(later)> queue(later);
    std::set<std::string> queued;
    uint64_t seq = 0;
    auto enqueue = [&](git_commit* c) {
      std::shared_ptr<git_commit> owned(c, git_commit_free);
      char hex[GIT_OID_HEXSZ + 1];
      git_oid_tostr(hex, sizeof hex, git_commit_id(c));
      if (!queued.insert(hex).second) return;
      queue.push({static_cast<int64_t>(git_commit_time(c)), seq++, std::move(owned)});
    };
    git_commit* start = nullptr;
    if (git_commit_lookup(&start, repo_.get(), &oid_) != 0) {
      return Internal(absl::StrCat("cannot read commit ", commit_));
    }
    enqueue(start);
    for (int read = 0; read < kMaxHistoryWalk && !queue.empty(); ++read) {
      std::shared_ptr<git_commit> commit = queue.top().commit;
      queue.pop();
      std::optional<std::string> found;
      int64_t found_num = 0;
      auto consider = [&](const std::string& release_id, int64_t num) {
        if (!found || num > found_num) {
          found = release_id;
          found_num = num;
        }
      };
      const char* message = git_commit_message(commit.get());
      for (const CubReleaseTrailer& t :
           ParseCubReleaseTrailers(message != nullptr ? message : "")) {
        if (t.space == space) consider(t.release_id, t.release_num);
      }
      char hex[GIT_OID_HEXSZ + 1];
      git_oid_tostr(hex, sizeof hex, git_commit_id(commit.get()));
      if (auto it = by_commit.find(hex); it != by_commit.end()) {
        consider(it->second->release_id, it->second->release_num);
      }
      if (found) return found;
      for (unsigned i = 0, n = git_commit_parentcount(commit.get()); i < n; ++i) {
        git_commit* parent = nullptr;
        if (git_commit_parent(&parent, commit.get(), i) != 0) {
          return Internal(absl::StrCat("cannot read an ancestor of commit ", commit_));
        }
        enqueue(parent);
      }
    }
    return std::optional<std::string>();
  }

  const GitHistorySource& src_;
  const std::string commit_;
  git_oid oid_{};
  RepoPtr repo_;
};

}  // namespace

absl::StatusOr<std::optional<std::string>> GitReleaseAt(
    const GitHistorySource& source, const std::string& revision, const std::string& space,
    const std::vector<Provider::Recorded>& recorded) {
  CUB_ASSIGN_OR_RETURN(std::string commit, ParseDeployedCommit(revision));
  History h(source, std::move(commit));
  return h.ReleaseOf(space, recorded);
}

}  // namespace internal
}  // namespace cub::targets
