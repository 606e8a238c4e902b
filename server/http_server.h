// The HTTP/1.1 server (optionally TLS) that carries cubd's REST/JSON mirror and health endpoint
// (see rest_gateway.h for what is served). Built on Boost.Beast over Boost.Asio, with OpenSSL for
// TLS.
//
// Model. A small pool of I/O threads (`io_threads`) runs every socket with asynchronous reads
// and writes: accepting, the TLS handshake, reading and parsing requests (Beast's request
// parser), writing responses. A client that is slow to send, or idle, holds a socket and a
// buffer, never a thread. Only a complete request goes to the bounded pool of `threads` worker
// threads, which run the (blocking) handler; the response is handed back to the connection's I/O
// strand to be written. One request per connection is handled at a time, so pipelined requests
// are answered in order. When `max_queued` complete requests already wait for a worker, the next
// one is answered 503 at once.
//
// Limits. A new connection must complete its TLS handshake and send its request line and headers
// within `header_timeout` of being accepted; a later request on a kept-alive connection must
// complete its headers within `header_timeout` of its first byte, and keep-alive connections idle
// for `keepalive_timeout` are closed. The body must arrive within `transfer_timeout` of the end
// of the headers, a response be written within `transfer_timeout`, and no read inside a request
// may stall for more than `io_timeout`. Header sections above `max_header_bytes` get 431, bodies
// above `max_body_bytes` 413. At most `max_connections` connections are open at once (beyond
// that new ones are closed on accept) and at most `max_connections_per_client` from one client IP
// address (beyond that new ones are answered 503, or closed for TLS). Each refusal is logged to
// stderr on one line. The handler's own run time is not bounded here: handlers must bound
// themselves (the REST gateway passes a deadline on every gRPC call).
//
// Strictness (request smuggling). Transfer-Encoding other than "chunked" gets 501; both
// Transfer-Encoding and Content-Length, differing Content-Length fields, Transfer-Encoding in
// HTTP/1.0, obsolete line folding and bare-LF line ends get 400. Errors the server produces
// itself (400, 408, 413, 417, 431, 500, 501, 503, 505) have the REST mirror's JSON error body,
// see JsonErrorBody(), and close the connection.
//
// Streaming. A handler may answer with a long-lived response whose body is produced later, from
// any thread (server-sent events): see HttpStream and HttpResponse::stream.

#ifndef CUB_SERVER_HTTP_SERVER_H_
#define CUB_SERVER_HTTP_SERVER_H_

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cub::server {

// PEM files for TLS. Both empty: plaintext. `cert_file` may hold a chain (leaf first).
struct TlsFiles {
  std::string cert_file;
  std::string key_file;
};

// A certificate chain (PEM, leaf first) and its private key (PEM), in memory.
struct TlsPem {
  std::string cert_chain;
  std::string private_key;
};

struct HttpRequest {
  std::string method;  // as sent, e.g. "POST" (methods are case-sensitive)
  std::string path;    // request target without the query, e.g. "/v1/SpaceService/GetSpace"
  std::string query;   // after '?', not decoded; empty if none
  std::map<std::string, std::string> headers;  // names lowercased; repeated headers joined ", "
  std::string body;                            // de-chunked if it was sent chunked
  std::string remote_addr;                     // peer IP address, e.g. "127.0.0.1" or "::1"
};

// The body of a streaming response, written from any thread while the connection is open.
// Thread-safe; no call blocks (data is queued and written by the connection's I/O thread).
// The stream ends when the producer calls Close(), the client disconnects, a write times out
// (`transfer_timeout`), more than `max_stream_buffer_bytes` are queued unsent (a client that
// does not read), or the server shuts down. The connection is closed after the stream ends.
class HttpStream {
 public:
  virtual ~HttpStream() = default;
  // Queues `data` as the next piece of the body (one chunk, for HTTP/1.1). Returns false, and
  // drops the data, if the stream has ended.
  virtual bool Write(std::string data) = 0;
  // Ends the stream after what is queued has been sent. Idempotent.
  virtual void Close() = 0;
  // True once the stream has ended, for whatever reason.
  virtual bool closed() const = 0;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Extra headers (e.g. Allow, WWW-Authenticate). The server sets Content-Type, Content-Length,
  // Transfer-Encoding and Connection itself; a header whose name or value holds CR or LF is
  // dropped.
  std::vector<std::pair<std::string, std::string>> headers;
  // Set for a streaming response (e.g. `Content-Type: text/event-stream`): `body` is ignored,
  // the headers are sent (chunked for HTTP/1.1, close-delimited for HTTP/1.0) and then `stream`
  // is called once, on a worker thread, with the stream to write the body to. It must return
  // promptly: it should hand the stream to a producer, not produce the body itself. Not called
  // for HEAD requests (only the headers are sent).
  std::function<void(std::shared_ptr<HttpStream>)> stream;
};

// Called on worker threads, concurrently; must be thread-safe. An exception escaping it is
// answered 500. For HEAD requests the server sends the headers of the returned response
// without its body.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  int threads = 8;     // worker threads that run the handler; at least 1
  int io_threads = 1;  // threads that run every socket's I/O; at least 1
  int max_queued = 0;  // complete requests waiting for a worker before 503; 0 means 4 * threads
  int max_connections = 4096;
  int max_connections_per_client = 256;       // per client IP address; 0: no limit of its own
  size_t max_body_bytes = 16u << 20;          // larger bodies get 413
  size_t max_header_bytes = 64u << 10;        // larger request line + headers get 431
  size_t max_stream_buffer_bytes = 1u << 20;  // unsent bytes of a streaming response
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds transfer_timeout{60'000};
  std::chrono::milliseconds io_timeout{10'000};
  std::chrono::milliseconds keepalive_timeout{30'000};
  // How long Shutdown() lets in-flight requests finish before it closes their sockets.
  std::chrono::milliseconds shutdown_grace{10'000};
  bool log_refusals = true;  // one line on stderr for each refused connection or request
};

// Thread-safety: bound_port() may be called from any thread; Shutdown() from any thread but a
// handler's (it joins the workers), and more than once. Destroying the server shuts it down.
class HttpServer {
 public:
  // Binds `listen` and starts serving. `listen` is "HOST:PORT", "[IPV6]:PORT" or ":PORT" (all
  // IPv4 interfaces); HOST may be a name, the first address that binds is used; PORT 0 picks a
  // free port (see bound_port()). Fails with InvalidArgument for a malformed address, options or
  // unusable TLS files, Unavailable if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const std::string& listen,
                                                           const TlsFiles& tls, int threads,
                                                           HttpHandler handler);
  static absl::StatusOr<std::unique_ptr<HttpServer>> Start(const std::string& listen,
                                                           const TlsFiles& tls,
                                                           const HttpServerOptions& options,
                                                           HttpHandler handler);

  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  ~HttpServer();

  // The port actually bound (useful after listening on port 0).
  int bound_port() const;

  // Serves `pem` to the TLS connections accepted from now on; those open keep the pair they
  // started with. InvalidArgument, and nothing changes, if the pair is unusable (not PEM, or
  // a key that does not match the certificate) or this server was started without TLS.
  // Thread-safe (a certificate reloader calls it from its own thread).
  absl::Status ReplaceTls(const TlsPem& pem);

  // Stops accepting (the listening socket is closed), closes idle connections and ends
  // streaming responses, lets requests being read, queued or handled finish with
  // "Connection: close" for up to `shutdown_grace`, then closes the sockets of those left and
  // joins all threads. A handler still running is waited for: handlers must bound their own run
  // time. To drain the REST mirror of a gRPC server, shut this down before the gRPC server.
  void Shutdown();

  class Impl;  // implementation detail, defined in http_server.cc

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);

  std::mutex shutdown_mu_;  // serializes Shutdown() callers
  std::unique_ptr<Impl> impl_;
};

// The JSON error body of the REST mirror: {"code":5,"status":"NOT_FOUND","message":"..."}.
// `grpc_code` is a grpc::StatusCode value, named as absl::StatusCodeToString names it ("UNKNOWN"
// outside 0..16); `message` is escaped (malformed UTF-8 becomes U+FFFD).
std::string JsonErrorBody(int grpc_code, std::string_view message);

}  // namespace cub::server

#endif  // CUB_SERVER_HTTP_SERVER_H_
