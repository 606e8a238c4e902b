// cubd's command line: the flags of `cubd serve` and its database flags (CLI11), kept out of
// main() so that each command's options read as one list. Linked into cubd only.
#ifndef CUB_SERVER_CUBD_FLAGS_H_
#define CUB_SERVER_CUBD_FLAGS_H_

#include "CLI/CLI.hpp"
#include "server/database.h"
#include "server/serve.h"

namespace cub::server {

// --database-url and --data-dir, into `opts` (which must outlive parsing).
void AddDatabaseFlags(CLI::App* cmd, DatabaseOptions& opts);

// Every option of `cubd serve`, into `serve` (which must outlive parsing), with its default
// shown in --help and its range checked by CLI11.
void AddServeFlags(CLI::App* cmd, ServeOptions& serve);

}  // namespace cub::server

#endif  // CUB_SERVER_CUBD_FLAGS_H_
