// Opening cubd's database: the PostgreSQL named by --database-url, or the embedded default
// cluster in the data directory (started here if no cubd is already running it). The
// administration commands migrate the schema; `cubd serve` connects as the runtime role.
#ifndef CUB_SERVER_DATABASE_H_
#define CUB_SERVER_DATABASE_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/embedded_pg.h"

namespace cub::server {

struct DatabaseOptions {
  std::string url;  // empty: embedded
  // A file holding url's password (store::ReadPasswordFile), which replaces any in url;
  // only with url.
  std::string password_file;
  std::string data_dir;  // embedded only; empty: store::DefaultDataDir()
  // Embedded only: whether a cluster another cubd runs in data_dir may be used (true for the
  // short admin commands, false for `serve`, whose database would vanish with the other cubd).
  bool share_running = true;
};

struct Database {
  std::string url;
  // Set when this process started the embedded cluster; stops it when destroyed.
  std::unique_ptr<store::EmbeddedPostgres> embedded;
  std::vector<std::string> applied;  // migrations applied while opening
};

// For the administration commands (`cubd migrate`, `cubd user`, `cubd purge`): the database
// as given (with an external one, the owner's URL), migrated.
absl::StatusOr<Database> OpenDatabase(const DatabaseOptions& opts);

// For `cubd serve`: the database as the runtime role (lib/store/roles.h), in `url`.
// Embedded: started, migrated as its superuser (the owner), and served as the login role
// cub_serve, created here. External: opts.url is served as given and nothing is migrated; its
// role must be fit for serving (store::CheckRuntimeRole) and the schema current
// (store::CheckSchemaCurrent), else FAILED_PRECONDITION saying what to do.
absl::StatusOr<Database> OpenServingDatabase(const DatabaseOptions& opts);

}  // namespace cub::server

#endif  // CUB_SERVER_DATABASE_H_
