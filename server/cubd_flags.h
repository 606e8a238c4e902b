// cubd's command line: the flags of `cubd serve` and its database flags (CLI11), kept out of
// main() so that each command's options read as one list. Linked into cubd only.
#ifndef CUB_SERVER_CUBD_FLAGS_H_
#define CUB_SERVER_CUBD_FLAGS_H_

#include "CLI/CLI.hpp"
#include "server/database.h"
#include "server/serve.h"

namespace cub::server {

// Every flag also reads from an environment variable, CUBD_ and its long name in upper snake
// case (--http-listen: CUBD_HTTP_LISTEN), which --help shows; the flag, when given, wins. A
// repeatable flag's variable separates its values with commas. A flag function reads
// "true"/"1" (and "false"/"0") from its variable.

// --database-url, --database-password-file and --data-dir, into `opts` (which must outlive
// parsing), each with its CUBD_ variable (the admin commands take only these from the
// environment, not their own flags).
void AddDatabaseFlags(CLI::App* cmd, DatabaseOptions& opts);

// Every option of `cubd serve`, into `serve` (which must outlive parsing), with its default
// shown in --help and its range checked by CLI11; then gives every option of `cmd` (those of
// AddDatabaseFlags too) its CUBD_ variable.
void AddServeFlags(CLI::App* cmd, ServeOptions& serve);

}  // namespace cub::server

#endif  // CUB_SERVER_CUBD_FLAGS_H_
