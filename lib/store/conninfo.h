// The database password from a file (a Kubernetes Secret mount, never a command line), and the
// libpq connection string that carries it. Such a string holds a secret: never log or print it.
#ifndef CUB_LIB_STORE_CONNINFO_H_
#define CUB_LIB_STORE_CONNINFO_H_

#include <string>

#include "absl/status/statusor.h"

namespace cub::store {

// The password in the file `path`: its content without one trailing newline ("\n" or "\r\n").
// Refused (FailedPrecondition, the message naming `path` and never the content) when the file
// is missing or unreadable, not a regular file (a symlink to one is followed, as in a Secret
// volume), empty, more than one line, over 4 KiB, or readable, writable or executable by
// others. Group read is allowed: Secret volumes under an fsGroup are 0440 or 0640.
absl::StatusOr<std::string> ReadPasswordFile(const std::string& path);

// `conninfo` (a postgres:// or postgresql:// URL, or libpq's key=value form) with its password
// set to `password`, as a libpq key=value string. Parsed by libpq itself (PQconninfoParse), so
// every parameter of the URL is kept as libpq reads it and nothing is spliced into a URL.
// InvalidArgument, with libpq's reason, when `conninfo` does not parse (the reason may quote a
// part of `conninfo`, never `password`).
absl::StatusOr<std::string> ConninfoWithPassword(const std::string& conninfo,
                                                 const std::string& password);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_CONNINFO_H_
