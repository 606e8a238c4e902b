// Silent refresh of a saved OpenID login: before a command calls cubd with the ID token of a
// context made by `cub auth login --oidc`, a token that expires within a minute (or already
// has) is replaced by a fresh one from the provider's token endpoint, with the context's
// refresh token, and both are saved back into the config file.
//
// Only a context's token is ever refreshed: one given by --token or CUB_TOKEN is sent as it is.
// The config file may be shared by concurrent cub processes; the refresh runs under the file's
// lock (UpdateContext in config.h) and first re-reads the context, so a process that finds the
// token already refreshed by another uses that one instead of spending the refresh token again
// (a provider that rotates refresh tokens would take a second use as a replay).
#ifndef CUB_CLI_OIDC_REFRESH_H_
#define CUB_CLI_OIDC_REFRESH_H_

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "cli/client.h"

namespace cub::cli {

// How long before its expiry an ID token is refreshed.
inline constexpr absl::Duration kRefreshMargin = absl::Seconds(60);

// Refreshes `connection->token` when the connection came from an OIDC context and the token
// expires before now + kRefreshMargin (a token whose exp cannot be read counts as expired).
// On failure: FAILED_PRECONDITION "the login at ISSUER expired; run `cub auth login --oidc
// --server S` again (REASON)"; nothing is saved.
absl::Status RefreshIfExpiring(Connection* connection, absl::Time now);

}  // namespace cub::cli

#endif  // CUB_CLI_OIDC_REFRESH_H_
