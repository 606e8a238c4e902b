// The one path every cubd RPC takes: authenticate the bearer token, run the use case, map
// its absl::Status to a grpc::Status, and log one line (method, user, code, duration).
// Handlers are short adapters over lib/ops built on RunCall().
#ifndef CUB_SERVER_CALL_H_
#define CUB_SERVER_CALL_H_

#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"

namespace cub::server {

grpc::Status ToGrpc(const absl::Status& s);

// Authenticates `ctx`, runs `fn`, logs. `method` is "Service/Method".
grpc::Status RunCall(store::ConnectionPool& db, grpc::ServerContext* ctx, const char* method,
                     const std::function<absl::Status(const ops::Principal&)>& fn);

// For use cases returning a value: copies it into `*resp` on success.
template <typename Resp, typename Fn>
grpc::Status Respond(store::ConnectionPool& db, grpc::ServerContext* ctx, const char* method,
                     Resp* resp, Fn fn) {
  return RunCall(db, ctx, method, [&](const ops::Principal& p) -> absl::Status {
    absl::StatusOr<Resp> r = fn(p);
    if (!r.ok()) return r.status();
    *resp = std::move(*r);
    return absl::OkStatus();
  });
}

}  // namespace cub::server

#endif  // CUB_SERVER_CALL_H_
