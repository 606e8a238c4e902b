// Pieces shared by the providers of lib/targets. Internal to lib/targets.

#ifndef CUB_LIB_TARGETS_INTERNAL_H_
#define CUB_LIB_TARGETS_INTERNAL_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/targets/provider.h"

namespace cub::targets::internal {

// Checks `d` against the contracts stated in provider.h (space, release_num, names, digest, no
// line breaks in message fields). Returns INVALID_ARGUMENT naming the offending field.
absl::Status ValidateDelivery(const Delivery& d);

// Exclusive ownership of one delivery location, for as long as the object lives: first a
// process-wide mutex for `key` (so threads of this process queue without each holding a file
// descriptor in flock), then flock(LOCK_EX) on `lock_file` (so other processes using the same
// lock file queue too). Both are blocking, without a timeout: a Deliver that hangs (a stuck
// network push) holds up the next one to the same location, never another location.
//
// flock locks are advisory and belong to the open file description; the lock file is created
// (mode 0644) if missing and never removed, since removing it would let a process that already
// opened the old file and one that creates a new one both believe they hold the lock.
class LocationLock {
 public:
  // `key` names the location in this process (e.g. "dir:/srv/deploy/prod"); `lock_file` is the
  // file to flock, whose directory must exist. INTERNAL when the file cannot be opened/locked.
  static absl::StatusOr<std::unique_ptr<LocationLock>> Acquire(const std::string& key,
                                                               const std::string& lock_file);
  ~LocationLock();
  LocationLock(const LocationLock&) = delete;
  LocationLock& operator=(const LocationLock&) = delete;

 private:
  LocationLock(std::unique_lock<std::mutex> held, int fd) : held_(std::move(held)), fd_(fd) {}
  std::unique_lock<std::mutex> held_;
  int fd_;
};

// strerror(errno) as a std::string, for messages.
std::string ErrnoText(int err);

// The providers, made after ValidateParams succeeded for them.
std::unique_ptr<Provider> MakeDirectoryProvider(const std::map<std::string, std::string>& params);
std::unique_ptr<Provider> MakeGitProvider(const std::map<std::string, std::string>& params,
                                          const std::string& work_dir);

// The Git provider's checks of its params (repository, branch, path), called by ValidateParams.
absl::Status ValidateGitParams(const std::map<std::string, std::string>& params);

// Git `path` template with every "{space}" replaced by `space`.
std::string ExpandPathTemplate(const std::string& tmpl, const std::string& space);

// Checks a relative '/'-separated path inside a repository: non-empty, not absolute, no empty,
// ".", ".." or ".git" (any case) component. `what` leads the error message.
absl::Status ValidateRepoRelativePath(const std::string& what, const std::string& path);

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_INTERNAL_H_
