// The ProviderEnv cubd hands every Target's provider, from `cubd serve`'s flags:
//   --work-dir DIR              (made absolute)
//   --git-credentials-dir DIR   where Git Targets' credential files are (must be a directory)
//   --git-signing-key FILE      SSH Ed25519 key that signs every Git commit (CommitSigner)
//   --git-committer 'NAME <EMAIL>'  the commits' committer (default "cubd <cubd@localhost>")
// Errors name the flag: INVALID_ARGUMENT for a malformed value, and CommitSigner::FromFile's
// errors (NOT_FOUND, FAILED_PRECONDITION, INVALID_ARGUMENT) for the key.
#ifndef CUB_LIB_OPS_TARGET_ENV_H_
#define CUB_LIB_OPS_TARGET_ENV_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "cub/v1/release.pb.h"
#include "lib/targets/provider.h"

namespace cub::ops {

struct TargetEnvFlags {
  std::string work_dir;         // required
  std::string credentials_dir;  // empty: Targets may name no credentials
  std::string signing_key;      // empty: unsigned commits
  std::string committer;        // empty: the default
};

absl::StatusOr<targets::ProviderEnv> MakeTargetEnv(const TargetEnvFlags& flags);

// "NAME <EMAIL>" split in two: NAME non-empty (surrounding spaces dropped), EMAIL non-empty,
// neither with '<', '>', or control characters (Git's signature rules).
absl::Status ParseCommitter(std::string_view text, std::string* name, std::string* email);

// The ProviderEnv for one Target: `base` with its credentials directory narrowed to
// <credentials_dir>/<the Target's Space>/. A Target's credential params name files there only,
// so the admin of one Space can use no other Space's tokens or keys (and cannot send them to a
// host of their choosing). Space slugs never contain '/' and never start with '.'.
targets::ProviderEnv ProviderEnvFor(const targets::ProviderEnv& base, const v1::Target& target);

// The public key (authorized_keys form) of the signer in `env`, empty when none: for the
// allowed-signers line cubd logs at start.
std::string SignerPublicKey(const targets::ProviderEnv& env);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_TARGET_ENV_H_
