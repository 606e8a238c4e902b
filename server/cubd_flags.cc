#include "server/cubd_flags.h"

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "lib/util/duration_text.h"

namespace cub::server {

namespace {

// CUBD_ and the option's first long name in upper snake case.
std::string EnvNameOf(const CLI::Option& opt) {
  std::string name = "CUBD_";
  for (char c : opt.get_lnames().front()) name += c == '-' ? '_' : absl::ascii_toupper(c);
  return name;
}

void TakeFromEnv(CLI::Option* opt) {
  if (opt->get_lnames().empty() || !opt->get_envname().empty()) return;
  opt->envname(EnvNameOf(*opt));
  // A repeatable flag's variable holds its values separated by commas.
  if (opt->get_expected_max() > 1) opt->delimiter(',');
}

void TakeFromEnv(CLI::App* cmd) {
  for (CLI::Option* opt : cmd->get_options()) {
    if (opt != cmd->get_help_ptr() && opt != cmd->get_help_all_ptr()) TakeFromEnv(opt);
  }
}

}  // namespace

void AddDatabaseFlags(CLI::App* cmd, DatabaseOptions& opts) {
  TakeFromEnv(cmd->add_option("--database-url", opts.url,
                              "PostgreSQL URL (or libpq key=value string); without it cubd uses "
                              "its embedded database"));
  TakeFromEnv(cmd->add_option("--database-password-file", opts.password_file,
                              "File holding the --database-url role's password (one line, "
                              "which replaces a password in the URL); not readable by others"));
  TakeFromEnv(cmd->add_option("--data-dir", opts.data_dir,
                              "Where the embedded database lives (default: /var/lib/cub as "
                              "root, else $XDG_DATA_HOME/cub)"));
}

namespace {

// Listeners, threads, keys and directories.
void AddListenFlags(CLI::App* cmd, ServeOptions& serve) {
  cmd->add_option("--listen", serve.listen, "gRPC address HOST:PORT")->capture_default_str();
  cmd->add_option("--http-listen", serve.http_listen,
                  "REST/JSON mirror address HOST:PORT (off when empty)");
  cmd->add_option("--ui-url", serve.ui_url,
                  "The dashboard's external URL, scheme://host[:port] with no path, as browsers "
                  "reach it (through a proxy, say): OpenID providers send the browser back to "
                  "URL/ui/oidc/callback. Default: the listener's scheme and the request's Host")
      ->check([](const std::string& v) -> std::string {
        const size_t scheme = v.find("://");
        const bool ok = (v.rfind("https://", 0) == 0 || v.rfind("http://", 0) == 0) &&
                        scheme != std::string::npos && v.size() > scheme + 3 &&
                        v.find_first_of("/?#", scheme + 3) == std::string::npos;
        return ok ? "" : "must be http(s)://HOST[:PORT] with no path, e.g. https://cub.example.com";
      });
  cmd->add_option("--tls-cert", serve.tls_cert, "PEM certificate for both listeners");
  cmd->add_option("--tls-key", serve.tls_key, "PEM private key for both listeners");
  cmd->add_option("--tls-reload-interval", serve.tls_reload_interval_s,
                  "Seconds between looks at --tls-cert and --tls-key: a new sound pair is served "
                  "to new connections, a broken one logged and ignored")
      ->capture_default_str()
      ->check(CLI::Range(0.05, 3600.0));
  cmd->add_flag("--allow-embedded-database", serve.allow_embedded_database,
                "Serve a non-loopback --listen or --http-listen from the embedded database (its "
                "data stays in --data-dir); refused without this, as a pod would lose it");
  cmd->add_option("--threads", serve.threads, "Request threads (and database connections)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--signing-key", serve.signing_key,
                  "Ed25519 private key (PEM) to sign releases with; created if absent"
                  " (default: signing-key.pem in the data directory)");
  // Flag functions rather than "!" flags: CLI11 would store CUBD_NO_...=true unnegated.
  cmd->add_flag_function(
      "--no-create-signing-key", [&serve](int64_t n) { serve.create_signing_key = n <= 0; },
      "Never create the --signing-key file: when it is absent (a Secret not mounted"
      " yet), start without a key, refuse to sign until it appears, look again every"
      " 2 s");
  cmd->add_option("--work-dir", serve.work_dir,
                  "Where Git targets keep clones (default: targets/ in the data directory)");
  cmd->add_option("--git-credentials-dir", serve.git_credentials_dir,
                  "Directory of the credential files Git targets name (password-file, "
                  "ssh-key-file, known-hosts-file) by plain file name");
  cmd->add_option("--git-signing-key", serve.git_signing_key,
                  "Unencrypted OpenSSH Ed25519 private key that signs every Git commit "
                  "(gpg.format=ssh); unsigned commits without it");
  cmd->add_option("--git-committer", serve.git_committer,
                  "Committer of the Git commits, 'NAME <EMAIL>' (default: cubd <cubd@localhost>)");
  cmd->add_flag_function(
      "--no-engine", [&serve](int64_t n) { serve.engine = n <= 0; },
      "Serve the API only: this replica carries out no automatic or queued promotions"
      " (others on the same database still do)");
  cmd->add_option("--engine-workers", serve.engine_workers,
                  "Promotion engine threads, each working on one change order at a time")
      ->capture_default_str()
      ->check(CLI::Range(1, 64));
  cmd->add_option("--delivery-workers", serve.delivery_workers,
                  "Threads delivering recorded releases to their targets and retrying failed"
                  " deliveries (0: none on this replica; run with or without the engine)")
      ->capture_default_str()
      ->check(CLI::Range(0, 64));
  cmd->add_option("--drain-delay", serve.drain_delay_s,
                  "Seconds to keep serving after SIGTERM while /readyz and gRPC health say not "
                  "ready, before draining (a second signal skips the rest)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  cmd->add_option("--log-format", serve.log_format,
                  "Log lines as text or as json, one object a line")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "json"}));
}

// Limits at the edge of every call (server/call.h).
void AddEdgeFlags(CLI::App* cmd, ServeOptions& serve) {
  EdgeLimits& edge = serve.edge;
  cmd->add_option("--max-unit-bytes", edge.max_unit_bytes,
                  "Longest text field a request may carry, Unit Data above all (bytes); the "
                  "largest request accepted is this plus 1 MiB")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1024}, int64_t{1} << 30));
  cmd->add_option("--max-inflight-request-bytes", edge.budget.total,
                  "Memory budget for large requests in flight (bytes); each request of 1 MiB "
                  "or more is charged 6 times its size, and refused when the budget is spent "
                  "(0: no budget)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--auth-failure-burst", edge.auth.burst,
                  "Failed authentications from one client address before its calls are refused "
                  "(0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  cmd->add_option("--max-watch-streams", edge.max_watch_streams,
                  "Watch streams (cub changeorder watch, over gRPC or REST) open at once; more "
                  "are refused. Each holds a request thread and a database connection")
      ->capture_default_str()
      ->check(CLI::Range(1, 4096));
  cmd->add_option("--auth-failures-per-minute", edge.auth.per_minute,
                  "Failed authentications per minute allowed to a client address after the burst")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
}

// The REST/JSON mirror's limits (server/http_server.h).
void AddHttpLimitFlags(CLI::App* cmd, ServeOptions& serve) {
  cmd->add_option("--http-max-connections", serve.http_max_connections,
                  "REST: connections open at once; more are closed on accept")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--http-max-connections-per-client", serve.http_max_connections_per_client,
                  "REST: connections open at once from one client IP address; more get 503"
                  " (0: no limit of its own)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  cmd->add_option("--http-max-header-bytes", serve.http_max_header_bytes,
                  "REST: request line and headers, in bytes; larger get 431")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1024}, size_t{16} << 20));
  cmd->add_option("--http-max-body-bytes", serve.http_max_body_bytes,
                  "REST: request body, in bytes; larger get 413")
      ->capture_default_str()
      ->check(CLI::Range(size_t{0}, size_t{1} << 30));
  cmd->add_option("--http-header-timeout", serve.http_header_timeout_s,
                  "REST: seconds for the TLS handshake, request line and headers; then 408")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--http-body-timeout", serve.http_body_timeout_s,
                  "REST: seconds for a request body (then 408), and for writing a response")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--http-idle-timeout", serve.http_idle_timeout_s,
                  "REST: seconds a kept-alive connection may wait for its next request")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
}

// OpenID providers people log in with (lib/ops/oidc_config.h): repeatable, the Nth of each
// flag for the Nth --oidc-issuer.
void AddOidcFlags(CLI::App* cmd, ServeOptions& serve) {
  ops::OidcFlagValues& f = serve.oidc;
  cmd->add_option("--oidc-issuer", f.issuers,
                  "OpenID provider people log in with, exactly as its tokens' iss (https, or "
                  "http on loopback); repeatable");
  cmd->add_option("--oidc-client-id", f.client_ids,
                  "The client ID cub's CLI logs in as, and the audience its tokens carry: one "
                  "per --oidc-issuer, in order");
  cmd->add_option("--oidc-username-claim", f.username_claims,
                  "Claim naming a person's user (default preferred_username): one per "
                  "--oidc-issuer, or none");
  cmd->add_option("--oidc-groups-claim", f.groups_claims,
                  "Claim listing a person's groups (default groups): one per --oidc-issuer, or "
                  "none");
  cmd->add_option("--oidc-username-prefix", f.username_prefixes,
                  "Prepended to the usernames of the issuer's people (e.g. dex:): one per "
                  "--oidc-issuer, or none");
  cmd->add_option("--oidc-groups-prefix", f.groups_prefixes,
                  "Prepended to the issuer's group names (e.g. dex:): one per --oidc-issuer, or "
                  "none");
  cmd->add_option("--oidc-config", f.config_file,
                  "YAML list of OpenID issuers (keys Issuer, ClientID, UsernameClaim, "
                  "GroupsClaim, UsernamePrefix, GroupsPrefix, Scopes), besides the flags");
  cmd->add_option("--oidc-ca-file", serve.identity.oidc_ca_file,
                  "PEM roots to trust for the OpenID providers' https (default: the system's)");
}

// cub's own API tokens (lib/ops/tokens.h): how long they live. A value reads as
// ParseDayDuration does ("90d", "12h"); the default lifetime may not exceed the longest.
void AddTokenFlags(CLI::App* cmd, ServeOptions& serve) {
  ops::IdentityOptions& id = serve.identity;
  const CLI::Validator duration(
      [](std::string& v) -> std::string {
        auto d = ParseDayDuration(v);
        return d.ok() ? "" : std::string(d.status().message());
      },
      "DURATION");
  const auto too_long = [&id] {
    return CLI::ValidationError(absl::StrCat(
        "--token-default-lifetime ", FormatDayDuration(id.token_default_lifetime),
        " is longer than --token-max-lifetime ", FormatDayDuration(id.token_max_lifetime)));
  };
  // Defined before the default, so that its callback has run when the default's checks both.
  cmd->add_option_function<std::string>(
         "--token-max-lifetime",
         [&id, cmd, too_long](const std::string& v) {
           id.token_max_lifetime = *ParseDayDuration(v);
           if (cmd->count("--token-default-lifetime") == 0 &&
               id.token_default_lifetime > id.token_max_lifetime) {
             throw too_long();
           }
         },
         "The longest lifetime a token may be given (cub auth token create --expires-in)")
      ->check(duration)
      ->default_str(FormatDayDuration(id.token_max_lifetime));
  cmd->add_option_function<std::string>(
         "--token-default-lifetime",
         [&id, too_long](const std::string& v) {
           id.token_default_lifetime = *ParseDayDuration(v);
           if (id.token_default_lifetime > id.token_max_lifetime) throw too_long();
         },
         "How long a token lives when created without --expires-in")
      ->check(duration)
      ->default_str(FormatDayDuration(id.token_default_lifetime));
}

}  // namespace

void AddServeFlags(CLI::App* cmd, ServeOptions& serve) {
  AddListenFlags(cmd, serve);
  AddEdgeFlags(cmd, serve);
  AddHttpLimitFlags(cmd, serve);
  AddOidcFlags(cmd, serve);
  AddTokenFlags(cmd, serve);
  // Last, so that every flag above has its variable, and any added later gets one for free.
  TakeFromEnv(cmd);
  // CLI11 reads the variables of every subcommand without a parse-complete callback, chosen
  // or not: with one, serve's are read (and checked) only for `cubd serve`, so a bad
  // CUBD_THREADS in a shared environment cannot fail `cubd migrate`.
  cmd->parse_complete_callback([] {});
}

}  // namespace cub::server
