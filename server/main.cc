// cubd: the cub server. `cubd serve` runs the gRPC API (and its REST/JSON mirror) on
// PostgreSQL; `cubd migrate` applies the schema; `cubd user ...` manages identities directly
// in the database, which is how the first admin comes to exist.
#include <csignal>
#include <cstdio>
#include <iostream>

#include "CLI/CLI.hpp"
#include "absl/strings/str_join.h"
#include "lib/ops/users.h"
#include "lib/store/migrations.h"
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
