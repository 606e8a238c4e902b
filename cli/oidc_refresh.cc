// Silent refresh of a saved OpenID login. See oidc_refresh.h.
#include "cli/oidc_refresh.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/config.h"
#include "cli/oidc_login.h"

namespace cub::cli {
namespace {

// Whether `token` is still good at `now` plus the margin.
bool Fresh(const std::string& token, absl::Time now) {
  absl::StatusOr<absl::Time> exp = oidc::TokenExpiry(token);
  return exp.ok() && *exp - now > kRefreshMargin;
}

}  // namespace

absl::Status RefreshIfExpiring(Connection* connection, absl::Time now) {
  Connection& c = *connection;
  if (c.context.empty() || c.refresh_token.empty() || Fresh(c.token, now)) {
    return absl::OkStatus();
  }
  std::string token = c.token;
  const absl::Status status =
      UpdateContext(ConfigPath(), c.context, [&](ContextConfig& ctx) -> absl::StatusOr<bool> {
        if (ctx.token != c.token && Fresh(ctx.token, absl::Now())) {
          token = ctx.token;  // Another cub process refreshed it meanwhile.
          return false;
        }
        if (ctx.refresh_token.empty()) {
          return absl::FailedPreconditionError("the context has no refresh token any more");
        }
        oidc::LoginClient client;
        client.issuer = ctx.oidc_issuer;
        client.client_id = ctx.oidc_client_id;
        client.ca_file = ctx.oidc_ca_file;
        absl::StatusOr<oidc::ProviderEndpoints> endpoints = oidc::Discover(client);
        if (!endpoints.ok()) return endpoints.status();
        absl::StatusOr<oidc::Tokens> tokens = oidc::Refresh(*endpoints, client, ctx.refresh_token);
        if (!tokens.ok()) return tokens.status();
        ctx.token = tokens->id_token;
        ctx.refresh_token = tokens->refresh_token;
        token = tokens->id_token;
        return true;
      });
  if (!status.ok()) {
    const std::string context_flag =
        c.context == c.server ? "" : absl::StrCat(" --context ", c.context);
    return absl::FailedPreconditionError(absl::StrCat(
        "the login at ", c.oidc_issuer, " expired; run `cub auth login --oidc --server ", c.server,
        context_flag, "` again (", status.message(), ")"));
  }
  c.token = token;
  return absl::OkStatus();
}

}  // namespace cub::cli
