// The embedded default database of cubd.
//
// When cubd is given no database URL it runs a private PostgreSQL server of its own, so that
// `cubd` alone is a working single-machine install. EmbeddedPostgres owns that server. The first
// start on a DATA_DIR creates a cluster in DATA_DIR/pgdata (superuser `cub`, UTF8); every start
// then runs `postgres` as a child process for as long as the EmbeddedPostgres object lives, and
// later starts on the same DATA_DIR reuse the cluster and its data.
//
// Access: the server listens on no TCP address at all (listen_addresses=''), only on a unix
// socket in a directory (mode 0700) that only the server's user (and root) can enter; that
// socket is trusted without a password. url() names it.
//
// DATA_DIR layout:
//   pgdata/         the cluster (created through pgdata.tmp/ and a rename, so a killed first start
//                   leaves no half-made cluster behind)
//   sock/           the unix socket, unless that path would be too long for a socket (108 bytes
//                   with the file name), then /tmp/cub-pg-<hash of DATA_DIR> is used instead
//   postgres.log    output of initdb and the server (moved to postgres.log.1 past 16 MiB at start)
//
// Running as root works: PostgreSQL refuses to run as root, so then the cluster belongs to and
// the server runs as the `postgres` system user (Debian's postgresql-15 package creates it), and
// DATA_DIR and the socket directory are chowned to it. DATA_DIR's parents must be searchable by
// that user (not the case under /root). PostgreSQL's binaries are taken from $CUB_PG_BINDIR, else
// /usr/lib/postgresql/15/bin, else the newest /usr/lib/postgresql/N/bin.
//
// If cubd dies, the server gets SIGINT (fast shutdown) from the kernel (PR_SET_PDEATHSIG), and a
// postmaster.pid left by a killed server does not block the next start (PostgreSQL ignores it
// when its pid is dead; Start retries while a dying predecessor still holds the lock or shared
// memory).

#ifndef CUB_LIB_STORE_EMBEDDED_PG_H_
#define CUB_LIB_STORE_EMBEDDED_PG_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>

#include "absl/status/statusor.h"

namespace cub::store {

class EmbeddedPostgres {
 public:
  struct Options {
    // false: nothing is fsynced (initdb --no-sync; fsync, synchronous_commit and
    // full_page_writes off). Much faster to create and to write, but an OS crash or power loss
    // may corrupt the cluster. For tests and throwaway demos only.
    bool durable = true;
  };

  // Starts the server for `data_dir` (created if missing; made absolute), creating the cluster on
  // first use and the database `cub` if missing, and returns once that database accepts
  // connections. Blocks for up to about two minutes.
  //
  // Errors: FAILED_PRECONDITION when PostgreSQL's binaries or (as root) the postgres user are
  // missing, or data_dir is unusable (e.g. not reachable by the postgres user); INTERNAL when
  // initdb fails; UNAVAILABLE when the server exits or does not accept connections in time (for
  // instance another server still runs on the same data_dir). Messages carry the log's tail.
  //
  // Contract: the server is a child of the calling *thread* (PR_SET_PDEATHSIG fires when that
  // thread exits), so call Start from the main thread or one that outlives the returned object.
  // The process must not set SIGCHLD to SIG_IGN (the child is reaped by the destructor).
  // Two EmbeddedPostgres on one data_dir at once are not possible: the second Start fails.
  static absl::StatusOr<std::unique_ptr<EmbeddedPostgres>> Start(std::string data_dir,
                                                                 const Options& options);
  // Start with default (durable) Options.
  static absl::StatusOr<std::unique_ptr<EmbeddedPostgres>> Start(std::string data_dir);

  // Stops the server: SIGINT (fast shutdown: sessions are ended, a checkpoint is written) and
  // waits for it to exit; after 60 s SIGQUIT, then SIGKILL. Connections from url() must not be
  // used afterwards.
  ~EmbeddedPostgres();

  EmbeddedPostgres(const EmbeddedPostgres&) = delete;
  EmbeddedPostgres& operator=(const EmbeddedPostgres&) = delete;

  // A libpq URL for the database `cub` as superuser `cub`, e.g.
  // postgresql:///cub?host=/var/lib/cub/sock&port=5432&user=cub. Thread-safe.
  const std::string& url() const { return url_; }
  // The same database as the (trusted, passwordless) login role `role`, e.g. the runtime role
  // cubd serves as. Thread-safe.
  std::string UrlAs(const std::string& role) const;
  // The absolute data_dir given to Start.
  const std::string& data_dir() const { return data_dir_; }
  // The process id of the postmaster (the child process).
  pid_t pid() const { return pid_; }

 private:
  // base_url: the URL up to and including "user=".
  EmbeddedPostgres(std::string data_dir, std::string base_url, std::string url, pid_t pid)
      : data_dir_(std::move(data_dir)),
        base_url_(std::move(base_url)),
        url_(std::move(url)),
        pid_(pid) {}

  std::string data_dir_;
  std::string base_url_;
  std::string url_;
  pid_t pid_;
};

// The data directory cubd uses when none is configured: /var/lib/cub for root, otherwise
// $XDG_DATA_HOME/cub, or ~/.local/share/cub when XDG_DATA_HOME is unset or not absolute.
std::string DefaultDataDir();

}  // namespace cub::store

#endif  // CUB_LIB_STORE_EMBEDDED_PG_H_
