// LocationLock: a process-wide mutex per location, then flock on a lock file.

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/targets/internal.h"

namespace cub::targets::internal {
namespace {

// One mutex per location key, made on first use and kept for the life of the process: the
// number of locations is the number of configured Targets, so this stays small, and never
// erasing means a mutex is never destroyed while a thread waits on it.
std::mutex& MutexFor(const std::string& key) {
  static std::mutex registry_mu;
  static auto* registry = new std::map<std::string, std::unique_ptr<std::mutex>>();
  std::lock_guard<std::mutex> g(registry_mu);
  std::unique_ptr<std::mutex>& m = (*registry)[key];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

}  // namespace

absl::StatusOr<std::unique_ptr<LocationLock>> LocationLock::Acquire(const std::string& key,
                                                                    const std::string& lock_file) {
  std::unique_lock<std::mutex> held(MutexFor(key));
  int fd = ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    int err = errno;
    return absl::InternalError(
        absl::StrCat("cannot open lock file ", lock_file, ": ", ErrnoText(err)));
  }
  while (::flock(fd, LOCK_EX) != 0) {
    int err = errno;
    if (err == EINTR) continue;
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot lock ", lock_file, ": ", ErrnoText(err)));
  }
  return std::unique_ptr<LocationLock>(new LocationLock(std::move(held), fd));
}

LocationLock::~LocationLock() {
  // Closing the only descriptor of the open file description releases the flock.
  ::close(fd_);
}

}  // namespace cub::targets::internal
