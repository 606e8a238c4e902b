// The REST/JSON mirror of cubd's gRPC API (DESIGN.md section 5). Every unary and
// server-streaming RPC is also served as
//
//   POST /v1/<Service>/<Method>      e.g. POST /v1/SpaceService/GetSpace  {"Space": "home"}
//
// where <Service> is the short name (resolved in the default package, cub.v1) or the full name
// (cub.v1.SpaceService). The body is the protobuf JSON mapping of the request message (fields by
// their json_name, e.g. "Space"; unknown fields are an error; an empty body is the empty
// message), the response is the JSON mapping of the response message with every field printed,
// defaults included. `GET /healthz` answers 200 "ok".
//
// A unary method whose name starts with "List" is also served as `GET /v1/<Service>/<Method>?...`
// with its request in the query string (server/rest_query.h: `?Space=home&Limit=50&PageToken=T`,
// `Options.Where=...`), so that dashboards can page lists with plain links.
//
// One generic path serves every method, with no code per method: the method is looked up in a
// DescriptorPool, the JSON becomes a (dynamic) request message, its bytes go through a
// grpc::GenericStub on the gRPC server's in-process channel, and the response bytes come back as
// JSON. So authentication, logging and limits of the gRPC server apply to REST exactly as to
// gRPC. Forwarded as gRPC metadata: `Authorization` (the bearer token, as `authorization`),
// `X-Request-Id` (as `x-request-id`; one is made up when the client sent none or an unusable
// one, see server/request_log.h, and every response carries it back), `x-forwarded-for` (the
// incoming value, if any, plus the HTTP peer's address; informational, for logs: a gRPC client can
// set it too, so it must not be trusted for decisions), and `cub-http-client-addr` (the HTTP peer's
// address alone, which cubd trusts only on calls of its in-process channel, to rate-limit failed
// authentication).
//
// Server-streaming methods are served the same way (POST, the request as JSON) with a 200
// `Content-Type: text/event-stream` response of server-sent events: each message is one
// `data: <JSON>` event (one line, printed as a unary response is), and the response ends when
// the call does. An error before the first message is an ordinary JSON error response, as for
// a unary call; after it, an `event: error` event whose data is the JSON error body, and the
// response ends. The first message must come within the deadline of a unary call; the stream
// itself has none; after 15 s without a message a `: keep-alive` comment is sent. A client that
// disconnects cancels the call (within half a second).
// Client-streaming methods are not served (501).
//
// Errors have the JSON body {"code": <grpc code>, "status": "NOT_FOUND", "message": "..."} and an
// HTTP status from HttpStatusForGrpcCode(). FAILED_PRECONDITION maps to 400, not 422, following
// google.rpc.Code's HTTP mapping (as grpc-gateway does), so every client-side refusal that is not
// auth, existence or conflict is a 400. Routing errors: unknown path, service or method 404 (code
// NOT_FOUND); a client-streaming method 501 (UNIMPLEMENTED); a method other than POST (or GET, for
// a List method) 405 with an Allow header (code UNIMPLEMENTED); a bad query parameter 400;
// malformed JSON or an unknown field 400 (INVALID_ARGUMENT) naming the problem; a body that is not
// UTF-8, or a string field that is not text (a NUL byte), 400 (INVALID_ARGUMENT) naming the offset
// or the field; an Authorization header that cannot be gRPC metadata (non-ASCII) 401. A 401 carries
// `WWW-Authenticate: Bearer`.

#ifndef CUB_SERVER_REST_GATEWAY_H_
#define CUB_SERVER_REST_GATEWAY_H_

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <grpcpp/channel.h>
#include <grpcpp/support/byte_buffer.h>

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/http_server.h"

namespace cub::server {

class StreamRelays;  // server/rest_stream.h

struct RestGatewayOptions {
  // Package that short service names resolve in: "SpaceService" -> "cub.v1.SpaceService".
  std::string default_package = "cub.v1";
  // Deadline of each gRPC call made for a REST request.
  std::chrono::milliseconds deadline{60'000};
  // Silence on an event stream after which a `: keep-alive` comment is sent.
  std::chrono::milliseconds stream_heartbeat{15'000};
};

// Thread-safety: Handle() may be called concurrently from any number of threads.
// Ownership: keeps `channel` alive; `pool` is borrowed and must outlive the gateway (usually
// google::protobuf::DescriptorPool::generated_pool(), which lives forever).
class RestGateway {
 public:
  // `channel` reaches the gRPC server, normally grpc::Server::InProcessChannel(); `pool`
  // describes its services. gRPC's message size limits apply to the in-process call like to any
  // other: requests above the server's max receive size (4 MiB by default) and responses above
  // the channel's (ChannelArguments::SetMaxReceiveMessageSize, 4 MiB by default) fail with
  // RESOURCE_EXHAUSTED (429), so size them to what the REST mirror should carry.
  RestGateway(std::shared_ptr<grpc::Channel> channel, const google::protobuf::DescriptorPool* pool,
              RestGatewayOptions options = {});

  RestGateway(const RestGateway&) = delete;
  RestGateway& operator=(const RestGateway&) = delete;
  // Cancels the streams still being relayed and waits for their threads.
  ~RestGateway();

  // Serves one HTTP request: /healthz, or the generic mapping described above. Blocks for the
  // duration of the gRPC call (at most the configured deadline), or for a server-streaming one
  // until its first message (the rest is relayed by a thread of its own). Never throws.
  HttpResponse Handle(const HttpRequest& req) const;

  // Handle() as an HttpHandler for HttpServer::Start. The gateway must outlive the server.
  HttpHandler AsHandler() const {
    return [this](const HttpRequest& req) { return Handle(req); };
  }

 private:
  // Handle() without the request ID header and the log line of a refusal; `*called` is set
  // once a gRPC call is made (it logs its own line).
  HttpResponse Route(const HttpRequest& req, const std::string& request_id, bool* called) const;
  const google::protobuf::ServiceDescriptor* FindService(const std::string& name) const;
  // The unary method /v1/<Service>/<Method> names: NOT_FOUND for no such path, service or
  // method; UNIMPLEMENTED for a streaming one.
  absl::StatusOr<const google::protobuf::MethodDescriptor*> FindMethod(
      const std::string& path) const;
  // The JSON body as the method's request, serialized: INVALID_ARGUMENT naming what is wrong
  // (not UTF-8, not the message's JSON, a text field gRPC cannot carry).
  absl::StatusOr<grpc::ByteBuffer> DecodeRequest(const google::protobuf::MethodDescriptor& method,
                                                 const std::string& body) const;
  // The method's response bytes as JSON (INTERNAL when they do not parse).
  absl::StatusOr<std::string> EncodeJson(const google::protobuf::MethodDescriptor& method,
                                         grpc::ByteBuffer& bytes) const;
  // The method's response bytes as a 200 JSON response (INTERNAL when they do not parse).
  HttpResponse EncodeResponse(const google::protobuf::MethodDescriptor& method,
                              grpc::ByteBuffer& bytes) const;
  // A server-streaming method: its messages as server-sent events.
  HttpResponse HandleStream(const HttpRequest& req,
                            const google::protobuf::MethodDescriptor& method,
                            const std::string& path, const grpc::ByteBuffer& request,
                            const std::string& request_id) const;

  const std::shared_ptr<grpc::Channel> channel_;
  const google::protobuf::DescriptorPool* const pool_;
  const RestGatewayOptions options_;
  // Builds request/response messages for the pool's types (the generated classes when the
  // types are generated ones). GetPrototype() is thread-safe.
  mutable google::protobuf::DynamicMessageFactory factory_;
  // The threads relaying streams; destroyed first, as they use the members above.
  const std::unique_ptr<StreamRelays> relays_;
};

// OK 200; INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE 400; UNAUTHENTICATED 401;
// PERMISSION_DENIED 403; NOT_FOUND 404; ALREADY_EXISTS, ABORTED 409; RESOURCE_EXHAUSTED 429;
// UNIMPLEMENTED 501; UNAVAILABLE 503; DEADLINE_EXCEEDED 504; any other code 500.
int HttpStatusForGrpcCode(int grpc_code);

}  // namespace cub::server

#endif  // CUB_SERVER_REST_GATEWAY_H_
