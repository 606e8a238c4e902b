// The cub CLI's config file: named contexts (server address, token, TLS settings) and which one
// is current. `cub auth login` writes it; every other command reads it when --server/--token
// and CUB_SERVER/CUB_TOKEN leave something unset.
//
// Location: $CUB_CONFIG, else $XDG_CONFIG_HOME/cub/config.json, else ~/.config/cub/config.json.
// Format (JSON, PascalCase like the API; unknown fields are ignored):
//
//   {"CurrentContext": "prod",
//    "Contexts": {"prod": {"Server": "cubd.example.com:443", "Token": "...",
//                          "TlsCa": "/etc/cub/ca.pem", "Tls": true, "Space": "acme-prod"},
//                 "dev": {"Server": "...", "Token": "<ID token>", "OidcIssuer": "https://idp",
//                         "OidcClientID": "cub-cli", "RefreshToken": "...",
//                         "OidcCaFile": "/etc/cub/idp-ca.pem"}}}
//
// Space (optional) is the Space commands work in when they are given no --space; `cub context
// set --space` writes it. User (optional) is the user name `cub auth login` saw. Files written
// before these existed simply have none.
// TlsCa is a CA bundle path to verify the server with; Tls (without TlsCa) means TLS with the
// system roots. A context made by `cub auth login --oidc` also names the OpenID provider and
// client it logged in with and keeps the provider's refresh token; its Token is then the
// provider's ID token, refreshed when it is about to expire. The file holds tokens, so it is
// written with mode 0600, atomically (temporary file + rename) so a crash never leaves half a
// config behind.
#ifndef CUB_CLI_CONFIG_H_
#define CUB_CLI_CONFIG_H_

#include <functional>
#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::cli {

struct ContextConfig {
  std::string server;
  std::string token;
  std::string tls_ca;
  bool tls = false;
  // Set by `cub auth login --oidc`; empty for a context holding one of cub's own tokens.
  std::string oidc_issuer;
  std::string oidc_client_id;
  std::string refresh_token;
  std::string oidc_ca_file;  // PEM bundle to verify the provider with; empty: the system roots
  // The default for --space (`cub context set --space`); empty: none.
  std::string space;
  // Who the token belonged to when `cub auth login` saved it (shown by `cub context list`).
  std::string user;
};

struct CliConfig {
  std::string current_context;
  std::map<std::string, ContextConfig> contexts;
};

// Where the config file lives, from the environment (see above). Empty only if neither
// CUB_CONFIG, XDG_CONFIG_HOME nor a home directory can be found.
std::string ConfigPath();

// Parses config file text. Errors name what is wrong, not the path.
absl::StatusOr<CliConfig> ParseConfig(const std::string& text);
// The file's JSON text (pretty, two-space indents, trailing newline).
std::string FormatConfig(const CliConfig& config);

// Reads `path`; a file that does not exist is an empty config, not an error.
absl::StatusOr<CliConfig> LoadConfig(const std::string& path);
// Writes `path` with mode 0600, creating its directory (mode 0700) if needed.
absl::Status SaveConfig(const std::string& path, const CliConfig& config);

// Edits the file at `path` as it is now on disk, under an exclusive lock on PATH.lock: re-reads
// it, calls `edit` and, when it returns true, writes it atomically before the lock is released.
// An error from `edit` is returned as it is, with nothing written.
absl::Status UpdateConfig(const std::string& path,
                          const std::function<absl::StatusOr<bool>(CliConfig&)>& edit);

// Edits context `name` of the file at `path` as it is now on disk (another cub process may have
// changed it since this one read it): takes an exclusive lock on PATH.lock, re-reads, calls
// `edit` on the context and, when it returns true, writes the file atomically, all under the
// lock. Concurrent cub processes refreshing the same login thus do it one after the other, and
// the second sees the first one's tokens. NOT_FOUND when the context is not in the file; an
// error from `edit` is returned as it is, with nothing written.
absl::Status UpdateContext(const std::string& path, const std::string& name,
                           const std::function<absl::StatusOr<bool>(ContextConfig&)>& edit);

// UpdateContext setting the context's Token, and its RefreshToken unless `refresh_token` is empty
// (a provider that does not rotate refresh tokens returns none on refresh).
absl::Status SaveContextTokens(const std::string& path, const std::string& name,
                               const std::string& token, const std::string& refresh_token);

}  // namespace cub::cli

#endif  // CUB_CLI_CONFIG_H_
