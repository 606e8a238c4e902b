#include "server/http_server.h"

#include <openssl/ssl.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <exception>
#include <fstream>
#include <future>
#include <optional>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "boost/asio/buffer.hpp"
#include "boost/asio/executor_work_guard.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/ssl.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core/flat_buffer.hpp"
#include "boost/beast/http/error.hpp"
#include "boost/beast/http/fields.hpp"
#include "boost/beast/http/message.hpp"
#include "boost/beast/http/parser.hpp"
#include "boost/beast/http/write.hpp"
#include "lib/util/status_macros.h"
#include "server/http_request_checks.h"
#include "server/request_log.h"

namespace cub::server {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
namespace ssl = boost::asio::ssl;
using tcp = boost::asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using boost::system::error_code;

constexpr size_t kReadChunk = 16 << 10;
// How long a closing connection keeps reading what the client still sends (so that closing
// does not reset the connection under the response), and how much it reads at most.
constexpr auto kLinger = std::chrono::seconds(2);
constexpr size_t kMaxLingerBytes = 64u << 20;
// Answers of 503 to refused connections in progress at once; beyond that they are just closed.
constexpr int kMaxRefusalsInFlight = 64;

std::string_view Sv(beast::string_view s) { return std::string_view(s.data(), s.size()); }
// Debian's Abseil has a string_view of its own.
absl::string_view Av(std::string_view s) { return absl::string_view(s.data(), s.size()); }

// A request body read into a std::string that grows as the body arrives. (Beast's string_body
// reserves the announced Content-Length up front: a client announcing the maximum and sending
// nothing would hold that much memory.)
struct RequestBody {
  using value_type = std::string;
  class reader {
   public:
    template <bool isRequest, class Fields>
    reader(bhttp::header<isRequest, Fields>&, value_type& body) : body_(body) {}
    void init(const boost::optional<std::uint64_t>&, error_code& ec) { ec = {}; }
    template <class ConstBufferSequence>
    size_t put(const ConstBufferSequence& buffers, error_code& ec) {
      size_t n = 0;
      for (auto it = asio::buffer_sequence_begin(buffers); it != asio::buffer_sequence_end(buffers);
           ++it) {
        asio::const_buffer b(*it);
        body_.append(static_cast<const char*>(b.data()), b.size());
        n += b.size();
      }
      ec = {};
      return n;
    }
    void finish(error_code& ec) { ec = {}; }

   private:
    value_type& body_;
  };
};

// The gRPC code reported in the JSON body of errors the server produces itself.
int GrpcCodeForHttpStatus(int status) {
  switch (status) {
    case 400:
      return 3;  // INVALID_ARGUMENT
    case 408:
      return 4;  // DEADLINE_EXCEEDED
    case 413:
    case 431:
      return 8;  // RESOURCE_EXHAUSTED
    case 417:
      return 9;  // FAILED_PRECONDITION
    case 500:
      return 13;  // INTERNAL
    case 501:
    case 505:
      return 12;  // UNIMPLEMENTED
    case 503:
      return 14;  // UNAVAILABLE
    default:
      return 2;  // UNKNOWN
  }
}

HttpResponse ServerError(int status, std::string_view message) {
  HttpResponse r;
  r.status = status;
  r.content_type = "application/json";
  r.body = JsonErrorBody(GrpcCodeForHttpStatus(status), message);
  return r;
}

HttpResponse Busy() {
  HttpResponse r = ServerError(503, "server busy; retry later");
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

bool IsTchar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         (c != '\0' && std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos);
}

bool IsFieldValue(std::string_view s) {
  for (unsigned char c : s) {
    if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
  }
  return true;
}

bool IsSafeHeader(const std::string& name, const std::string& value) {
  if (name.empty() || !std::all_of(name.begin(), name.end(), IsTchar) || !IsFieldValue(value)) {
    return false;
  }
  for (const char* own : {"content-length", "content-type", "connection", "transfer-encoding"}) {
    if (absl::EqualsIgnoreCase(name, own)) return false;
  }
  return true;
}

// The refusal for an error of Beast's request parser.
HttpRefusal RefusalFor(const error_code& ec, const HttpServerOptions& o) {
  if (ec == bhttp::error::header_limit) {
    return {431, absl::StrCat("request header section larger than ", o.max_header_bytes, " bytes")};
  }
  if (ec == bhttp::error::body_limit) {
    return {413, absl::StrCat("request body larger than ", o.max_body_bytes, " bytes")};
  }
  if (ec == bhttp::error::bad_method || ec == bhttp::error::bad_target ||
      ec == bhttp::error::bad_version) {
    return {400, absl::StrCat("malformed request line (", ec.message(), ")")};
  }
  if (ec == bhttp::error::bad_field || ec == bhttp::error::bad_value) {
    return {400, absl::StrCat("malformed header field (", ec.message(), ")")};
  }
  if (ec == bhttp::error::bad_content_length) {
    return {400, "malformed or conflicting Content-Length"};
  }
  if (ec == bhttp::error::bad_chunk || ec == bhttp::error::bad_chunk_extension) {
    return {400, absl::StrCat("chunked body: ", ec.message())};
  }
  return {400, absl::StrCat("malformed request (", ec.message(), ")")};
}

std::string PeerAddress(const tcp::socket& s) {
  error_code ec;
  tcp::endpoint ep = s.remote_endpoint(ec);
  if (ec) return "unknown";
  asio::ip::address a = ep.address();
  if (a.is_v6() && a.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, a.to_v6()).to_string();
  }
  return a.to_string();
}

// "HOST:PORT", "[V6]:PORT", ":PORT".
absl::Status ParseListen(const std::string& listen, std::string* host, std::string* port) {
  auto bad = [&](std::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("listen address \"", listen, "\": ", Av(why),
                                                   " (want HOST:PORT or [IPV6]:PORT)"));
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

// A TLS context serving `pem`; `cert_what` and `key_what` name where the two came from.
absl::StatusOr<std::shared_ptr<ssl::context>> MakeTlsContext(const TlsPem& pem,
                                                             const std::string& cert_what,
                                                             const std::string& key_what) {
  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  uint64_t opts = SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION;
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
  opts |= SSL_OP_IGNORE_UNEXPECTED_EOF;  // a client closing without close_notify is just EOF
#endif
  SSL_CTX_set_options(native, opts);
  error_code ec;
  ctx->use_certificate_chain(asio::buffer(pem.cert_chain), ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat(cert_what, ": ", ec.message()));
  ctx->use_private_key(asio::buffer(pem.private_key), ssl::context::pem, ec);
  if (ec) return absl::InvalidArgumentError(absl::StrCat(key_what, ": ", ec.message()));
  if (SSL_CTX_check_private_key(native) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(key_what, " does not match ", cert_what));
  }
  SSL_CTX_set_alpn_select_cb(native, SelectAlpn, nullptr);
  return ctx;
}

absl::StatusOr<std::string> ReadTlsFile(const std::string& what, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  if (in) text << in.rdbuf();
  if (!in || in.bad()) return absl::InvalidArgumentError(absl::StrCat(what, ": cannot read it"));
  return text.str();
}

absl::StatusOr<std::shared_ptr<ssl::context>> MakeTlsContext(const TlsFiles& tls) {
  if (tls.cert_file.empty() || tls.key_file.empty()) {
    return absl::InvalidArgumentError("TLS needs both a certificate file and a key file");
  }
  const std::string cert_what = "TLS certificate file " + tls.cert_file;
  const std::string key_what = "TLS key file " + tls.key_file;
  TlsPem pem;
  CUB_ASSIGN_OR_RETURN(pem.cert_chain, ReadTlsFile(cert_what, tls.cert_file));
  CUB_ASSIGN_OR_RETURN(pem.private_key, ReadTlsFile(key_what, tls.key_file));
  return MakeTlsContext(pem, cert_what, key_what);
}

// The response's status line and header section.
std::string ResponseHead(const HttpResponse& r, int status, bool keep_alive, unsigned version,
                         std::optional<size_t> content_length, bool chunked) {
  bhttp::response_header<> h;
  h.version(11);
  h.result(static_cast<unsigned>(status));
  const bool no_body = status == 204 || status == 304;
  if (!no_body) {
    if (!r.content_type.empty() && IsFieldValue(r.content_type)) {
      h.set(bhttp::field::content_type, r.content_type);
    }
    if (content_length) h.set(bhttp::field::content_length, std::to_string(*content_length));
    if (chunked && version >= 11) h.set(bhttp::field::transfer_encoding, "chunked");
  }
  h.set(bhttp::field::connection, keep_alive ? "keep-alive" : "close");
  for (const auto& [name, value] : r.headers) {
    if (IsSafeHeader(name, value)) h.insert(name, value);
  }
  bhttp::response_header<>::writer w(h, h.version(), h.result_int());
  std::string out;
  for (auto b : w.get()) out.append(static_cast<const char*>(b.data()), b.size());
  return out;
}

// `status` 0: closed without an answer.
void LogRefusal(const HttpServerOptions& o, const char* what, const std::string& peer, int status,
                std::string_view reason) {
  if (!o.log_refusals) return;
  LogEvent(absl::Now(), "http",
           {{"refused", what},
            {"status", LogValue::Number(std::to_string(status))},
            {"peer", peer},
            {"reason", LogValue(absl::string_view(reason.data(), reason.size()))}});
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The server's shared state.

class Conn;
class StreamImpl;

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, HttpHandler handler)
      : options(std::move(options)), handler(std::move(handler)) {}

  // Queues `job` for a worker. False when the queue is full or the workers have stopped.
  bool Submit(std::function<void()> job) {
    std::lock_guard<std::mutex> l(mu);
    if (workers_stop || static_cast<int>(jobs.size()) >= options.max_queued) return false;
    jobs.push_back(std::move(job));
    work_cv.notify_one();
    return true;
  }

  HttpResponse RunHandler(const HttpRequest& req) {
    try {
      return handler(req);
    } catch (const std::exception& e) {
      LogMessageF("cubd: http: handler threw for %s %s: %s", req.method.c_str(), req.path.c_str(),
                  e.what());
    } catch (...) {
      LogMessageF("cubd: http: handler threw for %s %s", req.method.c_str(), req.path.c_str());
    }
    return ServerError(500, "internal error");
  }

  void WorkerLoop() {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> l(mu);
        work_cv.wait(l, [&] { return workers_stop || !jobs.empty(); });
        if (jobs.empty()) return;  // stopping, and nothing left to run
        job = std::move(jobs.front());
        jobs.pop_front();
      }
      job();
    }
  }

  void DoAccept();
  void OnAccept(const error_code& ec, tcp::socket socket);
  void Refuse(tcp::socket socket);
  void Register(const std::shared_ptr<Conn>& c);
  void Unregister(Conn* c, const std::string& peer);
  void RegisterStream(const std::shared_ptr<StreamImpl>& s);
  std::vector<std::shared_ptr<Conn>> LiveConnections();

  const HttpServerOptions options;
  const HttpHandler handler;
  std::atomic<bool> stopping{false};

  std::mutex mu;
  std::condition_variable work_cv;    // jobs non-empty or workers_stop
  std::condition_variable closed_cv;  // a connection closed
  std::deque<std::function<void()>> jobs;
  bool workers_stop = false;
  int open = 0;  // connections accepted and not yet destroyed
  std::unordered_map<std::string, int> per_client;
  std::unordered_map<Conn*, std::weak_ptr<Conn>> conns;
  std::vector<std::weak_ptr<StreamImpl>> streams;
  std::atomic<int> refusals_in_flight{0};
  bool shut_down = false;

  // Declared after the state that connections use when they are destroyed, so that the I/O
  // context (destroyed first) destroys pending handlers, and the connections they own, while
  // that state still exists.
  // The TLS context new connections get (each keeps the one it started with); replaced by
  // ReplaceTls, hence behind tls_mu. tls_on says whether there is one at all, unlocked.
  std::mutex tls_mu;
  std::shared_ptr<ssl::context> tls;
  bool tls_on = false;
  std::shared_ptr<ssl::context> CurrentTls() {
    std::lock_guard<std::mutex> l(tls_mu);
    return tls;
  }
  int port = 0;
  std::unique_ptr<asio::io_context> ioc;
  std::unique_ptr<tcp::acceptor> acceptor;
  // Keeps the I/O threads running while nothing is pending on the context (every request is
  // with a worker, say).
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> keep_running;
  std::vector<std::thread> io_threads;
  std::vector<std::thread> workers;
};

// ---------------------------------------------------------------------------------------------
// The producer's side of a streaming response.

class StreamImpl final : public HttpStream {
 public:
  StreamImpl(std::weak_ptr<Conn> conn, asio::any_io_executor ex, size_t max_pending)
      : conn_(std::move(conn)), ex_(std::move(ex)), max_pending_(max_pending) {}

  bool Write(std::string data) override;
  void Close() override;
  bool closed() const override {
    std::lock_guard<std::mutex> l(mu_);
    return closed_;
  }

  // Called by the connection (on its strand) when the stream ends from its side, and by
  // Shutdown(): nothing is posted to the connection afterwards.
  void MarkClosed() {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
  }
  // Called by the connection when `n` queued bytes have been written.
  void Sent(size_t n) {
    std::lock_guard<std::mutex> l(mu_);
    pending_ -= std::min(pending_, n);
  }

 private:
  mutable std::mutex mu_;
  bool closed_ = false;
  size_t pending_ = 0;
  const std::weak_ptr<Conn> conn_;
  const asio::any_io_executor ex_;
  const size_t max_pending_;
};

// ---------------------------------------------------------------------------------------------
// One client connection, plaintext or TLS. Every member function runs on the connection's
// strand (the socket's executor); worker threads and producers reach it only through posts.

class Conn : public std::enable_shared_from_this<Conn> {
 public:
  Conn(HttpServer::Impl* srv, tcp::socket socket, std::string peer)
      : srv_(srv),
        o_(srv->options),
        peer_(std::move(peer)),
        timer_(socket.get_executor()),
        accepted_(Clock::now()) {
    if (srv->tls_on) {
      tls_ctx_ = srv->CurrentTls();
      tls_.emplace(std::move(socket), *tls_ctx_);
    } else {
      plain_.emplace(std::move(socket));
    }
  }
  ~Conn() {
    if (stream_) stream_->MarkClosed();
    srv_->Unregister(this, peer_);
  }

  asio::any_io_executor executor() { return timer_.get_executor(); }
  const std::string& peer() const { return peer_; }

  void Start() {
    if (tls_) {
      state_ = State::kHandshake;
      Arm(accepted_ + o_.header_timeout);
      tls_->async_handshake(
          ssl::stream_base::server,
          [self = shared_from_this()](const error_code& ec) { self->OnHandshake(ec); });
      return;
    }
    BeginRequest(accepted_ + o_.header_timeout);
  }

  // Shutdown has begun: idle connections close, streams end, requests under way finish.
  void OnServerStop() {
    if (closed_) return;
    if (state_ == State::kIdle || state_ == State::kHandshake || state_ == State::kClosing) {
      Close();
    } else if (state_ == State::kStreaming) {
      EndStream();
    }
  }

  // The shutdown grace period is over.
  void ForceClose() {
    if (!closed_) Close();
  }

  // From the producer, via StreamImpl.
  void StreamWrite(std::string data) {
    if (closed_ || state_ != State::kStreaming || stream_ending_) return;
    size_t n = data.size();
    if (n == 0) return;
    if (chunked_) {
      QueueWrite(absl::StrCat(absl::Hex(n), "\r\n"), 0);
      QueueWrite(std::move(data), n);
      QueueWrite("\r\n", 0);
    } else {
      QueueWrite(std::move(data), n);
    }
  }
  void EndStream() {
    if (closed_ || state_ != State::kStreaming || stream_ending_) return;
    stream_ending_ = true;
    if (stream_) stream_->MarkClosed();
    if (chunked_) QueueWrite("0\r\n\r\n", 0);
    if (!writing_) CloseGracefully();
  }
  void AbortStream() {
    if (closed_ || state_ != State::kStreaming) return;
    Close();
  }

 private:
  enum class State {
    kHandshake,  // TLS handshake
    kIdle,       // waiting for the first byte of a request
    kHeader,     // reading the request line and headers
    kBody,       // reading the body
    kHandler,    // the request is with a worker
    kWriting,    // writing the response
    kStreaming,  // a streaming response is open
    kClosing,    // the response is out; waiting for the client to close
  };

  // --- I/O on either kind of stream.

  template <class Buffers, class Handler>
  void ReadSome(const Buffers& buffers, Handler&& h) {
    if (tls_) {
      tls_->async_read_some(buffers, std::forward<Handler>(h));
    } else {
      plain_->async_read_some(buffers, std::forward<Handler>(h));
    }
  }
  template <class Handler>
  void WriteAll(const std::string& data, Handler&& h) {
    if (tls_) {
      asio::async_write(*tls_, asio::buffer(data), std::forward<Handler>(h));
    } else {
      asio::async_write(*plain_, asio::buffer(data), std::forward<Handler>(h));
    }
  }
  tcp::socket& socket() { return tls_ ? tls_->next_layer() : *plain_; }

  // --- The one timer: the deadline of whatever the connection waits for now. When it passes,
  // the pending I/O is cancelled and its handler sees timed_out_.

  void Arm(Clock::time_point deadline) {
    ++timer_gen_;
    timed_out_ = false;
    timer_.expires_at(deadline);
    timer_.async_wait([self = shared_from_this(), gen = timer_gen_](const error_code& ec) {
      if (ec || gen != self->timer_gen_ || self->closed_) return;
      self->timed_out_ = true;
      error_code ignored;
      self->socket().cancel(ignored);
    });
  }
  void Disarm() {
    ++timer_gen_;
    timer_.cancel();
  }

  // --- Reading a request.

  void BeginRequest(Clock::time_point first_byte_deadline) {
    state_ = State::kIdle;
    if (buf_.size() == 0) buf_.shrink_to_fit();  // an idle connection keeps no big buffer
    phase_deadline_ = first_byte_deadline;
    Parse();
  }

  void Read() {
    Clock::time_point deadline = phase_deadline_;
    if (state_ == State::kHeader || state_ == State::kBody) {
      deadline = std::min(deadline, Clock::now() + o_.io_timeout);
    }
    Arm(deadline);
    ReadSome(buf_.prepare(kReadChunk),
             [self = shared_from_this()](const error_code& ec, size_t n) { self->OnRead(ec, n); });
  }

  void OnRead(const error_code& ec, size_t n) {
    const bool timed_out = timed_out_;
    Disarm();
    if (closed_) return;
    if (ec) {
      if (timed_out && state_ == State::kHeader) {
        Refuse(408, "request header not received in time");
      } else if (timed_out && state_ == State::kBody) {
        Refuse(408, "request body not received in time");
      } else {
        Close();  // the client went away, or was idle too long
      }
      return;
    }
    buf_.commit(n);
    Parse();
  }

  void Parse() {
    if (state_ == State::kIdle) {
      // Empty lines before a request line are ignored (RFC 9112 section 2.2).
      while (buf_.size() > 0 && (*static_cast<const char*>(buf_.data().data()) == '\r' ||
                                 *static_cast<const char*>(buf_.data().data()) == '\n')) {
        buf_.consume(1);
      }
      if (buf_.size() == 0) {
        if (srv_->stopping) return Close();
        return Read();
      }
      state_ = State::kHeader;
      if (!first_request_) phase_deadline_ = Clock::now() + o_.header_timeout;
      first_request_ = false;
    }
    if (state_ == State::kHeader) {
      std::string_view received(static_cast<const char*>(buf_.data().data()), buf_.size());
      HeadEnd end = FindHeadEnd(received.substr(0, o_.max_header_bytes + 4), head_scanned_);
      head_scanned_ = std::min(received.size(), o_.max_header_bytes + 4);
      if (end.refusal) return Refuse(end.refusal->status, end.refusal->message);
      if (end.length == 0 || end.length > o_.max_header_bytes) {
        if (end.length > o_.max_header_bytes || buf_.size() > o_.max_header_bytes) {
          return Refuse(431, absl::StrCat("request header section larger than ",
                                          o_.max_header_bytes, " bytes"));
        }
        return Read();
      }
      head_scanned_ = 0;
      if (auto refusal = CheckRequestHead(received.substr(0, end.length))) {
        return Refuse(refusal->status, refusal->message);
      }
      parser_.emplace();
      parser_->header_limit(static_cast<std::uint32_t>(o_.max_header_bytes + 4));
      parser_->body_limit(o_.max_body_bytes);
      parser_->eager(false);
      error_code ec;
      size_t used = parser_->put(asio::buffer(received.data(), end.length), ec);
      buf_.consume(used);
      if (ec || !parser_->is_header_done()) {
        return Refuse(ec ? RefusalFor(ec, o_)
                         : HttpRefusal{400, "malformed request header section"});
      }
      state_ = State::kBody;
      phase_deadline_ = Clock::now() + o_.transfer_timeout;
      parser_->eager(true);
      const auto& h = parser_->get();
      if (!parser_->is_done() && buf_.size() == 0 && h.version() >= 11 &&
          absl::EqualsIgnoreCase(Av(Sv(h[bhttp::field::expect])), "100-continue")) {
        state_ = State::kWriting;
        QueueWrite("HTTP/1.1 100 Continue\r\n\r\n", 0);
        after_write_ = [this] {
          state_ = State::kBody;
          Parse();
        };
        return;
      }
    }
    if (state_ == State::kBody) {
      while (!parser_->is_done() && buf_.size() > 0) {
        error_code ec;
        size_t used = parser_->put(buf_.data(), ec);
        buf_.consume(used);
        if (ec == bhttp::error::need_more) break;
        if (ec) return Refuse(RefusalFor(ec, o_));
      }
      if (!parser_->is_done()) return Read();
      Dispatch();
    }
  }

  // --- Handing the request to a worker, and its response back.

  void Dispatch() {
    Disarm();
    state_ = State::kHandler;
    bhttp::request<RequestBody> msg = parser_->release();
    parser_.reset();
    keep_alive_ = msg.keep_alive();
    version_ = msg.version();
    head_ = msg.method() == bhttp::verb::head;

    auto req = std::make_shared<HttpRequest>();
    req->method = std::string(Sv(msg.method_string()));
    std::string_view target(msg.target().data(), msg.target().size());
    if (!target.empty() && target[0] != '/' && target != "*") {
      // absolute-form, "http://host/path": keep the path.
      size_t scheme = target.find("://");
      size_t slash =
          scheme == std::string_view::npos ? std::string_view::npos : target.find('/', scheme + 3);
      target = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
    }
    target = target.substr(0, target.find('#'));
    size_t q = target.find('?');
    req->path = std::string(target.substr(0, q));
    req->query = q == std::string_view::npos ? "" : std::string(target.substr(q + 1));
    for (const auto& f : msg) {
      std::string key = absl::AsciiStrToLower(Av(Sv(f.name_string())));
      std::string value(Sv(f.value()));
      auto [it, inserted] = req->headers.emplace(key, value);
      if (!inserted && key != "content-length") absl::StrAppend(&it->second, ", ", value);
    }
    req->body = std::move(msg.body());
    req->remote_addr = peer_;

    HttpServer::Impl* srv = srv_;
    const bool head = head_;
    bool queued = srv->Submit([self = shared_from_this(), srv, req, head] {
      auto resp = std::make_shared<HttpResponse>(srv->RunHandler(*req));
      std::shared_ptr<StreamImpl> stream;
      std::function<void(std::shared_ptr<HttpStream>)> producer;
      if (resp->stream && !head) {
        stream = std::make_shared<StreamImpl>(self, self->executor(),
                                              srv->options.max_stream_buffer_bytes);
        srv->RegisterStream(stream);
        producer = std::move(resp->stream);
      }
      // Posted before the producer can write, so the headers go first.
      asio::post(self->executor(),
                 [self, resp, stream] { self->OnResponse(std::move(*resp), stream); });
      if (!producer) return;
      try {
        producer(stream);
      } catch (const std::exception& e) {
        LogMessageF("cubd: http: stream producer threw for %s %s: %s", req->method.c_str(),
                    req->path.c_str(), e.what());
        stream->Close();
      } catch (...) {
        stream->Close();
      }
    });
    if (!queued) {
      LogRefusal(o_, "request", peer_, 503, "no worker free and the queue is full");
      keep_alive_ = false;
      OnResponse(Busy(), nullptr);
    }
  }

  // `stream` is set for a streaming response (not for HEAD, whose headers alone are sent).
  void OnResponse(HttpResponse resp, std::shared_ptr<StreamImpl> stream) {
    if (closed_) {
      if (stream) stream->MarkClosed();
      return;
    }
    state_ = State::kWriting;
    int status = resp.status >= 200 && resp.status <= 999 ? resp.status : 500;
    const bool streaming = stream != nullptr || static_cast<bool>(resp.stream);
    const bool keep = keep_alive_ && !srv_->stopping && !streaming;
    const bool no_body = status == 204 || status == 304;
    if (streaming) {
      chunked_ = version_ >= 11;
      QueueWrite(ResponseHead(resp, status, false, version_, std::nullopt, chunked_), 0);
      if (stream == nullptr || no_body || srv_->stopping) {
        if (stream) stream->MarkClosed();
        after_write_ = [this] { CloseGracefully(); };
        return;
      }
      state_ = State::kStreaming;
      stream_ = std::move(stream);
      WatchForDisconnect();
      return;
    }
    QueueWrite(ResponseHead(resp, status, keep, version_, resp.body.size(), false), 0);
    if (!head_ && !no_body && !resp.body.empty()) QueueWrite(std::move(resp.body), 0);
    after_write_ = [this, keep] {
      if (keep) {
        BeginRequest(Clock::now() + o_.keepalive_timeout);
      } else {
        CloseGracefully();
      }
    };
  }

  // A streaming response reads only to learn that the client has gone.
  void WatchForDisconnect() {
    ReadSome(asio::buffer(discard_), [self = shared_from_this()](const error_code& ec, size_t) {
      if (self->closed_ || self->state_ != State::kStreaming) return;
      if (ec) return self->Close();
      self->WatchForDisconnect();  // a pipelined request: ignored, the stream closes
    });
  }

  // --- Writing.

  // Queues `data`; `stream_bytes` of it are a streaming body's (reported to the producer's
  // budget when written).
  void QueueWrite(std::string data, size_t stream_bytes) {
    out_.push_back({std::move(data), stream_bytes});
    if (!writing_) WriteNext();
  }

  void WriteNext() {
    if (out_.empty()) {
      writing_ = false;
      if (state_ == State::kStreaming) {
        if (stream_ending_) CloseGracefully();
        return;
      }
      if (after_write_) {
        auto next = std::move(after_write_);
        after_write_ = nullptr;
        next();
      }
      return;
    }
    writing_ = true;
    Arm(Clock::now() + o_.transfer_timeout);
    WriteAll(out_.front().data, [self = shared_from_this()](const error_code& ec, size_t) {
      self->Disarm();
      if (self->closed_) return;
      if (ec) return self->Close();  // the client went away, or did not read in time
      if (self->stream_ && self->out_.front().stream_bytes > 0) {
        self->stream_->Sent(self->out_.front().stream_bytes);
      }
      self->out_.pop_front();
      self->WriteNext();
    });
  }

  // --- Refusing and closing.

  void Refuse(int status, std::string_view message) {
    LogRefusal(o_, "request", peer_, status, message);
    parser_.reset();
    keep_alive_ = false;
    head_ = false;
    Disarm();
    OnResponse(ServerError(status, message), nullptr);
  }
  void Refuse(const HttpRefusal& r) { Refuse(r.status, r.message); }

  void OnHandshake(const error_code& ec) {
    const bool timed_out = timed_out_;
    Disarm();
    if (closed_) return;
    if (ec) {
      if (timed_out) {
        LogRefusal(o_, "connection", peer_, 408, "TLS handshake not completed in time");
      }
      tls_broken_ = true;
      return Close();
    }
    handshake_done_ = true;
    if (srv_->stopping) return Close();
    BeginRequest(accepted_ + o_.header_timeout);
  }

  // Sends TLS close_notify, half-closes, and reads what the client still sends until it closes
  // (or kLinger passes): closing a socket with unread data resets the connection, which can
  // destroy the response before the client has read it.
  void CloseGracefully() {
    if (closed_) return;
    error_code ignored;
    // A stream's read that watches for the client going away would compete with ours.
    if (state_ == State::kStreaming) socket().cancel(ignored);
    state_ = State::kClosing;
    if (stream_) stream_->MarkClosed();
    if (tls_ && handshake_done_ && !tls_broken_) {
      Arm(Clock::now() + std::chrono::milliseconds(500));
      tls_->async_shutdown([self = shared_from_this()](const error_code&) {
        self->Disarm();
        self->Close();  // the peer answered close_notify, or did not in time
      });
      return;
    }
    socket().shutdown(tcp::socket::shutdown_send, ignored);
    if (srv_->stopping) return Close();  // no lingering while the server drains
    Arm(Clock::now() + kLinger);
    Linger();
  }

  void Linger() {
    socket().async_read_some(asio::buffer(discard_),
                             [self = shared_from_this()](const error_code& ec, size_t n) {
                               self->lingered_ += n;
                               if (ec || self->closed_ || self->lingered_ > kMaxLingerBytes) {
                                 return self->Close();
                               }
                               self->Linger();
                             });
  }

  void Close() {
    if (closed_) return;
    closed_ = true;
    if (stream_) stream_->MarkClosed();
    Disarm();
    error_code ignored;
    socket().shutdown(tcp::socket::shutdown_both, ignored);
    socket().close(ignored);
    out_.clear();
    after_write_ = nullptr;
  }

  struct Pending {
    std::string data;
    size_t stream_bytes;
  };

  HttpServer::Impl* const srv_;
  const HttpServerOptions& o_;
  const std::string peer_;
  std::optional<tcp::socket> plain_;
  std::shared_ptr<ssl::context> tls_ctx_;  // outlives tls_, which was made from it
  std::optional<ssl::stream<tcp::socket>> tls_;
  asio::steady_timer timer_;
  const Clock::time_point accepted_;

  State state_ = State::kIdle;
  bool closed_ = false;
  bool handshake_done_ = false;
  bool tls_broken_ = false;  // a failed handshake: no close_notify may be sent
  bool first_request_ = true;
  size_t head_scanned_ = 0;  // bytes of the header section FindHeadEnd has looked at
  uint64_t timer_gen_ = 0;
  bool timed_out_ = false;
  Clock::time_point phase_deadline_;

  beast::flat_buffer buf_;
  std::optional<bhttp::request_parser<RequestBody>> parser_;
  bool keep_alive_ = false;
  unsigned version_ = 11;
  bool head_ = false;

  std::deque<Pending> out_;
  bool writing_ = false;
  std::function<void()> after_write_;  // when out_ has drained (not for streams)

  std::shared_ptr<StreamImpl> stream_;
  bool chunked_ = false;
  bool stream_ending_ = false;

  char discard_[4096];
  size_t lingered_ = 0;
};

bool StreamImpl::Write(std::string data) {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return false;
  if (pending_ + data.size() > max_pending_) {
    // The client does not read: end the stream rather than buffer without bound.
    closed_ = true;
    asio::post(ex_, [c = conn_] {
      if (auto conn = c.lock()) conn->AbortStream();
    });
    return false;
  }
  pending_ += data.size();
  asio::post(ex_, [c = conn_, d = std::move(data)]() mutable {
    if (auto conn = c.lock()) conn->StreamWrite(std::move(d));
  });
  return true;
}

void StreamImpl::Close() {
  std::lock_guard<std::mutex> l(mu_);
  if (closed_) return;
  closed_ = true;
  asio::post(ex_, [c = conn_] {
    if (auto conn = c.lock()) conn->EndStream();
  });
}

// ---------------------------------------------------------------------------------------------
// Accepting, and the bookkeeping of connections.

void HttpServer::Impl::DoAccept() {
  acceptor->async_accept(asio::make_strand(*ioc), [this](const error_code& ec, tcp::socket s) {
    OnAccept(ec, std::move(s));
  });
}

void HttpServer::Impl::OnAccept(const error_code& ec, tcp::socket socket) {
  if (stopping || !acceptor->is_open()) return;
  if (ec) {
    if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
        ec == asio::error::no_memory) {
      // Out of descriptors or memory: back off instead of spinning; closing connections will
      // free some.
      auto t = std::make_shared<asio::steady_timer>(*ioc, std::chrono::milliseconds(50));
      t->async_wait([this, t](const error_code&) {
        if (!stopping) DoAccept();
      });
      return;
    }
    DoAccept();
    return;
  }
  error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  std::string peer = PeerAddress(socket);
  std::string refusal;
  bool answer = true;  // with 503; false: just close
  {
    std::lock_guard<std::mutex> l(mu);
    if (open >= options.max_connections) {
      refusal = absl::StrCat(open, " connections open (the limit, --http-max-connections)");
      answer = false;  // answering would take more of what is short
    } else if (auto it = per_client.find(peer); options.max_connections_per_client > 0 &&
                                                it != per_client.end() &&
                                                it->second >= options.max_connections_per_client) {
      refusal = absl::StrCat(it->second,
                             " connections open from this address (the limit, "
                             "--http-max-connections-per-client)");
    } else {
      ++open;
      ++per_client[peer];
    }
  }
  if (!refusal.empty()) {
    LogRefusal(options, "connection", peer, answer && !tls_on ? 503 : 0, refusal);
    if (answer) {
      Refuse(std::move(socket));
    } else {
      socket.close(ignored);
    }
  } else {
    auto c = std::make_shared<Conn>(this, std::move(socket), peer);
    Register(c);
    c->Start();
  }
  DoAccept();
}

// Answers a connection refused at accept with 503 (plaintext only: over TLS there is no
// handshake to answer over), then closes it after reading what the client sent.
void HttpServer::Impl::Refuse(tcp::socket socket) {
  error_code ignored;
  if (tls_on || refusals_in_flight.load() >= kMaxRefusalsInFlight) {
    socket.close(ignored);
    return;
  }
  ++refusals_in_flight;
  struct Refusal {
    tcp::socket socket;
    std::string out;
    asio::steady_timer timer;
    char discard[4096];
    std::atomic<int>* in_flight;
    Refusal(tcp::socket s, std::atomic<int>* n)
        : socket(std::move(s)), timer(socket.get_executor()), in_flight(n) {}
    ~Refusal() { --*in_flight; }
  };
  auto r = std::make_shared<Refusal>(std::move(socket), &refusals_in_flight);
  HttpResponse busy = Busy();
  r->out = ResponseHead(busy, 503, false, 11, busy.body.size(), false) + busy.body;
  r->timer.expires_after(std::chrono::seconds(1));
  r->timer.async_wait([r](const error_code& ec) {
    if (ec) return;
    error_code e;
    r->socket.close(e);
  });
  asio::async_write(r->socket, asio::buffer(r->out), [r](const error_code& ec, size_t) {
    error_code e;
    if (ec) return r->socket.close(e);
    r->socket.shutdown(tcp::socket::shutdown_send, e);
    // Read (and drop) what the client sends until it closes or the timer fires.
    auto drain = std::make_shared<std::function<void()>>();
    *drain = [r, drain] {
      r->socket.async_read_some(asio::buffer(r->discard), [r, drain](const error_code& ec, size_t) {
        if (ec) {
          error_code e;
          r->timer.cancel();
          r->socket.close(e);
          *drain = nullptr;  // breaks the cycle
          return;
        }
        (*drain)();
      });
    };
    (*drain)();
  });
}

void HttpServer::Impl::Register(const std::shared_ptr<Conn>& c) {
  std::lock_guard<std::mutex> l(mu);
  conns.emplace(c.get(), c);
}

void HttpServer::Impl::Unregister(Conn* c, const std::string& peer) {
  {
    std::lock_guard<std::mutex> l(mu);
    conns.erase(c);
    --open;
    if (--per_client[peer] <= 0) per_client.erase(peer);
  }
  closed_cv.notify_all();
}

void HttpServer::Impl::RegisterStream(const std::shared_ptr<StreamImpl>& s) {
  std::lock_guard<std::mutex> l(mu);
  streams.erase(std::remove_if(streams.begin(), streams.end(),
                               [](const std::weak_ptr<StreamImpl>& w) { return w.expired(); }),
                streams.end());
  streams.push_back(s);
}

std::vector<std::shared_ptr<Conn>> HttpServer::Impl::LiveConnections() {
  std::vector<std::shared_ptr<Conn>> out;
  std::lock_guard<std::mutex> l(mu);
  for (auto& [raw, weak] : conns) {
    if (auto c = weak.lock()) out.push_back(std::move(c));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// HttpServer.

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

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
  if (options.io_threads < 1) {
    return absl::InvalidArgumentError("HttpServer: io_threads must be >= 1");
  }
  if (options.max_connections < 1) {
    return absl::InvalidArgumentError("HttpServer: max_connections must be >= 1");
  }
  std::string host, port;
  CUB_RETURN_IF_ERROR(ParseListen(listen, &host, &port));

  HttpServerOptions opts = options;
  if (opts.max_queued <= 0) opts.max_queued = 4 * opts.threads;
  auto impl = std::make_unique<Impl>(opts, std::move(handler));
  if (!tls.cert_file.empty() || !tls.key_file.empty()) {
    CUB_ASSIGN_OR_RETURN(impl->tls, MakeTlsContext(tls));
    impl->tls_on = true;
  }
  impl->ioc = std::make_unique<asio::io_context>(opts.io_threads);
  impl->acceptor = std::make_unique<tcp::acceptor>(*impl->ioc);
  impl->keep_running.emplace(impl->ioc->get_executor());

  error_code ec;
  tcp::resolver resolver(*impl->ioc);
  auto results =
      resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service, ec);
  if (ec) {
    return absl::InvalidArgumentError(
        absl::StrCat("listen address \"", listen, "\": ", ec.message()));
  }
  std::string bind_error = "no address";
  for (const auto& entry : results) {
    tcp::acceptor& a = *impl->acceptor;
    error_code e;
    a.open(entry.endpoint().protocol(), e);
    if (!e) a.set_option(asio::socket_base::reuse_address(true), e);
    if (!e) a.bind(entry.endpoint(), e);
    if (!e) a.listen(512, e);
    if (!e) break;
    bind_error = e.message();
    error_code ignored;
    a.close(ignored);
  }
  if (!impl->acceptor->is_open()) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", listen, ": ", bind_error));
  }
  impl->port = impl->acceptor->local_endpoint(ec).port();

  std::unique_ptr<HttpServer> server(new HttpServer(std::move(impl)));
  Impl* s = server->impl_.get();
  s->DoAccept();
  try {
    for (int i = 0; i < opts.threads; ++i) s->workers.emplace_back([s] { s->WorkerLoop(); });
    for (int i = 0; i < opts.io_threads; ++i) {
      s->io_threads.emplace_back([s] {
        for (;;) {
          try {
            s->ioc->run();
            return;
          } catch (const std::exception& e) {
            LogMessageF("cubd: http: I/O thread: %s", e.what());
          }
        }
      });
    }
  } catch (const std::system_error& e) {
    return absl::ResourceExhaustedError(absl::StrCat("HttpServer threads: ", e.what()));
  }
  return server;
}

HttpServer::~HttpServer() { Shutdown(); }

int HttpServer::bound_port() const { return impl_->port; }

absl::Status HttpServer::ReplaceTls(const TlsPem& pem) {
  if (!impl_->tls_on) return absl::InvalidArgumentError("HttpServer: serving plaintext, not TLS");
  CUB_ASSIGN_OR_RETURN(auto ctx, MakeTlsContext(pem, "TLS certificate", "TLS key"));
  std::lock_guard<std::mutex> l(impl_->tls_mu);
  impl_->tls = std::move(ctx);
  return absl::OkStatus();
}

void HttpServer::Shutdown() {
  std::lock_guard<std::mutex> serial(shutdown_mu_);
  Impl& s = *impl_;
  {
    std::lock_guard<std::mutex> l(s.mu);
    if (s.shut_down) return;
    s.shut_down = true;
  }
  s.stopping = true;

  // 1. Stop accepting; idle connections close and streams end, on their strands.
  {
    std::promise<void> closed;
    asio::post(*s.ioc, [&] {
      error_code ignored;
      s.acceptor->close(ignored);
      closed.set_value();
    });
    closed.get_future().wait();
  }
  for (auto& c : s.LiveConnections()) asio::post(c->executor(), [c] { c->OnServerStop(); });

  // 2. Let requests under way finish, for up to the grace period.
  bool drained;
  {
    std::unique_lock<std::mutex> l(s.mu);
    drained = s.closed_cv.wait_for(l, s.options.shutdown_grace, [&] { return s.open == 0; });
  }
  // 3. Grace is over: drop requests not yet started, close every socket.
  if (!drained) {
    std::deque<std::function<void()>> dropped;
    {
      std::lock_guard<std::mutex> l(s.mu);
      dropped.swap(s.jobs);
    }
    dropped.clear();
    for (auto& c : s.LiveConnections()) asio::post(c->executor(), [c] { c->ForceClose(); });
  }
  // 4. Workers finish the handlers still running (and exit).
  {
    std::lock_guard<std::mutex> l(s.mu);
    s.workers_stop = true;
  }
  s.work_cv.notify_all();
  for (auto& t : s.workers) {
    if (t.joinable()) t.join();
  }
  // 5. Nothing may be posted by producers from now on.
  {
    std::vector<std::weak_ptr<StreamImpl>> streams;
    {
      std::lock_guard<std::mutex> l(s.mu);
      streams.swap(s.streams);
    }
    for (auto& w : streams) {
      if (auto st = w.lock()) st->MarkClosed();
    }
  }
  // 6. Connections closing now need their I/O threads a little longer.
  {
    std::unique_lock<std::mutex> l(s.mu);
    s.closed_cv.wait_for(l, std::chrono::seconds(2), [&] { return s.open == 0; });
  }
  s.keep_running.reset();
  s.ioc->stop();
  for (auto& t : s.io_threads) {
    if (t.joinable()) t.join();
  }
}

}  // namespace cub::server
