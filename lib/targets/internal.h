// Pieces shared by the providers of lib/targets. Internal to lib/targets.

#ifndef CUB_LIB_TARGETS_INTERNAL_H_
#define CUB_LIB_TARGETS_INTERNAL_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/targets/provider.h"

// libgit2's, declared here so that only the .cc files include <git2.h>.
struct git_remote_callbacks;

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
                                          const ProviderEnv& env);

// The Git provider's checks of its params (repository, branch, path), called by ValidateParams.
absl::Status ValidateGitParams(const std::map<std::string, std::string>& params);

// How a Git Target logs in to its remote (git_auth.cc), from its params:
//   username=NAME          HTTPS user name (default "x-access-token", which GitHub and Gitea
//                          accept with a token; GitLab wants "oauth2"). http(s) URLs carry no
//                          user: a token is often put there, and would be stored in clear.
//   password-file=FILE     HTTPS password or token: the first line of FILE.
//   ssh-key-file=FILE      SSH private key (OpenSSH or PEM form, unencrypted); the user is the
//                          URL's (git@host:path, ssh://user@host/path), else "git".
//   known-hosts-file=FILE  OpenSSH known_hosts lines (lib/targets/known_hosts.h); required with
//                          ssh-key-file. The server's host key must be listed for the host
//                          ("[host]:port" for a port other than 22), or the connection is
//                          refused; a repository reached over SSH without this file is refused
//                          too, since its host cannot be checked.
// FILE is a plain file name inside ProviderEnv::credentials_dir, never a path. Files are read at
// each Deliver; password-file and ssh-key-file must not be readable by others, known-hosts-file
// (not a secret) must not be writable by others.
struct GitAuth {
  std::string repository;        // the Target's URL, for messages
  bool ssh = false;              // ssh:// or git@host:path
  std::string known_host_name;   // SSH: the server's name in known_hosts form
  std::string username;          // HTTPS: the user to log in as
  std::string password_file;     // absolute, inside credentials_dir; empty: none
  std::string ssh_key_file;      // absolute; empty: none
  std::string known_hosts_file;  // absolute; empty: none
};
// The credential params Git accepts, for ValidateParams' list of known params.
const std::vector<std::string>& GitAuthParamNames();
// Checks the credential params (plain file names, ssh-key-file with known-hosts-file, HTTPS
// params only with an https:// or http:// URL, SSH ones only with ssh:// or git@) and that the
// URL carries no password. INVALID_ARGUMENT naming the param.
absl::Status ValidateGitAuthParams(const std::map<std::string, std::string>& params);
// Is `url` http:// to a loopback address literal (127.0.0.0/8 or [::1])? The only http:// a
// Git Target may name: a test server on the same machine; anything else must be https.
bool IsLoopbackHttpUrl(const std::string& url);
// The GitAuth of `params`, files resolved inside env.credentials_dir. FAILED_PRECONDITION when a
// param names a credential file and env.credentials_dir is empty.
absl::StatusOr<GitAuth> GitAuthOf(const std::map<std::string, std::string>& params,
                                  const ProviderEnv& env);
// What InstallRemoteAuth's callbacks use; callbacks->payload points at it. Other callbacks the
// caller installs (push_update_reference) find their own payload in `user`.
class RemoteAuthPayload {
 public:
  virtual ~RemoteAuthPayload() = default;
  void* user = nullptr;
};
// Sets `callbacks`' credentials and certificate_check callbacks (and payload) for `auth`, with
// the returned payload (which must outlive the fetch or push) holding what they need. Reads the
// files now, so a missing or world-readable one fails here (FAILED_PRECONDITION naming it),
// before any network traffic. The callbacks refuse with a message (libgit2's error text
// afterwards) naming the host, the key's fingerprint or the user and file refused.
absl::StatusOr<std::unique_ptr<RemoteAuthPayload>> InstallRemoteAuth(
    const GitAuth& auth, git_remote_callbacks* callbacks);

// Git `path` template with every "{space}" replaced by `space`.
std::string ExpandPathTemplate(const std::string& tmpl, const std::string& space);

// Checks a relative '/'-separated path inside a repository: non-empty, not absolute, no empty,
// ".", ".." or ".git" (any case) component. `what` leads the error message.
absl::Status ValidateRepoRelativePath(const std::string& what, const std::string& path);

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_INTERNAL_H_
