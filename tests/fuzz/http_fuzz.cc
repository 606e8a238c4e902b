// libFuzzer target for the REST mirror's HTTP request path (server/http_server.cc and
// server/http_request_checks.cc): the input is the bytes a client sends on one connection,
// possibly several pipelined requests. One HttpServer runs on a loopback port for the whole
// run; each input is written on a new connection, the write side is shut, and everything the
// server answers is read until it closes. Properties:
//   - the server answers or closes: it never leaves a connection that sent all it had (and
//     then EOF) hanging past the read timeout;
//   - whatever it sends is a sequence of HTTP/1.x responses: each begins with a status line
//     "HTTP/1.x NNN " with NNN between 100 and 599;
//   - it keeps accepting connections (the next input connects; a refusal names connect's
//     error).
// The handler answers by method and path: "/stream" starts a streaming response (events
// queued by the producer), "/big" a response larger than a socket buffer, anything else a
// short echo of what was parsed. So the parser, the pre-parse checks, pipelining, keep-alive,
// HEAD, chunked bodies and the streaming writer all see fuzzed traffic.
//
// Build and run with tests/fuzz/run.sh (see docs/operations.md, "Fuzzing"). Seeds, and inputs
// that once failed, are in tests/fuzz/corpus/http.

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "server/http_server.h"
#include "tests/fuzz/check_property.h"

namespace {

using cub::server::HttpRequest;
using cub::server::HttpResponse;
using cub::server::HttpServer;
using cub::server::HttpServerOptions;
using cub::server::HttpStream;

HttpResponse Handle(const HttpRequest& r) {
  HttpResponse out;
  if (r.path == "/stream") {
    out.content_type = "text/event-stream";
    // Written at once (Write only queues): a detached producer thread could outlive a fork-mode
    // child's run and crash it at exit, which libFuzzer would blame on the input.
    out.stream = [](std::shared_ptr<HttpStream> s) {
      s->Write("data: one\n\n");
      s->Write("data: two\n\n");
      s->Close();
    };
    return out;
  }
  if (r.path == "/big") {
    out.body.assign(256 << 10, 'x');
    return out;
  }
  out.body = absl::StrCat(r.method, " ", r.path, "?", r.query, " headers=", r.headers.size(),
                          " body=", r.body.size(), "\n");
  return out;
}

HttpServer* Server() {
  static HttpServer* server = [] {
    HttpServerOptions o;
    o.threads = 2;
    o.max_body_bytes = 64 << 10;
    o.max_header_bytes = 8 << 10;
    // The client shuts its write side after the input, so no request waits for more bytes;
    // these only bound a bug that would otherwise hang the run.
    o.header_timeout = std::chrono::milliseconds(2000);
    o.transfer_timeout = std::chrono::milliseconds(2000);
    o.io_timeout = std::chrono::milliseconds(2000);
    o.keepalive_timeout = std::chrono::milliseconds(2000);
    o.shutdown_grace = std::chrono::milliseconds(100);
    auto started = HttpServer::Start("127.0.0.1:0", cub::server::TlsFiles{}, o, Handle);
    if (!started.ok()) {
      std::fprintf(stderr, "http_fuzz: cannot start the server: %s\n",
                   std::string(started.status().message()).c_str());
      std::abort();
    }
    return started->release();  // lives for the whole run
  }();
  return server;
}

// Every response in `got` starts with a valid status line. Responses are found by their
// status lines: a body may itself contain "HTTP/1.", so only the first is checked strictly,
// and the rest must at least not be empty.
void CheckResponses(std::string_view got) {
  if (got.empty()) return;  // closed without an answer: allowed (e.g. nothing was sent)
  CHECK_PROPERTY_WHY(got.size() >= 13, "response shorter than a status line");
  CHECK_PROPERTY_WHY(got.substr(0, 7) == "HTTP/1.", "response does not start with HTTP/1.");
  CHECK_PROPERTY_WHY(got[8] == ' ', "no space after the version");
  int code = 0;
  for (int i = 9; i < 12; ++i) {
    CHECK_PROPERTY_WHY(got[i] >= '0' && got[i] <= '9', "status code is not three digits");
    code = code * 10 + (got[i] - '0');
  }
  CHECK_PROPERTY_WHY(code >= 100 && code <= 599, "status code out of range");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int port = Server()->bound_port();
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  CHECK_PROPERTY_WHY(fd >= 0, "socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // The client shuts its side first, so each connection leaves a TIME_WAIT on the client's
  // port for a minute; at a thousand inputs a second one source address would run out of
  // ephemeral ports. Each input therefore comes from the next of 60,000 loopback addresses.
  static uint32_t next_source = 0;
  const uint32_t n = next_source++ % 60000;
  sockaddr_in source{};
  source.sin_family = AF_INET;
  source.sin_addr.s_addr = htonl((127u << 24) | ((1 + n / 250) << 8) | (1 + n % 250));
  CHECK_PROPERTY_WHY(bind(fd, reinterpret_cast<sockaddr*>(&source), sizeof source) == 0,
                     std::strerror(errno));
  CHECK_PROPERTY_WHY(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0,
                     std::strerror(errno));
  timeval tv{};
  // The server's timeouts are 2 s each and can follow one another (header, then the linger
  // after a refusal), and the fuzzer may be starved of CPU: 30 s is a hang, not slowness.
  tv.tv_sec = 30;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);

  // Write the input; the server may close early (a refusal), so a failed send is not an error.
  size_t sent = 0;
  while (sent < size) {
    ssize_t n = send(fd, data + sent, size - sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;  // libFuzzer's SIGALRM (its timeout check)
    if (n <= 0) break;
    sent += static_cast<size_t>(n);
  }
  shutdown(fd, SHUT_WR);

  std::string got;
  char buf[16 << 10];
  for (;;) {
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n == 0) break;                      // the server closed: done
    if (n < 0 && errno == EINTR) continue;  // libFuzzer's SIGALRM, not the server
    if (n < 0) {
      // EAGAIN is the 30 s read timeout: the server neither answered nor closed.
      CHECK_PROPERTY_WHY(errno == ECONNRESET, std::strerror(errno));
      break;  // a reset after a refusal (unread input) is a close
    }
    got.append(buf, static_cast<size_t>(n));
  }
  close(fd);
  CheckResponses(got);
  return 0;
}
