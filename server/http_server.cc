#include "server/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <exception>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace cub::server {

using Clock = std::chrono::steady_clock;

struct HttpServer::Conn {
  int fd = -1;
  SSL* ssl = nullptr;           // owned; null for plaintext
  bool handshake_done = false;  // TLS handshake completed
  bool ssl_broken = false;      // a fatal TLS error happened: no close_notify may be sent
  bool registered = false;      // fd is in the poller's epoll set (armed or not)
  std::string remote_addr;
  std::string in;  // bytes received and not yet consumed
  Clock::time_point idle_deadline;
  std::atomic<int>* open_counter = nullptr;

  ~Conn() {
    if (ssl != nullptr) SSL_free(ssl);
    if (fd >= 0) ::close(fd);
    if (open_counter != nullptr) open_counter->fetch_sub(1);
  }
};

namespace {

using Conn = HttpServer::Conn;

// ---------------------------------------------------------------------------------------------
// Small helpers.

// Drains OpenSSL's (thread-local) error queue into one line.
std::string OpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

// Worker and poller threads block SIGPIPE: OpenSSL writes with write(2), which raises it when
// the peer has gone. The signal stays pending on the thread, harmlessly; the process-wide
// disposition is left alone.
void BlockSigpipe() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

const char* Reason(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 204:
      return "No Content";
    case 304:
      return "Not Modified";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 411:
      return "Length Required";
    case 413:
      return "Content Too Large";
    case 415:
      return "Unsupported Media Type";
    case 417:
      return "Expectation Failed";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Status";
  }
}

// The gRPC code reported in the JSON body of errors the server produces itself.
int GrpcCodeForHttpStatus(int status) {
  switch (status) {
    case 400:
      return 3;  // INVALID_ARGUMENT
    case 408:
      return 4;  // DEADLINE_EXCEEDED
    case 413:
      return 8;  // RESOURCE_EXHAUSTED
    case 417:
      return 9;  // FAILED_PRECONDITION
    case 431:
      return 8;  // RESOURCE_EXHAUSTED
    case 500:
      return 13;  // INTERNAL
    case 501:
      return 12;  // UNIMPLEMENTED
    case 503:
      return 14;  // UNAVAILABLE
    case 505:
      return 12;  // UNIMPLEMENTED
    default:
      return 2;  // UNKNOWN
  }
}

HttpResponse ServerError(int status, absl::string_view message) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = JsonErrorBody(GrpcCodeForHttpStatus(status),
                         std::string_view(message.data(), message.size()));
  return r;
}

bool IsTchar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         (c != '\0' && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
}

bool IsToken(absl::string_view s) { return !s.empty() && std::all_of(s.begin(), s.end(), IsTchar); }

// Field values: no control characters but HTAB (obs-text, 0x80-0xFF, is allowed).
bool IsFieldValue(absl::string_view s) {
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

absl::string_view TrimOws(absl::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool HasToken(absl::string_view list, absl::string_view token) {
  for (absl::string_view part : absl::StrSplit(list, ',')) {
    if (absl::EqualsIgnoreCase(TrimOws(part), token)) return true;
  }
  return false;
}

std::string AddrToString(const sockaddr_storage& addr) {
  char buf[INET6_ADDRSTRLEN] = {0};
  if (addr.ss_family == AF_INET) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, buf, sizeof buf);
  } else if (addr.ss_family == AF_INET6) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(&addr);
    if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
      inet_ntop(AF_INET, &in6->sin6_addr.s6_addr[12], buf, sizeof buf);
    } else {
      inet_ntop(AF_INET6, &in6->sin6_addr, buf, sizeof buf);
    }
  }
  return buf;
}

// "HOST:PORT", "[V6]:PORT", ":PORT".
absl::Status ParseListen(const std::string& listen, std::string* host, std::string* port) {
  auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address \"", listen, "\": ", why, " (want HOST:PORT or [IPV6]:PORT)"));
  };
  if (!listen.empty() && listen[0] == '[') {
    size_t close = listen.find(']');
    if (close == std::string::npos) return bad("missing ']'");
    if (close + 1 >= listen.size() || listen[close + 1] != ':') return bad("missing port");
    *host = listen.substr(1, close - 1);
    *port = listen.substr(close + 2);
    if (host->empty()) return bad("empty IPv6 address");
  } else {
    size_t colon = listen.rfind(':');
    if (colon == std::string::npos) return bad("missing port");
    *host = listen.substr(0, colon);
    *port = listen.substr(colon + 1);
    if (host->find(':') != std::string::npos) return bad("IPv6 addresses must be bracketed");
    if (host->empty()) *host = "0.0.0.0";
  }
  if (port->empty() || port->size() > 5 ||
      !std::all_of(port->begin(), port->end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return bad("port is not a number");
  }
  if (std::stoi(*port) > 65535) return bad("port above 65535");
  return absl::OkStatus();
}

int SelectAlpn(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
               unsigned int inlen, void*) {
  static const unsigned char kHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* selected = nullptr;
  if (SSL_select_next_proto(&selected, outlen, kHttp11, sizeof kHttp11, in, inlen) ==
      OPENSSL_NPN_NEGOTIATED) {
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
  }
  return SSL_TLSEXT_ERR_NOACK;  // the client did not offer http/1.1: let it proceed without ALPN
}

absl::StatusOr<SSL_CTX*> MakeSslContext(const TlsFiles& tls) {
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return absl::InvalidArgumentError("TLS needs both a certificate file and a key file");
  }
  ERR_clear_error();
  SSL_CTX* ctx = SSL_CTX_new(TLS_server_method());
  if (ctx == nullptr) return absl::InternalError("SSL_CTX_new: " + OpenSslErrors());
  auto fail = [&](const std::string& what) {
    std::string errors = OpenSslErrors();
    SSL_CTX_free(ctx);
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", errors));
  };
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  uint64_t opts = SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION;
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
  opts |= SSL_OP_IGNORE_UNEXPECTED_EOF;  // a client closing without close_notify is just EOF
#endif
  SSL_CTX_set_options(ctx, opts);
  if (SSL_CTX_use_certificate_chain_file(ctx, tls.cert_file.c_str()) != 1) {
    return fail("TLS certificate file " + tls.cert_file);
  }
  if (SSL_CTX_use_PrivateKey_file(ctx, tls.key_file.c_str(), SSL_FILETYPE_PEM) != 1) {
    return fail("TLS key file " + tls.key_file);
  }
  if (SSL_CTX_check_private_key(ctx) != 1) {
    return fail("TLS key file " + tls.key_file + " does not match " + tls.cert_file);
  }
  SSL_CTX_set_alpn_select_cb(ctx, SelectAlpn, nullptr);
  return ctx;
}

// ---------------------------------------------------------------------------------------------
// Deadline-bounded I/O on non-blocking sockets, plaintext or TLS.

enum class Io { kOk, kEof, kTimeout, kError };

// Waits until `fd` is ready for `events`, `deadline` passes (kTimeout) or poll fails.
Io WaitFd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    auto now = Clock::now();
    if (now >= deadline) return Io::kTimeout;
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now).count() + 1;
    pollfd p{fd, events, 0};
    int r = ::poll(&p, 1, static_cast<int>(std::min<int64_t>(ms, INT_MAX)));
    if (r > 0) return Io::kOk;  // ready, or error/hang-up: the next I/O call reports which
    if (r < 0 && errno != EINTR) return Io::kError;
  }
}

// The deadline of one wait: the overall `deadline`, or sooner if the peer stalls for `idle`.
Clock::time_point WaitDeadline(Clock::time_point deadline, std::chrono::milliseconds idle) {
  return std::min(deadline, Clock::now() + idle);
}

// What a failed SSL call asks for: kOk with *events set to wait on, or the failure.
Io SslRetry(Conn& c, int ret, short* events) {
  int err = SSL_get_error(c.ssl, ret);
  switch (err) {
    case SSL_ERROR_WANT_READ:
      *events = POLLIN;
      return Io::kOk;
    case SSL_ERROR_WANT_WRITE:
      *events = POLLOUT;
      return Io::kOk;
    case SSL_ERROR_ZERO_RETURN:
      return Io::kEof;
    default:
      ERR_clear_error();
      c.ssl_broken = true;
      return Io::kError;
  }
}

// Appends what is available (at least one byte) to c.in.
Io ReadSome(Conn& c, Clock::time_point deadline, std::chrono::milliseconds idle) {
  constexpr size_t kChunk = 64 << 10;
  const size_t old = c.in.size();
  c.in.resize(old + kChunk);
  Io result;
  for (;;) {
    short events = POLLIN;
    if (c.ssl == nullptr) {
      ssize_t n = ::recv(c.fd, c.in.data() + old, kChunk, 0);
      if (n > 0) {
        c.in.resize(old + n);
        return Io::kOk;
      }
      if (n == 0) {
        result = Io::kEof;
        break;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        result = Io::kError;
        break;
      }
    } else {
      ERR_clear_error();
      int n = SSL_read(c.ssl, c.in.data() + old, static_cast<int>(kChunk));
      if (n > 0) {
        c.in.resize(old + n);
        return Io::kOk;
      }
      result = SslRetry(c, n, &events);
      if (result != Io::kOk) break;
    }
    result = WaitFd(c.fd, events, WaitDeadline(deadline, idle));
    if (result != Io::kOk) break;
  }
  c.in.resize(old);
  return result;
}

Io WriteAll(Conn& c, absl::string_view data, Clock::time_point deadline,
            std::chrono::milliseconds idle) {
  size_t off = 0;
  while (off < data.size()) {
    short events = POLLOUT;
    size_t want = std::min<size_t>(data.size() - off, 1 << 30);
    if (c.ssl == nullptr) {
      ssize_t n = ::send(c.fd, data.data() + off, want, MSG_NOSIGNAL);
      if (n > 0) {
        off += n;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)) return Io::kError;
    } else {
      ERR_clear_error();
      int n = SSL_write(c.ssl, data.data() + off, static_cast<int>(want));
      if (n > 0) {
        off += n;
        continue;
      }
      Io r = SslRetry(c, n, &events);
      if (r != Io::kOk) return Io::kError;
    }
    Io w = WaitFd(c.fd, events, WaitDeadline(deadline, idle));
    if (w != Io::kOk) return w;
  }
  return Io::kOk;
}

Io Handshake(Conn& c, Clock::time_point deadline, std::chrono::milliseconds idle) {
  for (;;) {
    ERR_clear_error();
    int r = SSL_accept(c.ssl);
    if (r == 1) return Io::kOk;
    short events = POLLIN;
    Io retry = SslRetry(c, r, &events);
    if (retry != Io::kOk) return Io::kError;
    Io w = WaitFd(c.fd, events, WaitDeadline(deadline, idle));
    if (w != Io::kOk) return w;
  }
}

// Half-closes the connection so the client sees the response and then EOF. With `linger`, also
// reads and discards what the client still sends for a short while: closing a socket with unread
// data makes the kernel send RST, which can destroy the response before the client reads it.
void CloseGracefully(Conn& c, bool linger) {
  if (c.ssl != nullptr && c.handshake_done && !c.ssl_broken) {
    ERR_clear_error();
    SSL_shutdown(c.ssl);  // best effort, non-blocking: sends close_notify
    ERR_clear_error();
  }
  ::shutdown(c.fd, SHUT_WR);
  if (!linger) return;
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  size_t discarded = 0;
  char buf[16384];
  while (discarded < (64u << 20)) {
    ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n > 0) {
      discarded += n;
      continue;
    }
    if (n == 0) return;
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return;
    if (WaitFd(c.fd, POLLIN, deadline) != Io::kOk) return;
  }
}

// ---------------------------------------------------------------------------------------------
// Request parsing.

enum class ReadResult { kRequest, kClose, kError };

struct RequestError {
  int status = 400;
  std::string message;
};

// The offset just past the empty line that ends the header section, or npos. Lines may end in
// CRLF or a bare LF.
size_t FindHeaderEnd(absl::string_view s, size_t from) {
  for (size_t i = s.find('\n', from); i != absl::string_view::npos; i = s.find('\n', i + 1)) {
    if (i + 1 < s.size() && s[i + 1] == '\n') return i + 2;
    if (i + 2 < s.size() && s[i + 1] == '\r' && s[i + 2] == '\n') return i + 3;
  }
  return absl::string_view::npos;
}

// Parses the request line and header fields. Strict where laxness enables request smuggling:
// no whitespace before the colon, no obsolete line folding, no control characters.
bool ParseHead(absl::string_view head, HttpRequest* req, int* minor_version, RequestError* err) {
  std::vector<absl::string_view> lines = absl::StrSplit(head, '\n');
  for (auto& line : lines) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  }
  // The request line: METHOD SP request-target SP HTTP-version.
  std::vector<absl::string_view> parts = absl::StrSplit(lines[0], ' ');
  if (parts.size() != 3 || !IsToken(parts[0]) || parts[1].empty()) {
    *err = {400, "malformed request line"};
    return false;
  }
  req->method = std::string(parts[0]);
  absl::string_view version = parts[2];
  if (version == "HTTP/1.1") {
    *minor_version = 1;
  } else if (version == "HTTP/1.0") {
    *minor_version = 0;
  } else if (version.size() == 8 && version.substr(0, 5) == "HTTP/" &&
             absl::ascii_isdigit(version[5]) && version[6] == '.' &&
             absl::ascii_isdigit(version[7])) {
    *err = {505, absl::StrCat("HTTP version ", version, " is not supported; use HTTP/1.1")};
    return false;
  } else {
    *err = {400, "malformed request line"};
    return false;
  }
  absl::string_view target = parts[1];
  for (unsigned char c : target) {
    if (c <= 0x20 || c >= 0x7f) {
      *err = {400, "malformed request target"};
      return false;
    }
  }
  if (target[0] != '/' && target != "*") {
    // absolute-form, "http://host/path": keep the path.
    size_t scheme = target.find("://");
    if (scheme == absl::string_view::npos) {
      *err = {400, "malformed request target"};
      return false;
    }
    size_t slash = target.find('/', scheme + 3);
    target = slash == absl::string_view::npos ? absl::string_view("/") : target.substr(slash);
  }
  target = target.substr(0, target.find('#'));
  size_t q = target.find('?');
  req->path = std::string(target.substr(0, q));
  req->query = q == absl::string_view::npos ? "" : std::string(target.substr(q + 1));

  constexpr int kMaxHeaders = 100;
  int count = 0;
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (line.empty()) break;  // the end of the header section
    if (line[0] == ' ' || line[0] == '\t') {
      *err = {400, "obsolete header line folding is not accepted"};
      return false;
    }
    size_t colon = line.find(':');
    absl::string_view name = line.substr(0, colon);
    if (colon == absl::string_view::npos || !IsToken(name)) {
      *err = {400, "malformed header field"};
      return false;
    }
    absl::string_view value = TrimOws(line.substr(colon + 1));
    if (!IsFieldValue(value)) {
      *err = {400, "control character in a header field value"};
      return false;
    }
    if (++count > kMaxHeaders) {
      *err = {431, absl::StrCat("more than ", kMaxHeaders, " header fields")};
      return false;
    }
    std::string key = absl::AsciiStrToLower(name);
    auto [it, inserted] = req->headers.emplace(key, std::string(value));
    if (inserted) continue;
    if (key == "content-length") {
      if (it->second != value) {
        *err = {400, "conflicting Content-Length header fields"};
        return false;
      }
    } else {
      absl::StrAppend(&it->second, ", ", value);
    }
  }
  return true;
}

// Reads one request from `c` into `req`. kClose: the client went away (or never started a
// request in time), close silently. kError: answer `err` and close.
ReadResult ReadRequest(Conn& c, const HttpServerOptions& o, HttpRequest* req, bool* keep_alive,
                       RequestError* err) {
  const auto head_deadline = Clock::now() + o.header_timeout;
  size_t scanned = 0;
  size_t head_end;
  for (;;) {
    // Empty lines before the request line are ignored (RFC 9112 section 2.2).
    size_t skip = 0;
    while (skip < c.in.size() && (c.in[skip] == '\r' || c.in[skip] == '\n')) ++skip;
    if (skip > 0) {
      c.in.erase(0, skip);
      scanned = 0;
    }
    head_end = FindHeaderEnd(c.in, scanned);
    if (head_end != std::string::npos) break;
    if (c.in.size() > o.max_header_bytes) {
      *err = {431,
              absl::StrCat("request header section larger than ", o.max_header_bytes, " bytes")};
      return ReadResult::kError;
    }
    scanned = c.in.size() >= 2 ? c.in.size() - 2 : 0;
    Io r = ReadSome(c, head_deadline, o.io_timeout);
    if (r == Io::kTimeout && !c.in.empty()) {
      *err = {408, "request header not received in time"};
      return ReadResult::kError;
    }
    if (r != Io::kOk) return ReadResult::kClose;
  }
  if (head_end > o.max_header_bytes) {
    *err = {431, absl::StrCat("request header section larger than ", o.max_header_bytes, " bytes")};
    return ReadResult::kError;
  }
  int minor = 1;
  if (!ParseHead(absl::string_view(c.in).substr(0, head_end), req, &minor, err)) {
    return ReadResult::kError;
  }
  c.in.erase(0, head_end);
  req->remote_addr = c.remote_addr;

  auto header = [&](const char* name) -> const std::string* {
    auto it = req->headers.find(name);
    return it == req->headers.end() ? nullptr : &it->second;
  };
  const std::string* connection = header("connection");
  *keep_alive = minor == 1 ? !(connection && HasToken(*connection, "close"))
                           : (connection && HasToken(*connection, "keep-alive"));

  // Body framing (RFC 9112 section 6).
  bool chunked = false;
  size_t length = 0;
  const std::string* te = header("transfer-encoding");
  const std::string* cl = header("content-length");
  if (te != nullptr) {
    if (cl != nullptr) {
      *err = {400, "both Transfer-Encoding and Content-Length"};
      return ReadResult::kError;
    }
    if (minor == 0) {
      *err = {400, "Transfer-Encoding in an HTTP/1.0 request"};
      return ReadResult::kError;
    }
    if (!absl::EqualsIgnoreCase(*te, "chunked")) {
      *err = {501, absl::StrCat("unsupported Transfer-Encoding \"", *te, "\"")};
      return ReadResult::kError;
    }
    chunked = true;
  } else if (cl != nullptr) {
    if (cl->empty() || cl->size() > 18 ||
        !std::all_of(cl->begin(), cl->end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
      *err = {400, "malformed Content-Length"};
      return ReadResult::kError;
    }
    length = std::stoull(*cl);
    if (length > o.max_body_bytes) {
      *err = {413, absl::StrCat("request body larger than ", o.max_body_bytes, " bytes")};
      return ReadResult::kError;
    }
  }

  if (const std::string* expect = header("expect")) {
    if (!absl::EqualsIgnoreCase(*expect, "100-continue")) {
      *err = {417, absl::StrCat("unsupported expectation \"", *expect, "\"")};
      return ReadResult::kError;
    }
    if (minor == 1 && (chunked || length > 0) && c.in.empty()) {
      Io w =
          WriteAll(c, "HTTP/1.1 100 Continue\r\n\r\n", Clock::now() + o.io_timeout, o.io_timeout);
      if (w != Io::kOk) return ReadResult::kClose;
    }
  }

  const auto body_deadline = Clock::now() + o.transfer_timeout;
  // Ensures c.in holds at least n bytes.
  auto fill = [&](size_t n) -> ReadResult {
    while (c.in.size() < n) {
      Io r = ReadSome(c, body_deadline, o.io_timeout);
      if (r == Io::kTimeout) {
        *err = {408, "request body not received in time"};
        return ReadResult::kError;
      }
      if (r != Io::kOk) return ReadResult::kClose;
    }
    return ReadResult::kRequest;
  };

  if (!chunked) {
    if (ReadResult r = fill(length); r != ReadResult::kRequest) return r;
    req->body.assign(c.in, 0, length);
    c.in.erase(0, length);
    return ReadResult::kRequest;
  }

  // chunked: size [;ext] CRLF data CRLF ... 0 CRLF [trailers] CRLF
  constexpr size_t kMaxLine = 4096;
  size_t pos = 0;
  // Reads the line at `pos`; sets *line (without the line end) and advances pos past it.
  auto read_line = [&](absl::string_view* line) -> ReadResult {
    size_t eol;
    while ((eol = c.in.find('\n', pos)) == std::string::npos) {
      if (c.in.size() - pos > kMaxLine) {
        *err = {400, "chunked body: line too long"};
        return ReadResult::kError;
      }
      if (ReadResult r = fill(c.in.size() + 1); r != ReadResult::kRequest) return r;
    }
    *line = absl::string_view(c.in).substr(pos, eol - pos);
    if (!line->empty() && line->back() == '\r') line->remove_suffix(1);
    pos = eol + 1;
    return ReadResult::kRequest;
  };
  for (;;) {
    absl::string_view line;
    if (ReadResult r = read_line(&line); r != ReadResult::kRequest) return r;
    absl::string_view size_text = TrimOws(line.substr(0, line.find(';')));
    if (size_text.empty() || size_text.size() > 15 ||
        !std::all_of(size_text.begin(), size_text.end(), [](char ch) {
          return absl::ascii_isxdigit(static_cast<unsigned char>(ch));
        })) {
      *err = {400, "chunked body: malformed chunk size"};
      return ReadResult::kError;
    }
    size_t size = std::stoull(std::string(size_text), nullptr, 16);
    if (size == 0) break;
    if (req->body.size() + size > o.max_body_bytes) {
      *err = {413, absl::StrCat("request body larger than ", o.max_body_bytes, " bytes")};
      return ReadResult::kError;
    }
    if (ReadResult r = fill(pos + size + 1); r != ReadResult::kRequest) return r;
    req->body.append(c.in, pos, size);
    pos += size;
    if (c.in[pos] == '\r') {
      if (ReadResult r = fill(pos + 2); r != ReadResult::kRequest) return r;
      ++pos;
    }
    if (c.in[pos] != '\n') {
      *err = {400, "chunked body: missing line end after chunk data"};
      return ReadResult::kError;
    }
    ++pos;
    if (pos > (256u << 10)) {  // keep the buffer small without moving it for every chunk
      c.in.erase(0, pos);
      pos = 0;
    }
  }
  // Trailer fields are read and dropped.
  size_t trailer_bytes = 0;
  for (;;) {
    absl::string_view line;
    if (ReadResult r = read_line(&line); r != ReadResult::kRequest) return r;
    if (line.empty()) break;
    trailer_bytes += line.size();
    if (trailer_bytes > o.max_header_bytes) {
      *err = {431, "chunked body: trailer section too large"};
      return ReadResult::kError;
    }
  }
  c.in.erase(0, pos);
  return ReadResult::kRequest;
}

bool IsSafeHeader(const std::string& name, const std::string& value) {
  if (!IsToken(name) || !IsFieldValue(value)) return false;
  for (const char* own : {"content-length", "content-type", "connection", "transfer-encoding"}) {
    if (absl::EqualsIgnoreCase(name, own)) return false;
  }
  return true;
}

Io SendResponse(Conn& c, const HttpServerOptions& o, const HttpResponse& r, bool keep_alive,
                bool head_only) {
  int status = r.status >= 200 && r.status <= 999 ? r.status : 500;
  std::string out = absl::StrCat("HTTP/1.1 ", status, " ", Reason(status), "\r\n");
  const bool no_body = status == 204 || status == 304;
  if (!no_body) {
    if (!r.content_type.empty() && IsFieldValue(r.content_type)) {
      absl::StrAppend(&out, "Content-Type: ", r.content_type, "\r\n");
    }
    absl::StrAppend(&out, "Content-Length: ", r.body.size(), "\r\n");
  }
  absl::StrAppend(&out, "Connection: ", keep_alive ? "keep-alive" : "close", "\r\n");
  for (const auto& [name, value] : r.headers) {
    if (IsSafeHeader(name, value)) absl::StrAppend(&out, name, ": ", value, "\r\n");
  }
  out += "\r\n";
  const auto deadline = Clock::now() + o.transfer_timeout;
  const bool send_body = !head_only && !no_body && !r.body.empty();
  if (send_body && r.body.size() <= (64u << 10)) {
    out += r.body;
    return WriteAll(c, out, deadline, o.io_timeout);
  }
  Io w = WriteAll(c, out, deadline, o.io_timeout);
  if (w == Io::kOk && send_body) w = WriteAll(c, r.body, deadline, o.io_timeout);
  return w;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// JSON error bodies.

const char* GrpcCodeName(int code) {
  static const char* const kNames[] = {"OK",
                                       "CANCELLED",
                                       "UNKNOWN",
                                       "INVALID_ARGUMENT",
                                       "DEADLINE_EXCEEDED",
                                       "NOT_FOUND",
                                       "ALREADY_EXISTS",
                                       "PERMISSION_DENIED",
                                       "RESOURCE_EXHAUSTED",
                                       "FAILED_PRECONDITION",
                                       "ABORTED",
                                       "OUT_OF_RANGE",
                                       "UNIMPLEMENTED",
                                       "INTERNAL",
                                       "UNAVAILABLE",
                                       "DATA_LOSS",
                                       "UNAUTHENTICATED"};
  return code >= 0 && code <= 16 ? kNames[code] : "UNKNOWN";
}

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (a non-ASCII lead byte), or 0.
size_t Utf8SequenceLength(absl::string_view s, size_t i) {
  auto byte = [&](size_t k) -> unsigned { return static_cast<unsigned char>(s[k]); };
  auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < s.size() && byte(k) >= lo && byte(k) <= hi;
  };
  unsigned b = byte(i);
  if (b >= 0xC2 && b <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (b == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  if ((b >= 0xE1 && b <= 0xEC) || b == 0xEE || b == 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (b == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  if (b == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b >= 0xF1 && b <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (b == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

void AppendJsonString(std::string* out, absl::string_view s) {
  out->push_back('"');
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    if (c >= 0x80) {
      size_t n = Utf8SequenceLength(s, i);
      if (n == 0) {
        out->append("\xEF\xBF\xBD");  // U+FFFD
        ++i;
      } else {
        out->append(s.data() + i, n);
        i += n;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out->append(buf);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

}  // namespace

std::string JsonErrorBody(int grpc_code, std::string_view message_in) {
  absl::string_view message(message_in.data(), message_in.size());
  std::string out = absl::StrCat("{\"code\":", grpc_code, ",\"status\":\"", GrpcCodeName(grpc_code),
                                 "\",\"message\":");
  AppendJsonString(&out, message);
  out += "}";
  return out;
}

// ---------------------------------------------------------------------------------------------
// HttpServer.

HttpServer::HttpServer(HttpServerOptions options, HttpHandler handler)
    : options_(std::move(options)), handler_(std::move(handler)) {}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& listen,
                                                              const TlsFiles& tls, int threads,
                                                              HttpHandler handler) {
  HttpServerOptions options;
  options.threads = threads;
  return Start(listen, tls, options, std::move(handler));
}

absl::StatusOr<std::unique_ptr<HttpServer>> HttpServer::Start(const std::string& listen,
                                                              const TlsFiles& tls,
                                                              const HttpServerOptions& options,
                                                              HttpHandler handler) {
  if (!handler) return absl::InvalidArgumentError("HttpServer: no handler");
  if (options.threads < 1) return absl::InvalidArgumentError("HttpServer: threads must be >= 1");
  std::string host, port;
  if (absl::Status s = ParseListen(listen, &host, &port); !s.ok()) return s;

  HttpServerOptions opts = options;
  if (opts.max_queued <= 0) opts.max_queued = 4 * opts.threads;
  std::unique_ptr<HttpServer> server(new HttpServer(opts, std::move(handler)));

  if (!tls.cert_file.empty() || !tls.key_file.empty()) {
    absl::StatusOr<SSL_CTX*> ctx = MakeSslContext(tls);
    if (!ctx.ok()) return ctx.status();
    server->ssl_ctx_ = *ctx;
  }

  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* addrs = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &addrs); rc != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address \"", listen, "\": ", gai_strerror(rc)));
  }
  std::string bind_error = "no address";
  for (addrinfo* a = addrs; a != nullptr && server->listen_fd_ < 0; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      bind_error = std::strerror(errno);
      continue;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, 512) != 0) {
      bind_error = std::strerror(errno);
      ::close(fd);
      continue;
    }
    server->listen_fd_ = fd;
  }
  freeaddrinfo(addrs);
  if (server->listen_fd_ < 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen, ": ", bind_error));
  }
  sockaddr_storage bound{};
  socklen_t len = sizeof bound;
  getsockname(server->listen_fd_, reinterpret_cast<sockaddr*>(&bound), &len);
  server->bound_port_ =
      ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);

  server->epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  server->wake_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (server->epoll_fd_ < 0 || server->wake_fd_ < 0) {
    return absl::InternalError(absl::StrCat("epoll/eventfd: ", std::strerror(errno)));
  }
  epoll_event ev{};
  ev.events = EPOLLIN;
  ev.data.ptr = &server->listen_fd_;
  epoll_ctl(server->epoll_fd_, EPOLL_CTL_ADD, server->listen_fd_, &ev);
  ev.data.ptr = &server->wake_fd_;
  epoll_ctl(server->epoll_fd_, EPOLL_CTL_ADD, server->wake_fd_, &ev);

  try {
    for (int i = 0; i < opts.threads; ++i) {
      {
        std::lock_guard<std::mutex> l(server->mu_);
        ++server->workers_running_;
      }
      server->workers_.emplace_back([s = server.get()] { s->WorkerLoop(); });
    }
    server->poller_ = std::thread([s = server.get()] { s->PollLoop(); });
  } catch (const std::system_error& e) {
    std::lock_guard<std::mutex> l(server->mu_);
    server->workers_running_ = static_cast<int>(server->workers_.size());
    return absl::ResourceExhaustedError(absl::StrCat("HttpServer threads: ", e.what()));
  }
  return server;
}

HttpServer::~HttpServer() {
  Shutdown();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (epoll_fd_ >= 0) ::close(epoll_fd_);
  if (wake_fd_ >= 0) ::close(wake_fd_);
  queue_.clear();
  parked_.clear();
  if (ssl_ctx_ != nullptr) SSL_CTX_free(ssl_ctx_);
}

void HttpServer::Shutdown() {
  std::lock_guard<std::mutex> serial(shutdown_mu_);
  {
    std::lock_guard<std::mutex> l(mu_);
    if (shut_down_) return;
    shut_down_ = true;
    stopping_ = true;
  }
  if (wake_fd_ >= 0) {
    uint64_t one = 1;
    (void)!::write(wake_fd_, &one, sizeof one);
  }
  if (poller_.joinable()) poller_.join();  // closes the listening socket and idle connections
  work_cv_.notify_all();
  {
    std::unique_lock<std::mutex> l(mu_);
    if (!exit_cv_.wait_for(l, options_.shutdown_grace, [&] { return workers_running_ == 0; })) {
      // Grace is over: drop what has not started and cut the sockets of what has, so workers
      // blocked in I/O return at once. A handler still running is waited for below.
      force_close_ = true;
      queue_.clear();
      for (const auto& [conn, fd] : active_) ::shutdown(fd, SHUT_RDWR);
    }
  }
  work_cv_.notify_all();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
}

void HttpServer::PollLoop() {
  BlockSigpipe();
  constexpr int kMaxEvents = 64;
  epoll_event events[kMaxEvents];
  for (;;) {
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_) break;
    }
    int n = epoll_wait(epoll_fd_, events, kMaxEvents, 250);
    std::vector<std::unique_ptr<Conn>> rejected;
    for (int i = 0; i < n; ++i) {
      void* tag = events[i].data.ptr;
      if (tag == &listen_fd_) {
        AcceptAll();
      } else if (tag == &wake_fd_) {
        uint64_t v;
        (void)!::read(wake_fd_, &v, sizeof v);
      } else {
        std::lock_guard<std::mutex> l(mu_);
        auto it = parked_.find(static_cast<Conn*>(tag));
        if (it == parked_.end()) continue;
        std::unique_ptr<Conn> c = std::move(it->second);
        parked_.erase(it);
        if (static_cast<int>(queue_.size()) >= options_.max_queued) {
          rejected.push_back(std::move(c));
        } else {
          queue_.push_back(std::move(c));
          work_cv_.notify_one();
        }
      }
    }
    for (auto& c : rejected) Reject(std::move(c));
    // Close connections idle for too long (destroyed outside the lock).
    std::vector<std::unique_ptr<Conn>> expired;
    {
      std::lock_guard<std::mutex> l(mu_);
      const auto now = Clock::now();
      for (auto it = parked_.begin(); it != parked_.end();) {
        if (it->first->idle_deadline <= now) {
          expired.push_back(std::move(it->second));
          it = parked_.erase(it);
        } else {
          ++it;
        }
      }
    }
  }
  ::close(listen_fd_);
  listen_fd_ = -1;
  std::unordered_map<Conn*, std::unique_ptr<Conn>> idle;
  {
    std::lock_guard<std::mutex> l(mu_);
    idle.swap(parked_);
  }
}

void HttpServer::AcceptAll() {
  for (;;) {
    sockaddr_storage addr{};
    socklen_t len = sizeof addr;
    int fd = ::accept4(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len,
                       SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors or memory: the listening socket stays readable, so back off
        // instead of spinning; idle connections expiring will free descriptors.
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      }
      return;
    }
    if (open_connections_.load() >= options_.max_connections) {
      ::close(fd);
      continue;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    auto c = std::make_unique<Conn>();
    c->fd = fd;
    open_connections_.fetch_add(1);
    c->open_counter = &open_connections_;
    c->remote_addr = AddrToString(addr);
    if (ssl_ctx_ != nullptr) {
      c->ssl = SSL_new(ssl_ctx_);
      if (c->ssl == nullptr || SSL_set_fd(c->ssl, fd) != 1) {
        ERR_clear_error();
        continue;  // c closes the socket
      }
    }
    // A new connection must start its request within header_timeout.
    Park(std::move(c), Clock::now() + options_.header_timeout);
  }
}

void HttpServer::Park(std::unique_ptr<Conn> c, Clock::time_point deadline) {
  std::lock_guard<std::mutex> l(mu_);
  if (stopping_) return;  // closes c
  Conn* raw = c.get();
  raw->idle_deadline = deadline;
  epoll_event ev{};
  ev.events = EPOLLIN | EPOLLONESHOT;
  ev.data.ptr = raw;
  if (epoll_ctl(epoll_fd_, raw->registered ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, raw->fd, &ev) != 0) {
    return;  // closes c
  }
  raw->registered = true;
  parked_.emplace(raw, std::move(c));
}

void HttpServer::Reject(std::unique_ptr<Conn> c) {
  if (c->ssl != nullptr) return;  // no handshake yet to answer over; closing is all we can do
  // Read what the client already sent, so closing sends FIN rather than RST, then answer.
  char buf[16384];
  for (int i = 0; i < 4 && ::recv(c->fd, buf, sizeof buf, MSG_DONTWAIT) > 0; ++i) {
  }
  std::string body = JsonErrorBody(14, "server busy; retry later");
  std::string out = absl::StrCat(
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: ",
      body.size(), "\r\nConnection: close\r\nRetry-After: 1\r\n\r\n", body);
  (void)!::send(c->fd, out.data(), out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
  ::shutdown(c->fd, SHUT_WR);
}

void HttpServer::WorkerLoop() {
  BlockSigpipe();
  for (;;) {
    std::unique_ptr<Conn> c;
    {
      std::unique_lock<std::mutex> l(mu_);
      work_cv_.wait(l, [&] { return stopping_ || !queue_.empty(); });
      if (force_close_) queue_.clear();
      if (queue_.empty()) break;  // stopping, and nothing left to serve
      c = std::move(queue_.front());
      queue_.pop_front();
      active_.emplace(c.get(), c->fd);
    }
    Serve(std::move(c));
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    --workers_running_;
  }
  exit_cv_.notify_all();
}

void HttpServer::Serve(std::unique_ptr<Conn> c) {
  Conn& conn = *c;
  bool park = false;
  if (conn.ssl != nullptr && !conn.handshake_done) {
    if (Handshake(conn, Clock::now() + options_.header_timeout, options_.io_timeout) == Io::kOk) {
      conn.handshake_done = true;
    } else {
      conn.ssl_broken = true;
    }
  }
  while (conn.ssl == nullptr || conn.handshake_done) {
    HttpRequest req;
    bool keep_alive = false;
    RequestError err;
    ReadResult rr = ReadRequest(conn, options_, &req, &keep_alive, &err);
    if (rr == ReadResult::kClose) break;
    if (rr == ReadResult::kError) {
      if (SendResponse(conn, options_, ServerError(err.status, err.message), false, false) ==
          Io::kOk) {
        CloseGracefully(conn, /*linger=*/true);
      }
      break;
    }
    HttpResponse resp;
    try {
      resp = handler_(req);
    } catch (const std::exception& e) {
      resp = ServerError(500, "internal error");
    } catch (...) {
      resp = ServerError(500, "internal error");
    }
    {
      std::lock_guard<std::mutex> l(mu_);
      if (stopping_) keep_alive = false;
    }
    if (SendResponse(conn, options_, resp, keep_alive, req.method == "HEAD") != Io::kOk) break;
    if (!keep_alive) {
      CloseGracefully(conn, /*linger=*/false);
      break;
    }
    // A pipelined request already buffered here (or inside OpenSSL) would never wake the poller.
    if (!conn.in.empty() || (conn.ssl != nullptr && SSL_has_pending(conn.ssl))) continue;
    park = true;
    break;
  }
  {
    // Leave active_ before the socket may be closed, so Shutdown() never touches a reused fd.
    std::lock_guard<std::mutex> l(mu_);
    active_.erase(&conn);
  }
  if (park) {
    std::string().swap(conn.in);  // empty here; an idle connection should not keep a big buffer
    Park(std::move(c), Clock::now() + options_.keepalive_timeout);
  }
}

}  // namespace cub::server
