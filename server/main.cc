// cubd: the cub server. `cubd serve` runs the gRPC API (and its REST/JSON mirror) on
// PostgreSQL; `cubd migrate` applies the schema; `cubd user ...` manages identities directly
// in the database, which is how the first admin comes to exist; `cubd purge` removes the
// records of deleted Spaces. All but `serve` run as the owner role (docs/operations.md).
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_join.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"
#include "lib/store/roles.h"
#include "server/database.h"
#include "server/serve.h"

namespace {

int Fail(const absl::Status& s) {
  std::cerr << "Failed: " << s.message() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"cubd: the cub promotion server"};
  app.require_subcommand(1);

  cub::server::DatabaseOptions db_opts;
  auto add_db_flags = [&db_opts](CLI::App* cmd) {
    cmd->add_option("--database-url", db_opts.url,
                    "PostgreSQL URL; without it cubd uses its embedded database");
    cmd->add_option("--data-dir", db_opts.data_dir,
                    "Where the embedded database lives (default: /var/lib/cub as root, else "
                    "$XDG_DATA_HOME/cub)");
  };

  cub::server::ServeOptions serve;
  CLI::App* serve_cmd = app.add_subcommand("serve", "Serve the API");
  add_db_flags(serve_cmd);
  serve_cmd->add_option("--listen", serve.listen, "gRPC address HOST:PORT")->capture_default_str();
  serve_cmd->add_option("--http-listen", serve.http_listen,
                        "REST/JSON mirror address HOST:PORT (off when empty)");
  serve_cmd->add_option("--tls-cert", serve.tls_cert, "PEM certificate for both listeners");
  serve_cmd->add_option("--tls-key", serve.tls_key, "PEM private key for both listeners");
  serve_cmd->add_option("--threads", serve.threads, "Request threads (and database connections)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
  serve_cmd->add_option("--signing-key", serve.signing_key,
                        "Ed25519 private key (PEM) to sign releases with; created if absent"
                        " (default: signing-key.pem in the data directory)");
  serve_cmd->add_option("--work-dir", serve.work_dir,
                        "Where Git targets keep clones (default: targets/ in the data directory)");
  // Limits at the edge of every call (server/call.h).
  cub::server::EdgeLimits& edge = serve.edge;
  serve_cmd
      ->add_option("--max-unit-bytes", edge.max_unit_bytes,
                   "Longest text field a request may carry, Unit Data above all (bytes); the "
                   "largest request accepted is this plus 1 MiB")
      ->capture_default_str()
      ->check(CLI::Range(int64_t{1024}, int64_t{1} << 30));
  serve_cmd
      ->add_option("--max-inflight-request-bytes", edge.budget.total,
                   "Memory budget for large requests in flight (bytes); each request of 1 MiB "
                   "or more is charged 6 times its size, and refused when the budget is spent "
                   "(0: no budget)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  serve_cmd
      ->add_option("--auth-failure-burst", edge.auth.burst,
                   "Failed authentications from one client address before its calls are refused "
                   "(0: no limit)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1000000));
  serve_cmd
      ->add_option("--auth-failures-per-minute", edge.auth.per_minute,
                   "Failed authentications per minute allowed to a client address after the burst")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  // The REST/JSON mirror's limits.
  serve_cmd
      ->add_option("--http-max-connections", serve.http_max_connections,
                   "REST: connections open at once; more are closed on accept")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  serve_cmd
      ->add_option("--http-max-connections-per-client", serve.http_max_connections_per_client,
                   "REST: connections open at once from one client IP address; more get 503"
                   " (0: no limit of its own)")
      ->capture_default_str()
      ->check(CLI::Range(0, 1 << 20));
  serve_cmd
      ->add_option("--http-max-header-bytes", serve.http_max_header_bytes,
                   "REST: request line and headers, in bytes; larger get 431")
      ->capture_default_str()
      ->check(CLI::Range(size_t{1024}, size_t{16} << 20));
  serve_cmd
      ->add_option("--http-max-body-bytes", serve.http_max_body_bytes,
                   "REST: request body, in bytes; larger get 413")
      ->capture_default_str()
      ->check(CLI::Range(size_t{0}, size_t{1} << 30));
  serve_cmd
      ->add_option("--http-header-timeout", serve.http_header_timeout_s,
                   "REST: seconds for the TLS handshake, request line and headers; then 408")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  serve_cmd
      ->add_option("--http-body-timeout", serve.http_body_timeout_s,
                   "REST: seconds for a request body (then 408), and for writing a response")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  serve_cmd
      ->add_option("--http-idle-timeout", serve.http_idle_timeout_s,
                   "REST: seconds a kept-alive connection may wait for its next request")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));

  CLI::App* migrate_cmd = app.add_subcommand("migrate", "Apply pending schema migrations");
  add_db_flags(migrate_cmd);

  CLI::App* user_cmd = app.add_subcommand("user", "Manage users");
  user_cmd->require_subcommand(1);
  cub::store::NewUser new_user;
  CLI::App* user_create = user_cmd->add_subcommand(
      "create", "Create a user and print its API token (shown only this once)");
  add_db_flags(user_create);
  user_create->add_option("name", new_user.username, "User name")->required();
  user_create->add_option("--group", new_user.groups, "Group the user belongs to (repeatable)");
  user_create->add_flag("--admin", new_user.admin, "Server administrator: every role everywhere");
  user_create->add_flag("--service-account", new_user.service_account,
                        "An identity for CI or a reporter; it can never vote on approvals");
  CLI::App* user_list = user_cmd->add_subcommand("list", "List users");
  add_db_flags(user_list);
  std::string token_user;
  CLI::App* user_token = user_cmd->add_subcommand("token", "Issue another token for a user");
  add_db_flags(user_token);
  user_token->add_option("name", token_user, "User name")->required();

  CLI::App* purge_cmd = app.add_subcommand(
      "purge", "Remove the records of deleted Spaces (as the owner role; itself recorded)");
  purge_cmd->require_subcommand(1);
  std::string purge_space, purge_reason, purge_by;
  CLI::App* purge_space_cmd = purge_cmd->add_subcommand(
      "space", "Remove every revision, release and attestation of a deleted Space");
  add_db_flags(purge_space_cmd);
  purge_space_cmd->add_option("space", purge_space, "The deleted Space's ID, or its slug")
      ->required();
  purge_space_cmd->add_option("--reason", purge_reason, "Why (kept in the purge record)")
      ->required();
  purge_space_cmd->add_option("--by", purge_by,
                              "Who asked for it (kept in the purge record; default: $USER)");

  CLI11_PARSE(app, argc, argv);

  if (serve_cmd->parsed()) return cub::server::Serve(db_opts, serve);

  auto db = cub::server::OpenDatabase(db_opts);
  if (!db.ok()) return Fail(db.status());
  if (migrate_cmd->parsed()) {
    // OpenDatabase applied them; say what it did.
    std::cout << (db->applied.empty() ? "schema is up to date"
                                      : "applied " + absl::StrJoin(db->applied, ", "))
              << "\n";
    return 0;
  }
  if (purge_space_cmd->parsed()) {
    if (purge_by.empty() && std::getenv("USER") != nullptr) purge_by = std::getenv("USER");
    auto purged = cub::store::PurgeSpace(db->url, purge_space, purge_reason, purge_by);
    if (!purged.ok()) return Fail(purged.status());
    std::cout << "purged the records of space " << purged->space_id
              << (purged->space_slug.empty() ? "" : " (" + purged->space_slug + ")") << ": "
              << purged->removed << "; purge record " << purged->purge_id << "\n";
    return 0;
  }
  cub::store::ConnectionPool pool(db->url, 2);
  if (user_create->parsed()) {
    auto created = cub::ops::CreateUser(pool, new_user);
    if (!created.ok()) return Fail(created.status());
    std::cout << created->token << "\n";
    return 0;
  }
  if (user_token->parsed()) {
    auto token = cub::ops::CreateToken(pool, token_user);
    if (!token.ok()) return Fail(token.status());
    std::cout << *token << "\n";
    return 0;
  }
  auto users = cub::ops::ListUsers(pool);
  if (!users.ok()) return Fail(users.status());
  std::printf("%-24s %-8s %-8s %-30s %s\n", "NAME", "ADMIN", "SERVICE", "GROUPS", "ID");
  for (const auto& u : *users) {
    std::printf("%-24s %-8s %-8s %-30s %s\n", u.username().c_str(), u.admin() ? "yes" : "no",
                u.service_account() ? "yes" : "no", absl::StrJoin(u.groups(), ",").c_str(),
                u.user_id().c_str());
  }
  return 0;
}
