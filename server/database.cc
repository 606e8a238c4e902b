#include "server/database.h"

#include <signal.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "lib/store/conninfo.h"
#include "lib/store/migrations.h"
#include "lib/store/roles.h"
#include "lib/util/status_macros.h"

namespace cub::server {
namespace {

// The embedded cluster another cubd process is running in `data_dir`, if any: its
// postmaster.pid names a live process and the URL file says how to reach it.
std::string RunningEmbeddedUrl(const std::string& data_dir) {
  std::ifstream pidfile(data_dir + "/pgdata/postmaster.pid");
  long pid = 0;
  if (!(pidfile >> pid) || pid <= 0 || kill(static_cast<pid_t>(pid), 0) != 0) return "";
  std::ifstream urlfile(data_dir + "/database-url");
  std::string url;
  std::getline(urlfile, url);
  return url;
}

// opts.url, with the password of --database-password-file if one is given.
absl::StatusOr<std::string> ExternalUrl(const DatabaseOptions& opts) {
  if (opts.password_file.empty()) return opts.url;
  if (opts.url.empty()) {
    return absl::InvalidArgumentError(
        "--database-password-file goes with --database-url (the embedded database needs no "
        "password)");
  }
  CUB_ASSIGN_OR_RETURN(std::string password, store::ReadPasswordFile(opts.password_file));
  return store::ConninfoWithPassword(opts.url, password);
}

}  // namespace

absl::StatusOr<Database> OpenDatabase(const DatabaseOptions& opts) {
  Database db;
  CUB_ASSIGN_OR_RETURN(db.url, ExternalUrl(opts));
  if (db.url.empty()) {
    std::string dir = opts.data_dir.empty() ? store::DefaultDataDir() : opts.data_dir;
    db.url = RunningEmbeddedUrl(dir);
    if (!db.url.empty() && !opts.share_running) {
      return absl::FailedPreconditionError(
          absl::StrCat("another cubd is already running the embedded database in ", dir,
                       "; stop it, or give this one its own --data-dir or a --database-url"));
    }
    if (db.url.empty()) {
      auto pg = store::EmbeddedPostgres::Start(dir);
      if (!pg.ok()) {
        return absl::Status(pg.status().code(),
                            absl::StrCat("embedded database: ", pg.status().message()));
      }
      db.url = (*pg)->url();
      db.embedded = std::move(*pg);
      std::ofstream(dir + "/database-url") << db.url << "\n";
    }
  }
  auto applied = store::ApplyMigrations(db.url);
  if (!applied.ok()) {
    return absl::Status(applied.status().code(),
                        absl::StrCat("migrating the schema: ", applied.status().message()));
  }
  db.applied = *applied;
  return db;
}

absl::StatusOr<Database> OpenServingDatabase(const DatabaseOptions& opts) {
  if (opts.url.empty() && opts.password_file.empty()) {
    auto db = OpenDatabase(opts);
    if (!db.ok()) return db.status();
    if (db->embedded == nullptr) {
      return absl::FailedPreconditionError("serving needs an embedded database of its own");
    }
    if (absl::Status s = store::EnsureRuntimeLogin(db->url, store::kServeLoginRole); !s.ok()) {
      return absl::Status(s.code(), absl::StrCat("embedded database: ", s.message()));
    }
    db->url = db->embedded->UrlAs(store::kServeLoginRole);
    CUB_RETURN_IF_ERROR(store::CheckRuntimeRole(db->url));
    return db;
  }
  Database db;
  CUB_ASSIGN_OR_RETURN(db.url, ExternalUrl(opts));
  if (absl::Status s = store::CheckSchemaCurrent(db.url); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("--database-url: ", s.message()));
  }
  if (absl::Status s = store::CheckRuntimeRole(db.url); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("--database-url: ", s.message()));
  }
  return db;
}

}  // namespace cub::server
