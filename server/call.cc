#include "server/call.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <new>
#include <optional>

#include "absl/strings/match.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "lib/util/proto_text.h"
#include "lib/util/short_list.h"
#include "server/request_log.h"

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

// Whether grpc::ServerContext::peer() is that of a call of grpc::Server::InProcessChannel()
// (gRPC 1.51 says "unknown"; a network client is always "ipv4:", "ipv6:" or "unix:").
bool IsInProcessPeer(absl::string_view peer) { return peer == "unknown" || peer == "inproc"; }

// A status message travels percent-encoded in the grpc-message header, which clients refuse
// past 8 KiB by default: the client then reports "received initial metadata size exceeds
// limit" and the message is lost. One that would encode to more than 6 KiB is cut to 2 KiB,
// which encodes to 6 KiB at most.
constexpr size_t kMaxEncodedStatusMessage = 6 << 10;
constexpr size_t kCutStatusMessage = 2 << 10;

std::string StatusMessageToSend(absl::string_view message) {
  size_t encoded = 0;
  for (char c : message) {
    const auto b = static_cast<unsigned char>(c);
    encoded += b < 0x20 || b > 0x7E || b == '%' ? 3 : 1;  // gRPC's percent-encoding
  }
  if (encoded <= kMaxEncodedStatusMessage) return std::string(message);
  return CapMessage(std::string_view(message.data(), message.size()), kCutStatusMessage);
}

}  // namespace

grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  // absl and gRPC share the canonical code numbering.
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), StatusMessageToSend(s.message()));
}

int64_t MaxRequestBytes(const EdgeLimits& limits) { return limits.max_unit_bytes + (1 << 20); }

std::string ClientAddress(const std::string& peer, const std::string* http_client_addr) {
  absl::string_view p = peer;
  if (IsInProcessPeer(p)) {
    return http_client_addr != nullptr && !http_client_addr->empty() ? *http_client_addr
                                                                     : std::string(p);
  }
  if (absl::ConsumePrefix(&p, "ipv6:")) {
    // "[::1]:5000" -> "::1"
    if (absl::ConsumePrefix(&p, "[")) p = p.substr(0, p.find(']'));
    return std::string(p);
  }
  if (absl::ConsumePrefix(&p, "ipv4:")) {
    return std::string(p.substr(0, p.rfind(':')));
  }
  return std::string(p);  // "unix:/path": one address for every local client
}

namespace {

// The call's one log line. Calls from the REST mirror arrive in-process; the gateway names the
// HTTP client in x-forwarded-for. Any client can send that header, so it is logged beside the
// real peer, never in its place.
void LogCall(absl::Time start, const char* method, const std::string& user, int code,
             absl::Duration took, const std::string& peer_text,
             const std::multimap<grpc::string_ref, grpc::string_ref>& md,
             const std::string& request_id) {
  std::string forwarded;
  if (auto fwd = md.find("x-forwarded-for"); fwd != md.end()) {
    forwarded.assign(fwd->second.data(), fwd->second.size());
  }
  const std::string code_name = absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
  const std::string millis = absl::StrFormat("%.2f", absl::ToDoubleMilliseconds(took));
  if (forwarded.empty()) {
    LogEvent(start, "call",
             {{"method", method},
              {"user", user},
              {"code", code_name},
              {"duration_ms", LogValue::Number(millis)},
              {"peer", peer_text},
              {"request_id", request_id}});
  } else {
    LogEvent(start, "call",
             {{"method", method},
              {"user", user},
              {"code", code_name},
              {"duration_ms", LogValue::Number(millis)},
              {"peer", peer_text},
              {"forwarded_for", forwarded},
              {"request_id", request_id}});
  }
}

// Runs `fn` after the checks every call gets; `authenticate` says whether a bearer token is
// required (`fn` then receives the caller) or ignored (`fn` receives nullptr).
grpc::Status RunChecked(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                        const google::protobuf::Message& request, bool authenticate,
                        const std::function<absl::Status(const ops::Principal*)>& fn) {
  absl::Time start = absl::Now();
  std::string user = "-";
  const auto& md = ctx->client_metadata();
  const std::string peer_text = ctx->peer();
  std::string http_addr;
  if (auto it = md.find(kHttpClientAddrKey); it != md.end()) {
    http_addr.assign(it->second.data(), it->second.size());
  }
  const std::string addr =
      ClientAddress(peer_text, IsInProcessPeer(peer_text) ? &http_addr : nullptr);
  std::string given_id;
  const bool has_id = [&] {
    auto it = md.find("x-request-id");
    if (it == md.end()) return false;
    given_id.assign(it->second.data(), it->second.size());
    return true;
  }();
  const std::string request_id = RequestIdOr(has_id ? &given_id : nullptr);
  // Before the handler runs: a streaming handler sends the initial metadata with its first
  // message.
  ctx->AddInitialMetadata("x-request-id", request_id);
  absl::Status result = [&]() -> absl::Status {
    if (absl::Duration wait = gate.auth().RetryAfter(addr, start); wait > absl::ZeroDuration()) {
      return absl::ResourceExhaustedError(
          absl::StrFormat("too many failed authentication attempts from %s; retry in %d s", addr,
                          static_cast<int64_t>(std::ceil(absl::ToDoubleSeconds(wait)))));
    }
    std::optional<ops::Principal> principal;
    if (authenticate) {
      auto authenticated = gate.authenticator().Authenticate(BearerToken(ctx));
      if (!authenticated.ok()) {
        if (absl::IsUnauthenticated(authenticated.status()) &&
            gate.auth().RecordFailure(addr, start)) {
          LogEvent(start, "auth_blocked",
                   {{"addr", addr},
                    {"failures", LogValue::Number(absl::StrCat(gate.limits().auth.burst))},
                    {"message",
                     "failed authentication attempts; its calls are refused until it is allowed "
                     "another try"},
                    {"request_id", request_id}});
        }
        return authenticated.status();
      }
      principal = *std::move(authenticated);
      user = principal->username;
    }
    TextFieldLimits text_limits;
    text_limits.max_field_bytes = static_cast<size_t>(gate.limits().max_unit_bytes);
    text_limits.limit_name = "cubd --max-unit-bytes";
    if (auto s = CheckTextFields(request, text_limits); !s.ok()) return s;
    RequestBudget::Charge charge;
    if (auto s = gate.budget().Acquire(static_cast<int64_t>(request.ByteSizeLong()), &charge);
        !s.ok()) {
      return s;
    }
    try {
      return fn(principal ? &*principal : nullptr);
    } catch (const std::bad_alloc&) {
      // Not a bug in the request's handling: this call wanted more memory than cubd could have.
      LogMessage(absl::StrCat("cubd: ", method, ": out of memory (request_id ", request_id, ")"));
      return absl::ResourceExhaustedError(
          "out of memory: cubd could not allocate what this request needs; retry later or send "
          "less");
    } catch (const std::exception& e) {
      // A bug, not a refusal: report it without leaking internals to the caller.
      LogMessage(absl::StrCat("cubd: ", method, ": unexpected exception: ", e.what(),
                              " (request_id ", request_id, ")"));
      return absl::InternalError("internal error; see the cubd log");
    }
  }();
  grpc::Status out = ToGrpc(result);
  const absl::Duration took = absl::Now() - start;
  const int code = static_cast<int>(out.error_code());
  if (gate.metrics() != nullptr) gate.metrics()->RecordCall(method, code, took);
  LogCall(start, method, user, code, took, peer_text, md, request_id);
  return out;
}

}  // namespace

grpc::Status RunCall(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                     const google::protobuf::Message& request,
                     const std::function<absl::Status(const ops::Principal&)>& fn) {
  return RunChecked(gate, ctx, method, request, /*authenticate=*/true,
                    [&](const ops::Principal* p) { return fn(*p); });
}

grpc::Status RunPublicCall(CallGate& gate, grpc::ServerContext* ctx, const char* method,
                           const google::protobuf::Message& request,
                           const std::function<absl::Status()>& fn) {
  return RunChecked(gate, ctx, method, request, /*authenticate=*/false,
                    [&](const ops::Principal*) { return fn(); });
}

}  // namespace cub::server
