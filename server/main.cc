// cubd: the cub server. `cubd serve` runs the gRPC API (and its REST/JSON mirror) on
// PostgreSQL; `cubd migrate` applies the schema; `cubd user ...` manages identities directly
// in the database, which is how the first admin comes to exist; `cubd purge` removes the
// records of deleted Spaces. All but `serve` run as the owner role (docs/operations.md).
#include "CLI/CLI.hpp"
#include "lib/net/http_client.h"
#include "server/cubd_admin.h"
#include "server/cubd_flags.h"
#include "server/database.h"
#include "server/malloc_arenas.h"
#include "server/serve.h"

int main(int argc, char** argv) {
  cub::server::LimitMallocArenas();  // before any thread: arenas are handed out as threads start
  cub::net::InitHttpClient();        // at start: a missing libcurl shows now, not at a login
  CLI::App app{"cubd: the cub promotion server"};
  app.require_subcommand(1);

  cub::server::DatabaseOptions db_opts;
  cub::server::ServeOptions serve;
  CLI::App* serve_cmd = app.add_subcommand("serve", "Serve the API");
  cub::server::AddDatabaseFlags(serve_cmd, db_opts);
  cub::server::AddServeFlags(serve_cmd, serve);

  cub::server::AdminCommands admin(app, db_opts);

  CLI11_PARSE(app, argc, argv);
  if (serve_cmd->parsed()) return cub::server::Serve(db_opts, serve);
  return admin.Run();
}
