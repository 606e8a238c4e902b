// A small HTTP/1.1 server on POSIX sockets, with optional TLS (OpenSSL), that carries cubd's
// REST/JSON mirror and health endpoint (see rest_gateway.h for what is served). No external
// HTTP library: the surface we need is small (one request at a time per connection,
// Content-Length or chunked request bodies, Content-Length responses, keep-alive), and owning it
// lets us bound every resource a client can hold.
//
// Model. One poller thread owns the listening socket and every *idle* connection (new ones that
// have not sent a byte yet, and keep-alive ones between requests) in an epoll set. When an idle
// connection becomes readable it is handed to a bounded queue served by a fixed pool of worker
// threads; a worker reads one request (TLS handshake first, if any), calls the handler, writes
// the response and gives the connection back to the poller (or keeps reading, if the client
// pipelined). So an idle keep-alive connection costs a file descriptor, never a worker. When the
// queue is full the connection is answered 503 at once (plaintext; a TLS connection is closed,
// as there is no handshake yet to answer over).
//
// Limits. Every wait is bounded: a new connection must start its request within
// `header_timeout`, the request line and headers must be complete within `header_timeout`, the
// body within `transfer_timeout`, the response written within `transfer_timeout`, and no single
// read or write may stall for more than `io_timeout`; keep-alive connections idle for more than
// `keepalive_timeout` are closed. Bodies above `max_body_bytes` get 413, header sections above
// `max_header_bytes` 431, and the number of open connections is capped at `max_connections`
// (beyond that, new connections are closed on accept). The handler's own run time is not
// bounded here: handlers must bound themselves (the REST gateway passes a deadline on every
// gRPC call).
//
// Errors the server produces itself (400 malformed request, 408, 413, 431, 501 unsupported
// transfer coding, 503, 505) have the REST mirror's JSON error body, see JsonErrorBody().

#ifndef CUB_SERVER_HTTP_SERVER_H_
#define CUB_SERVER_HTTP_SERVER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

typedef struct ssl_ctx_st SSL_CTX;

namespace cub::server {

// PEM files for TLS. Both empty: plaintext. `cert_file` may hold a chain (leaf first).
struct TlsFiles {
  std::string cert_file;
  std::string key_file;
};

struct HttpRequest {
  std::string method;  // as sent, e.g. "POST" (methods are case-sensitive)
  std::string path;    // request target without the query, e.g. "/v1/SpaceService/GetSpace"
  std::string query;   // after '?', not decoded; empty if none
  std::map<std::string, std::string> headers;  // names lowercased; repeated headers joined ", "
  std::string body;                            // de-chunked if it was sent chunked
  std::string remote_addr;                     // peer IP address, e.g. "127.0.0.1" or "::1"
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  // Extra headers (e.g. Allow, WWW-Authenticate). The server sets Content-Type, Content-Length
  // and Connection itself; a header whose name or value holds CR or LF is dropped.
  std::vector<std::pair<std::string, std::string>> headers;
};

// Called on worker threads, concurrently; must be thread-safe. An exception escaping it is
// answered 500. For HEAD requests the server sends the headers of the returned response
// without its body.
using HttpHandler = std::function<HttpResponse(const HttpRequest&)>;

struct HttpServerOptions {
  int threads = 8;     // worker threads; at least 1
  int max_queued = 0;  // connections waiting for a worker before 503; 0 means 4 * threads
  int max_connections = 4096;
  size_t max_body_bytes = 16u << 20;    // larger bodies get 413
  size_t max_header_bytes = 64u << 10;  // larger request line + headers get 431
  std::chrono::milliseconds header_timeout{10'000};
  std::chrono::milliseconds transfer_timeout{60'000};
  std::chrono::milliseconds io_timeout{10'000};
  std::chrono::milliseconds keepalive_timeout{30'000};
  // How long Shutdown() lets in-flight requests finish before it closes their sockets.
  std::chrono::milliseconds shutdown_grace{10'000};
};

// Thread-safety: bound_port() may be called from any thread; Shutdown() from any thread but a
// handler's (it joins the workers), and more than once. Destroying the server shuts it down.
class HttpServer {
 public:
  // Binds `listen` and starts serving. `listen` is "HOST:PORT", "[IPV6]:PORT" or ":PORT" (all
  // IPv4 interfaces); HOST may be a name, the first address that binds is used; PORT 0 picks a
  // free port (see bound_port()). Fails with InvalidArgument for a malformed address or
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
  int bound_port() const { return bound_port_; }

  // Stops accepting (the listening socket is closed, idle connections too), lets requests in
  // flight or already queued finish with "Connection: close" for up to `shutdown_grace`, then
  // closes the sockets of those still running and joins all threads. A handler still running
  // is waited for: handlers must bound their own run time. To drain the REST mirror of a gRPC
  // server, shut this down before the gRPC server.
  void Shutdown();

  struct Conn;  // implementation detail: one client connection, defined in http_server.cc

 private:
  HttpServer(HttpServerOptions options, HttpHandler handler);

  void PollLoop();
  void AcceptAll();
  void WorkerLoop();
  void Serve(std::unique_ptr<Conn> conn);
  void Park(std::unique_ptr<Conn> conn, std::chrono::steady_clock::time_point deadline);
  void Reject(std::unique_ptr<Conn> conn);

  const HttpServerOptions options_;
  const HttpHandler handler_;
  SSL_CTX* ssl_ctx_ = nullptr;  // owned; null for plaintext
  int listen_fd_ = -1;
  int epoll_fd_ = -1;
  int wake_fd_ = -1;  // eventfd that interrupts the poller
  int bound_port_ = 0;
  std::atomic<int> open_connections_{0};

  std::mutex mu_;
  std::condition_variable work_cv_;  // queue_ non-empty or stopping_
  std::condition_variable exit_cv_;  // a worker exited
  bool stopping_ = false;
  bool force_close_ = false;  // grace period over: drop queued work, cut active connections
  bool shut_down_ = false;    // Shutdown() completed or in progress
  int workers_running_ = 0;
  std::deque<std::unique_ptr<Conn>> queue_;                  // waiting for a worker
  std::unordered_map<Conn*, std::unique_ptr<Conn>> parked_;  // idle, owned by the poller
  std::unordered_map<Conn*, int> active_;                    // being served: conn -> fd

  std::mutex shutdown_mu_;  // serializes Shutdown() callers
  std::thread poller_;
  std::vector<std::thread> workers_;
};

// The JSON error body of the REST mirror: {"code":5,"status":"NOT_FOUND","message":"..."}.
// `grpc_code` is a grpc::StatusCode value; `message` is escaped (malformed UTF-8 becomes U+FFFD).
std::string JsonErrorBody(int grpc_code, std::string_view message);

// "NOT_FOUND" for 5, and so on; "UNKNOWN" for codes outside 0..16.
const char* GrpcCodeName(int grpc_code);

}  // namespace cub::server

#endif  // CUB_SERVER_HTTP_SERVER_H_
