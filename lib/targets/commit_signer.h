// Signing of the Git commits cubd makes, in the format Git calls gpg.format=ssh: an SSH
// signature (OpenSSH's SSHSIG, namespace "git", SHA-512) in the commit's gpgsig header, which
// `git verify-commit` checks given an allowed-signers file (gpg.ssh.allowedSignersFile).
//
// The key is an unencrypted Ed25519 private key in OpenSSH's format (what `ssh-keygen -t ed25519
// -N ''` writes), read once when cubd starts (`cubd serve --git-signing-key FILE`). The file must
// not be readable by others (group-readable is accepted, for a Kubernetes Secret mounted with
// fsGroup).
//
// Thread-safety: immutable once made; Sign may be called from any number of threads.
#ifndef CUB_LIB_TARGETS_COMMIT_SIGNER_H_
#define CUB_LIB_TARGETS_COMMIT_SIGNER_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cub::targets {

class CommitSigner {
 public:
  // Reads the key. INVALID_ARGUMENT naming the file when it is not an unencrypted OpenSSH
  // Ed25519 private key; FAILED_PRECONDITION when it is readable by others; NOT_FOUND when it
  // does not exist.
  static absl::StatusOr<std::unique_ptr<CommitSigner>> FromFile(const std::string& path);
  virtual ~CommitSigner() = default;

  // The armored signature ("-----BEGIN SSH SIGNATURE-----" ... "-----END SSH SIGNATURE-----")
  // of `commit` (the commit object's text, as git_commit_create_buffer makes it).
  virtual absl::StatusOr<std::string> Sign(std::string_view commit) const = 0;
  // The public key in authorized_keys form ("ssh-ed25519 AAAA..."), for an allowed-signers file.
  virtual std::string PublicKey() const = 0;
};

}  // namespace cub::targets

#endif  // CUB_LIB_TARGETS_COMMIT_SIGNER_H_
