// A client of the OCI distribution API (v2): what cub needs to push a Release's artifact and
// its evidence to a registry and to read them back before a deploy.
//
// Contract (the spec between lib/targets/oci.cc, lib/oci/evidence.* and the tests):
// - A Registry is bound to one repository "HOST[:PORT]/PATH" (PATH lowercase, '/'-separated
//   components of [a-z0-9._-]; no tag or digest), e.g. "127.0.0.1:5000/cub/acme".
// - Transport: HTTPS verifying the peer (against `ca_file` when set), or plain HTTP when
//   `insecure`. No redirects are followed, except that a blob GET may be answered by a 307 to
//   the same scheme (registries hand out blob storage URLs); no proxy from the environment.
// - Auth: anonymous first; on 401 it answers the WWW-Authenticate challenge: Basic with
//   `auth`, or Bearer (a token fetched from the challenge's realm with `auth` as Basic, cached
//   per scope until it expires). Credentials never appear in errors or logs.
// - Everything read is bounded (`max_manifest_bytes`, a blob's own limit) and checked: a
//   manifest or blob fetched by digest must hash to that digest (DATA_LOSS otherwise).
// - Digests are "sha256:" + 64 lowercase hex digits; others are INVALID_ARGUMENT.
// Errors: UNAVAILABLE "registry HOST: ..." when unreachable, refused (401/403 after the
// challenge), or answering 5xx; INVALID_ARGUMENT for a request the registry rejected as
// malformed (its error code and message quoted); NOT_FOUND only where documented.
//
// Thread-safety: a Registry may be used from one thread at a time; copies share the token
// cache.
#ifndef CUB_LIB_OCI_REGISTRY_H_
#define CUB_LIB_OCI_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::oci {

inline constexpr char kOciManifest[] = "application/vnd.oci.image.manifest.v1+json";
inline constexpr char kOciIndex[] = "application/vnd.oci.image.index.v1+json";

struct RegistryCredentials {
  std::string username;
  std::string password;  // or an identity token
};

// The credentials for `host` ("HOST[:PORT]") in a docker config.json document: an "auths"
// entry keyed by the host (also "https://HOST" or "https://HOST/v1/"), with "auth"
// (base64 of "user:password") or "username" and "password". nullopt when none matches.
// INVALID_ARGUMENT naming the entry when the document or the entry is malformed.
absl::StatusOr<std::optional<RegistryCredentials>> CredentialsFromDockerConfig(
    std::string_view config_json, std::string_view host);

struct RegistryOptions {
  bool insecure = false;  // plain HTTP
  std::string ca_file;    // PEM bundle for TLS; empty: the system's roots
  std::optional<RegistryCredentials> auth;
  absl::Duration timeout = absl::Seconds(30);  // per request
  size_t max_manifest_bytes = 4 << 20;
};

// A content descriptor (OCI image spec).
struct Descriptor {
  std::string media_type;
  std::string digest;
  int64_t size = 0;
  std::string artifact_type;                       // referrers only
  std::map<std::string, std::string> annotations;  // may be empty
};

struct Manifest {
  std::string media_type;  // the Content-Type the registry answered
  std::string digest;      // of `body`
  std::string body;        // exactly the bytes the registry holds
};

class Registry {
 public:
  // Parses and checks `repository`; contacts nothing. INVALID_ARGUMENT naming the value.
  static absl::StatusOr<Registry> Open(std::string_view repository, RegistryOptions options);

  const std::string& host() const;        // "HOST[:PORT]"
  const std::string& repository() const;  // "PATH"

  // Uploads a blob unless the registry has it (HEAD first). `digest` must be its digest.
  absl::Status PutBlob(std::string_view data, const std::string& digest);
  // The blob; NOT_FOUND when absent; RESOURCE_EXHAUSTED beyond max_bytes.
  absl::StatusOr<std::string> GetBlob(const std::string& digest, size_t max_bytes);

  // Stores a manifest under `reference` (a tag, or its own digest). Returns its digest.
  absl::StatusOr<std::string> PutManifest(const std::string& reference,
                                          const std::string& media_type, std::string_view body);
  // The manifest under a tag or digest; nullopt when the registry has none.
  absl::StatusOr<std::optional<Manifest>> GetManifest(const std::string& reference);
  // The digest a tag points at (HEAD), nullopt when the tag does not exist.
  absl::StatusOr<std::optional<std::string>> ResolveTag(const std::string& tag);
  // Removes a manifest by digest (tests, and evidence replaced by a newer one). NOT_FOUND when
  // absent; UNIMPLEMENTED when the registry does not allow deletes.
  absl::Status DeleteManifest(const std::string& digest);

  // The referrers of `digest` through the referrers API (OCI 1.1), filtered by artifact type
  // when `artifact_type` is non-empty. UNIMPLEMENTED when the registry has no referrers API
  // (then evidence is found by its tag, lib/oci/evidence.h).
  absl::StatusOr<std::vector<Descriptor>> Referrers(const std::string& digest,
                                                    const std::string& artifact_type = "");

 private:
  struct State;
  explicit Registry(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// "sha256:" + hex SHA-256 of `data`.
std::string DigestOf(std::string_view data);
// Whether `digest` is "sha256:" followed by 64 lowercase hex digits.
bool IsDigest(std::string_view digest);

}  // namespace cub::oci

#endif  // CUB_LIB_OCI_REGISTRY_H_
