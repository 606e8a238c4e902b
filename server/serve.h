// `cubd serve`: runs the gRPC server (health, reflection and the cub.v1 services) and the
// optional REST/JSON mirror until SIGTERM or SIGINT, then drains in-flight calls and exits.
#ifndef CUB_SERVER_SERVE_H_
#define CUB_SERVER_SERVE_H_

#include <cstddef>
#include <string>

#include "lib/ops/oidc_config.h"
#include "server/call.h"
#include "server/database.h"

namespace cub::server {

struct ServeOptions {
  std::string listen = "127.0.0.1:7070";
  std::string http_listen;  // empty: no REST mirror
  // The dashboard's external URL (scheme, host, port; no path), e.g. https://cub.example.com:
  // where OpenID providers send the browser back after a log-in. Empty: the listener's scheme
  // and the request's Host.
  std::string ui_url;
  std::string tls_cert;  // both set: TLS on both listeners
  std::string tls_key;
  // How often the two TLS files are looked at for a new pair (server/tls_reloader.h).
  double tls_reload_interval_s = 5;
  // Whether the embedded database may serve a non-loopback listener (server/listen_guard.h).
  bool allow_embedded_database = false;
  int threads = 16;  // request threads, and database connections
  // The Ed25519 key Releases and deployment records are signed with (PEM, created on first
  // start if absent); empty: signing-key.pem in the data directory.
  std::string signing_key;
  // Whether a missing signing key file is created (else cubd waits for it to appear).
  bool create_signing_key = true;
  // Where Git Targets keep clones of remote repositories; empty: targets/ in the data
  // directory.
  std::string work_dir;
  // Git Targets (lib/ops/target_env.h): where their credential files are, the SSH key that
  // signs their commits, and the committer ("NAME <EMAIL>"); empty: none, unsigned, default.
  std::string git_credentials_dir;
  std::string git_signing_key;
  std::string git_committer;
  // Whether this replica runs the promotion engine (server/engine.h), and its threads.
  bool engine = true;
  int engine_workers = 2;
  // Delivery worker threads (server/delivery_worker.h); they run with or without the engine.
  int delivery_workers = 1;
  // Request size limits and the failed-authentication rate limit, applied to every call.
  EdgeLimits edge;
  // Who bearer tokens may name: OpenID providers and workload issuers, token lifetimes.
  ops::IdentityOptions identity;
  // The --oidc-* flags and --oidc-config as given; Serve adds their issuers to `identity`.
  ops::OidcFlagValues oidc;
  // Limits of the REST/JSON mirror (the --http-* flags; see docs/operations.md).
  int http_max_connections = 4096;
  int http_max_connections_per_client = 256;  // 0: no limit per client address
  size_t http_max_header_bytes = 64 << 10;
  size_t http_max_body_bytes = 16 << 20;
  double http_header_timeout_s = 10;  // TLS handshake + request line + headers
  double http_body_timeout_s = 60;    // the request body, and writing the response
  double http_idle_timeout_s = 30;    // a kept-alive connection between requests
  // After SIGTERM, how long cubd keeps serving while reporting not ready (/readyz 503, gRPC
  // health NOT_SERVING), so load balancers stop sending calls before it drains. A second
  // signal ends the wait.
  double drain_delay_s = 0;
  std::string log_format = "text";  // "text" or "json" (server/request_log.h)
};

// Returns the process exit code.
int Serve(const DatabaseOptions& db_opts, const ServeOptions& opts);

}  // namespace cub::server

#endif  // CUB_SERVER_SERVE_H_
