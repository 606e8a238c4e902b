#include "server/rest_gateway.h"

#include <google/protobuf/message.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/client_context.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/proto_buffer_reader.h>
#include <grpcpp/support/slice.h>
#include <grpcpp/support/status.h>
#include <grpcpp/support/stub_options.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "lib/util/proto_json.h"
#include "lib/util/proto_text.h"
#include "lib/util/status_macros.h"
#include "lib/util/utf8.h"
#include "server/call.h"
#include "server/request_log.h"
#include "server/rest_query.h"
#include "server/rest_stream.h"

namespace cub::server {
namespace {

namespace pb = google::protobuf;

HttpResponse JsonError(int grpc_code, std::string_view message, int http_status = 0) {
  HttpResponse r;
  r.status = http_status != 0 ? http_status : HttpStatusForGrpcCode(grpc_code);
  r.content_type = "application/json";
  r.body = JsonErrorBody(grpc_code, message);
  r.headers.emplace_back("Cache-Control", "no-store");
  if (r.status == 401) r.headers.emplace_back("WWW-Authenticate", "Bearer");
  return r;
}

HttpResponse MethodNotAllowed(const std::string& method, const char* allow) {
  HttpResponse r = JsonError(static_cast<int>(grpc::StatusCode::UNIMPLEMENTED),
                             absl::StrCat("method ", method, " is not allowed here; use ", allow),
                             /*http_status=*/405);
  r.headers.emplace_back("Allow", allow);
  return r;
}

// gRPC metadata values must be printable ASCII.
bool IsMetadataValue(std::string_view v) {
  for (unsigned char c : v) {
    if (c < 0x20 || c > 0x7e) return false;
  }
  return true;
}

// A blocking unary call through the generic stub's callback API.
grpc::Status CallUnary(const std::shared_ptr<grpc::Channel>& channel, grpc::ClientContext* ctx,
                       const std::string& path, const grpc::ByteBuffer& request,
                       grpc::ByteBuffer* response) {
  grpc::GenericStub stub(channel);
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status result;
  stub.UnaryCall(ctx, path, grpc::StubOptions(), &request, response, [&](grpc::Status s) {
    std::lock_guard<std::mutex> l(mu);
    result = std::move(s);
    done = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return done; });
  return result;
}

bool IsBlank(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; });
}

}  // namespace

int HttpStatusForGrpcCode(int grpc_code) {
  switch (static_cast<grpc::StatusCode>(grpc_code)) {
    case grpc::StatusCode::OK:
      return 200;
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
      return 400;
    case grpc::StatusCode::UNAUTHENTICATED:
      return 401;
    case grpc::StatusCode::PERMISSION_DENIED:
      return 403;
    case grpc::StatusCode::NOT_FOUND:
      return 404;
    case grpc::StatusCode::ALREADY_EXISTS:
    case grpc::StatusCode::ABORTED:
      return 409;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return 429;
    case grpc::StatusCode::UNIMPLEMENTED:
      return 501;
    case grpc::StatusCode::UNAVAILABLE:
      return 503;
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      return 504;
    default:
      return 500;
  }
}

RestGateway::RestGateway(std::shared_ptr<grpc::Channel> channel, const pb::DescriptorPool* pool,
                         RestGatewayOptions options)
    : channel_(std::move(channel)),
      pool_(pool),
      options_(std::move(options)),
      relays_(std::make_unique<StreamRelays>()) {
  factory_.SetDelegateToGeneratedFactory(true);
}

RestGateway::~RestGateway() = default;

const pb::ServiceDescriptor* RestGateway::FindService(const std::string& name) const {
  if (name.find('.') != std::string::npos) return pool_->FindServiceByName(name);
  if (options_.default_package.empty()) return pool_->FindServiceByName(name);
  return pool_->FindServiceByName(absl::StrCat(options_.default_package, ".", name));
}

namespace {

HttpResponse Healthz(const HttpRequest& req) {
  if (req.method != "GET" && req.method != "HEAD") return MethodNotAllowed(req.method, "GET, HEAD");
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "ok";
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpResponse JsonError(const absl::Status& s) {
  return JsonError(static_cast<int>(s.code()), std::string(s.message()));
}

// The caller's headers that the call carries: the credentials, the request ID, and the
// client's address (X-Forwarded-For, and the address failed authentications are counted
// against, which cubd trusts only in-process).
absl::Status AddCallMetadata(const HttpRequest& req, const std::string& request_id,
                             grpc::ClientContext& ctx) {
  auto header = [&](const char* name) -> const std::string* {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? nullptr : &it->second;
  };
  if (const std::string* auth = header("authorization")) {
    if (!IsMetadataValue(*auth))
      return absl::UnauthenticatedError("malformed Authorization header");
    ctx.AddMetadata("authorization", *auth);
  }
  ctx.AddMetadata("x-request-id", request_id);  // RequestIdOr made it safe as metadata
  if (!req.remote_addr.empty()) {
    std::string forwarded = req.remote_addr;
    if (const std::string* xff = header("x-forwarded-for");
        xff && xff->size() <= 1000 && IsMetadataValue(*xff)) {
      forwarded = absl::StrCat(*xff, ", ", req.remote_addr);
    }
    ctx.AddMetadata("x-forwarded-for", forwarded);
    ctx.AddMetadata(kHttpClientAddrKey, req.remote_addr);
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<const pb::MethodDescriptor*> RestGateway::FindMethod(const std::string& path) const {
  absl::string_view rest = path;
  std::vector<std::string> parts;
  if (absl::ConsumePrefix(&rest, "/v1/")) parts = absl::StrSplit(rest, '/');
  if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
    return absl::NotFoundError(absl::StrCat("no resource at ", path,
                                            "; the API is served at POST /v1/<Service>/<Method>"));
  }
  const pb::ServiceDescriptor* service = FindService(parts[0]);
  if (service == nullptr) {
    return absl::NotFoundError(absl::StrCat("unknown service \"", parts[0], "\""));
  }
  const pb::MethodDescriptor* method = service->FindMethodByName(parts[1]);
  if (method == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("unknown method \"", parts[1], "\" of service ", service->full_name()));
  }
  if (method->client_streaming()) {
    return absl::UnimplementedError(
        absl::StrCat(method->full_name(),
                     " is a client-streaming method; the REST mirror serves unary and "
                     "server-streaming methods only, use gRPC"));
  }
  return method;
}

absl::StatusOr<grpc::ByteBuffer> RestGateway::DecodeRequest(const pb::MethodDescriptor& method,
                                                            const std::string& body) const {
  const pb::Message* prototype = factory_.GetPrototype(method.input_type());
  if (prototype == nullptr) {
    return absl::InternalError(absl::StrCat("no message types for ", method.full_name()));
  }
  std::unique_ptr<pb::Message> request(prototype->New());
  if (size_t bad = FindInvalidUtf8(body); bad != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the request body is not valid UTF-8 at byte offset ", bad, "; JSON text must be UTF-8"));
  }
  if (!IsBlank(body)) {
    pb::util::JsonParseOptions parse;
    parse.ignore_unknown_fields = false;
    auto status = pb::util::JsonStringToMessage(body, request.get(), parse);
    if (!status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("invalid JSON for ",
                                                     method.input_type()->full_name(), ": ",
                                                     std::string(status.message())));
    }
  }
  // Text that gRPC would fail to carry (invalid UTF-8) or the store would cut (NUL) is
  // refused here, naming the field, rather than as an unexplained INTERNAL from the parser.
  CUB_RETURN_IF_ERROR(CheckTextFields(*request));
  // Serialized straight into the slice gRPC sends, and the message freed: a large Unit is
  // held once here, not three times, while the call runs.
  const size_t request_size = request->ByteSizeLong();
  grpc::Slice slice(request_size);
  if (request_size > 0 && !request->SerializeToArray(const_cast<uint8_t*>(slice.begin()),
                                                     static_cast<int>(request_size))) {
    return absl::InvalidArgumentError("request message cannot be serialized");
  }
  return grpc::ByteBuffer(&slice, 1);
}

absl::StatusOr<std::string> RestGateway::EncodeJson(const pb::MethodDescriptor& method,
                                                    grpc::ByteBuffer& bytes) const {
  const pb::Message* prototype = factory_.GetPrototype(method.output_type());
  if (prototype == nullptr) {
    return absl::InternalError(absl::StrCat("no message types for ", method.full_name()));
  }
  std::unique_ptr<pb::Message> response(prototype->New());
  grpc::ProtoBufferReader reader(&bytes);
  if (!response->ParseFromZeroCopyStream(&reader)) {
    return absl::InternalError(absl::StrCat("malformed ", method.output_type()->full_name(),
                                            " from ", method.full_name()));
  }
  // The API's JSON (json_name keys, fields with default values included), printed in one pass
  // as cub prints it: protobuf's printer reparsed the message into a tree first, 7 ms of CPU
  // for a ChangeOrder with 10,000 Spaces in scope.
  return util::ProtoJson(*response);
}

HttpResponse RestGateway::EncodeResponse(const pb::MethodDescriptor& method,
                                         grpc::ByteBuffer& bytes) const {
  absl::StatusOr<std::string> json = EncodeJson(method, bytes);
  if (!json.ok()) return JsonError(json.status());
  HttpResponse r;
  r.body = *std::move(json);
  r.status = 200;
  r.content_type = "application/json";
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

HttpResponse RestGateway::HandleStream(const HttpRequest& req, const pb::MethodDescriptor& method,
                                       const std::string& path, const grpc::ByteBuffer& request,
                                       const std::string& request_id) const {
  auto call = std::make_shared<StreamingCall>(
      channel_, path, [this, &method](grpc::ByteBuffer& b) { return EncodeJson(method, b); },
      options_.stream_heartbeat);
  if (absl::Status s = AddCallMetadata(req, request_id, call->context()); !s.ok()) {
    return JsonError(s);
  }
  // No deadline on the stream itself: it runs until it ends or the HTTP client leaves. Its
  // first message must come within the deadline of a unary call.
  absl::StatusOr<std::string> first =
      call->Begin(request, std::chrono::system_clock::now() + options_.deadline);
  if (!first.ok()) return JsonError(first.status());
  HttpResponse r;
  r.status = 200;
  r.content_type = "text/event-stream";
  r.headers.emplace_back("Cache-Control", "no-store");
  r.headers.emplace_back("X-Accel-Buffering", "no");  // proxies must pass events on at once
  StreamRelays* relays = relays_.get();
  r.stream = [relays, call, frame = *std::move(first)](std::shared_ptr<HttpStream> out) {
    if (!frame.empty()) out->Write(frame);
    relays->Start(call, std::move(out));
  };
  return r;
}

HttpResponse RestGateway::Handle(const HttpRequest& req) const {
  auto given = req.headers.find("x-request-id");
  const std::string request_id = RequestIdOr(given == req.headers.end() ? nullptr : &given->second);
  bool called = false;
  HttpResponse r = Route(req, request_id, &called);
  r.headers.emplace_back("X-Request-Id", request_id);
  // A refusal before any call was made has no call line of its own.
  if (!called && r.status >= 400) {
    LogEvent(absl::Now(), "http",
             {{"refused", "request"},
              {"status", LogValue::Number(absl::StrCat(r.status))},
              {"peer", req.remote_addr},
              {"method", req.method},
              {"path", req.path},
              {"request_id", request_id}});
  }
  return r;
}

HttpResponse RestGateway::Route(const HttpRequest& req, const std::string& request_id,
                                bool* called) const {
  if (req.path == "/healthz") return Healthz(req);
  absl::StatusOr<const pb::MethodDescriptor*> method = FindMethod(req.path);
  if (!method.ok()) return JsonError(method.status());
  // A unary List method may also be read with GET, its request in the query string.
  const bool gettable =
      !(*method)->server_streaming() && absl::StartsWith((*method)->name(), "List");
  const bool get = gettable && req.method == "GET";
  if (req.method != "POST" && !get) {
    return MethodNotAllowed(req.method, gettable ? "GET, POST" : "POST");
  }
  if (factory_.GetPrototype((*method)->output_type()) == nullptr) {
    return JsonError(
        absl::InternalError(absl::StrCat("no message types for ", (*method)->full_name())));
  }
  absl::StatusOr<std::string> query_body;
  if (get) {
    query_body = QueryToJson(*(*method)->input_type(), req.query);
    if (!query_body.ok()) return JsonError(query_body.status());
  }
  absl::StatusOr<grpc::ByteBuffer> request = DecodeRequest(**method, get ? *query_body : req.body);
  if (!request.ok()) return JsonError(request.status());

  const std::string path =
      absl::StrCat("/", (*method)->service()->full_name(), "/", (*method)->name());
  *called = true;
  if ((*method)->server_streaming()) {
    return HandleStream(req, **method, path, *request, request_id);
  }

  // The in-process gRPC call.
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + options_.deadline);
  if (absl::Status s = AddCallMetadata(req, request_id, ctx); !s.ok()) return JsonError(s);
  grpc::ByteBuffer response;
  grpc::Status status = CallUnary(channel_, &ctx, path, *request, &response);
  request->Clear();
  if (!status.ok()) return JsonError(static_cast<int>(status.error_code()), status.error_message());
  return EncodeResponse(**method, response);
}

}  // namespace cub::server
