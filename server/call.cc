#include "server/call.h"

#include <chrono>
#include <cstdio>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "lib/ops/users.h"

namespace cub::server {
namespace {

std::string BearerToken(const grpc::ServerContext* ctx) {
  const auto& md = ctx->client_metadata();
  auto it = md.find("authorization");
  if (it == md.end()) return "";
  std::string value(it->second.data(), it->second.size());
  if (absl::StartsWithIgnoreCase(value, "Bearer ")) return value.substr(7);
  return "";
}

const char* CodeName(grpc::StatusCode c) {
  switch (c) {
    case grpc::OK:
      return "OK";
    case grpc::CANCELLED:
      return "CANCELLED";
    case grpc::UNKNOWN:
      return "UNKNOWN";
    case grpc::INVALID_ARGUMENT:
      return "INVALID_ARGUMENT";
    case grpc::DEADLINE_EXCEEDED:
      return "DEADLINE_EXCEEDED";
    case grpc::NOT_FOUND:
      return "NOT_FOUND";
    case grpc::ALREADY_EXISTS:
      return "ALREADY_EXISTS";
    case grpc::PERMISSION_DENIED:
      return "PERMISSION_DENIED";
    case grpc::RESOURCE_EXHAUSTED:
      return "RESOURCE_EXHAUSTED";
    case grpc::FAILED_PRECONDITION:
      return "FAILED_PRECONDITION";
    case grpc::ABORTED:
      return "ABORTED";
    case grpc::OUT_OF_RANGE:
      return "OUT_OF_RANGE";
    case grpc::UNIMPLEMENTED:
      return "UNIMPLEMENTED";
    case grpc::INTERNAL:
      return "INTERNAL";
    case grpc::UNAVAILABLE:
      return "UNAVAILABLE";
    case grpc::DATA_LOSS:
      return "DATA_LOSS";
    case grpc::UNAUTHENTICATED:
      return "UNAUTHENTICATED";
    default:
      return "UNKNOWN";
  }
}

}  // namespace

grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), std::string(s.message()));
}

grpc::Status RunCall(store::ConnectionPool& db, grpc::ServerContext* ctx, const char* method,
                     const std::function<absl::Status(const ops::Principal&)>& fn) {
  absl::Time start = absl::Now();
  std::string user = "-";
  absl::Status result;
  auto principal = ops::Authenticate(db, BearerToken(ctx));
  if (!principal.ok()) {
    result = principal.status();
  } else {
    user = principal->username;
    try {
      result = fn(*principal);
    } catch (const std::exception& e) {
      // A bug, not a refusal: report it without leaking internals to the caller.
      std::fprintf(stderr, "cubd: %s: unexpected exception: %s\n", method, e.what());
      result = absl::InternalError("internal error; see the cubd log");
    }
  }
  grpc::Status out = ToGrpc(result);
  // Calls from the REST mirror arrive in-process; the gateway names the HTTP client in
  // x-forwarded-for. Any client can send that header, so it is logged beside the real peer,
  // never in its place.
  std::string peer = ctx->peer();
  const auto& md = ctx->client_metadata();
  if (auto fwd = md.find("x-forwarded-for"); fwd != md.end()) {
    peer += " forwarded_for=" + std::string(fwd->second.data(), fwd->second.size());
  }
  std::fprintf(stderr, "%s call method=%s user=%s code=%s duration_ms=%.2f peer=%s\n",
               absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", start, absl::UTCTimeZone()).c_str(), method,
               user.c_str(), CodeName(out.error_code()),
               absl::ToDoubleMilliseconds(absl::Now() - start), peer.c_str());
  return out;
}

}  // namespace cub::server
