// The guard against a forgotten --database-url: `cubd serve` without one keeps its data in the
// embedded PostgreSQL of its data directory, which in a pod is an emptyDir that vanishes with
// it. Serving on a non-loopback address is what a pod does, so that combination is refused
// unless --allow-embedded-database says it is meant.
#ifndef CUB_SERVER_LISTEN_GUARD_H_
#define CUB_SERVER_LISTEN_GUARD_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace cub::server {

// Whether the listen address `hostport` ("HOST:PORT", "[IPV6]:PORT", ":PORT", or gRPC's
// "unix:PATH") accepts only local connections: 127.0.0.0/8, ::1 (or ::ffff:127.x), the name
// localhost, or a Unix socket. An empty HOST, 0.0.0.0, ::, any other address and any other
// name (which may resolve anywhere) are not loopback.
bool IsLoopbackListen(const std::string& hostport);

// OK unless the embedded database would serve (`embedded`) a listener of `listens` that is not
// loopback and `allowed` is false; then FailedPrecondition saying why and how to go on.
absl::Status CheckEmbeddedDatabaseListen(bool embedded, bool allowed,
                                         const std::vector<std::string>& listens);

}  // namespace cub::server

#endif  // CUB_SERVER_LISTEN_GUARD_H_
