// The one path every cubd RPC takes: refuse a client address that failed authentication too
// often, authenticate the bearer token, check the request's text and size at the edge, run the
// use case, map its absl::Status to a grpc::Status, count it (server/metrics.h), and log one
// line (method, user, code, duration, request ID: server/request_log.h). Handlers are short
// adapters over lib/ops built on RunCall().
#ifndef CUB_SERVER_CALL_H_
#define CUB_SERVER_CALL_H_

#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <cstdint>
#include <functional>
#include <string>

#include "absl/status/statusor.h"
#include "lib/ops/authenticator.h"
#include "lib/ops/principal.h"
#include "lib/store/pool.h"
#include "server/auth_limiter.h"
#include "server/metrics.h"
#include "server/request_budget.h"
#include "server/stream_limiter.h"

namespace cub::server {

// The limits cubd applies to every call before its use case runs (flags of `cubd serve`).
struct EdgeLimits {
  int64_t max_unit_bytes = 16 << 20;  // longest text field (Unit Data is the largest)
  RequestBudgetLimits budget;
  AuthLimits auth;
  // Server-streaming calls (watches) open at once (server/stream_limiter.h).
  int max_watch_streams = 64;
};

// The largest request message cubd accepts: one text field at the limit plus room for the rest.
int64_t MaxRequestBytes(const EdgeLimits& limits);

// Metadata by which the REST mirror names the HTTP client's address. Trusted only on calls
// whose peer is the server's own in-process channel; ignored from any network client.
inline constexpr char kHttpClientAddrKey[] = "cub-http-client-addr";

// The state shared by all calls of one cubd: the pool, the limits and their counters, the
// open streams, and who bearer tokens name.
class CallGate {
 public:
  CallGate(store::ConnectionPool& db, const EdgeLimits& limits, ops::IdentityOptions identity = {})
      : db_(db),
        limits_(limits),
        authenticator_(db, std::move(identity)),
        budget_(limits.budget),
        auth_(limits.auth),
        streams_(limits.max_watch_streams) {}
  CallGate(const CallGate&) = delete;
  CallGate& operator=(const CallGate&) = delete;

  store::ConnectionPool& db() { return db_; }
  const EdgeLimits& limits() const { return limits_; }
  RequestBudget& budget() { return budget_; }
  AuthFailureLimiter& auth() { return auth_; }
  StreamLimiter& streams() { return streams_; }
  const ops::Authenticator& authenticator() const { return authenticator_; }
  // Where calls are counted (server/metrics.h); null: nowhere. Set before serving.
  Metrics* metrics() const { return metrics_; }
  void set_metrics(Metrics* m) { metrics_ = m; }

 private:
  store::ConnectionPool& db_;
  const EdgeLimits limits_;
  ops::Authenticator authenticator_;
  RequestBudget budget_;
  AuthFailureLimiter auth_;
  StreamLimiter streams_;
  Metrics* metrics_ = nullptr;
};

// `s` as gRPC sends it: the same code, and the same message unless that would encode to more
// than 6 KiB, past what clients accept in a header; then its first 2 KiB, ending in
// " ... (N more bytes)".
grpc::Status ToGrpc(const absl::Status& s);

// The address failed authentication is counted against: the peer's IP address without the
// port ("ipv4:127.0.0.1"), or for a call of the in-process channel the address the REST mirror
// names in kHttpClientAddrKey ("127.0.0.1"), so one client is counted alike over gRPC and REST.
// `http_client_addr` is passed only for in-process calls. Exposed for tests.
std::string ClientAddress(const std::string& peer, const std::string* http_client_addr);

// Checks, authenticates `ctx`, runs `fn`, counts and logs. `method` is "Service/Method". The
// call's request ID (x-request-id) is returned in the initial metadata.
grpc::Status RunCall(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                     const google::protobuf::Message& request,
                     const std::function<absl::Status(const ops::Principal&)>& fn);

// As RunCall, for the one method any client may call without a bearer token
// (AuthService/GetLoginConfig: what a client needs before it has one). The request checks and
// the log line are the same; a token sent is ignored.
grpc::Status RunPublicCall(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                           const google::protobuf::Message& request,
                           const std::function<absl::Status()>& fn);

// For use cases returning a value: copies it into `*resp` on success.
template <typename Resp, typename Fn>
grpc::Status Respond(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                     const google::protobuf::Message& request, Resp* resp, Fn fn) {
  return RunCall(gate, ctx, method, request, [&](const ops::Principal& p) -> absl::Status {
    absl::StatusOr<Resp> r = fn(p);
    if (!r.ok()) return r.status();
    *resp = std::move(*r);
    return absl::OkStatus();
  });
}

}  // namespace cub::server

#endif  // CUB_SERVER_CALL_H_
