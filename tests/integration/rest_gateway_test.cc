// The REST/JSON mirror end to end: a real grpc::Server (tiny AuthService and SpaceService
// implementations, no database), the RestGateway on its in-process channel, served by the
// HttpServer on a free port, driven by real HTTP over sockets (plaintext and TLS, plus `curl`
// when installed). Also the HttpServer's own limits: timeouts, the bounded queue (503), body and
// header caps, keep-alive, pipelining, chunked bodies and graceful shutdown.

#include "server/rest_gateway.h"

#include <arpa/inet.h>
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cub/v1/auth.grpc.pb.h"
#include "cub/v1/space.grpc.pb.h"
#include "server/http_server.h"

namespace {

using cub::server::HttpRequest;
using cub::server::HttpResponse;
using cub::server::HttpServer;
using cub::server::HttpServerOptions;
using cub::server::RestGateway;
using cub::server::TlsFiles;
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

// ---------------------------------------------------------------------------------------------
// gRPC services under test.

std::string Metadata(const grpc::ServerContext* ctx, const std::string& key) {
  auto it = ctx->client_metadata().find(key);
  if (it == ctx->client_metadata().end()) return "";
  return std::string(it->second.data(), it->second.size());
}

class AuthImpl final : public cub::v1::AuthService::Service {
  grpc::Status WhoAmI(grpc::ServerContext* ctx, const cub::v1::WhoAmIRequest*,
                      cub::v1::WhoAmIResponse* resp) override {
    if (Metadata(ctx, "authorization") != "Bearer good") {
      return grpc::Status(grpc::StatusCode::UNAUTHENTICATED, "missing or invalid bearer token");
    }
    resp->mutable_user()->set_user_id("u-1");
    resp->mutable_user()->set_username("alice");
    resp->mutable_user()->add_groups("dev");
    return grpc::Status::OK;
  }
};

class SpaceImpl final : public cub::v1::SpaceService::Service {
  grpc::Status GetSpace(grpc::ServerContext* ctx, const cub::v1::GetSpaceRequest* req,
                        cub::v1::Space* resp) override {
    if (req->space() == "slow") std::this_thread::sleep_for(500ms);
    if (req->space() != "home" && req->space() != "slow") {
      return grpc::Status(grpc::StatusCode::NOT_FOUND,
                          "space \"" + req->space().substr(0, 100) + "\" not found");
    }
    resp->set_slug(req->space());
    resp->set_display_name("Home \"sweet\" home \xE2\x9C\x93");
    (*resp->mutable_labels())["tier"] = "gold";
    (*resp->mutable_annotations())["x-forwarded-for"] = Metadata(ctx, "x-forwarded-for");
    (*resp->mutable_annotations())["x-request-id"] = Metadata(ctx, "x-request-id");
    return grpc::Status::OK;
  }
};

HttpServerOptions DefaultStackOptions() {
  HttpServerOptions o;
  o.threads = 4;
  return o;
}

// A gRPC server reachable only in-process, the gateway on it and an HTTP server in front.
struct Stack {
  AuthImpl auth;
  SpaceImpl spaces;
  std::unique_ptr<grpc::Server> grpc_server;
  std::unique_ptr<RestGateway> gateway;
  std::unique_ptr<HttpServer> http;

  explicit Stack(const TlsFiles& tls = {}, cub::server::RestGatewayOptions gw = {},
                 HttpServerOptions http_options = DefaultStackOptions()) {
    grpc::ServerBuilder builder;
    builder.RegisterService(&auth);
    builder.RegisterService(&spaces);
    grpc_server = builder.BuildAndStart();
    REQUIRE(grpc_server != nullptr);
    gateway = std::make_unique<RestGateway>(grpc_server->InProcessChannel(grpc::ChannelArguments()),
                                            google::protobuf::DescriptorPool::generated_pool(), gw);
    auto started = HttpServer::Start("127.0.0.1:0", tls, http_options, gateway->AsHandler());
    REQUIRE(started.ok());
    http = std::move(*started);
    REQUIRE(http->bound_port() > 0);
  }
  ~Stack() {
    http->Shutdown();  // the REST mirror first, then the gRPC server it calls
    grpc_server->Shutdown();
  }
};

// ---------------------------------------------------------------------------------------------
// A minimal HTTP/1.1 client over a blocking socket, plaintext or TLS.

struct Response {
  int status = 0;                              // 0: no response (closed or timed out)
  std::map<std::string, std::string> headers;  // lowercased names
  std::string body;
  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

class Client {
 public:
  Client(int port, bool ipv6 = false, SSL_CTX* tls = nullptr) {
    fd_ = ::socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    timeval tv{5, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int rc;
    if (ipv6) {
      sockaddr_in6 a{};
      a.sin6_family = AF_INET6;
      a.sin6_port = htons(port);
      a.sin6_addr = in6addr_loopback;
      rc = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    } else {
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(port);
      a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      rc = ::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a);
    }
    connected_ = rc == 0;
    if (connected_ && tls != nullptr) {
      ssl_ = SSL_new(tls);
      SSL_set_fd(ssl_, fd_);
      SSL_set_tlsext_host_name(ssl_, "localhost");
      SSL_set1_host(ssl_, "localhost");
      connected_ = SSL_connect(ssl_) == 1;
    }
  }
  ~Client() {
    if (ssl_ != nullptr) SSL_free(ssl_);
    if (fd_ >= 0) ::close(fd_);
  }
  bool connected() const { return connected_; }

  bool Send(const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
      long n = ssl_ ? SSL_write(ssl_, data.data() + off, static_cast<int>(data.size() - off))
                    : ::send(fd_, data.data() + off, data.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return false;
      off += n;
    }
    return true;
  }

  // Reads one final response (1xx responses are skipped). For a HEAD request pass head=true.
  Response Read(bool head = false) {
    Response r;
    for (;;) {
      size_t end;
      while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
        if (ReadSome() <= 0) return r;
      }
      std::string head_text = buf_.substr(0, end);
      buf_.erase(0, end + 4);
      std::vector<std::string> lines;
      size_t start = 0;
      for (size_t nl; (nl = head_text.find("\r\n", start)) != std::string::npos; start = nl + 2) {
        lines.push_back(head_text.substr(start, nl - start));
      }
      lines.push_back(head_text.substr(start));
      int status = std::atoi(lines[0].substr(9, 3).c_str());
      if (status >= 100 && status < 200) {
        ++interim_responses_;
        continue;
      }
      r.status = status;
      for (size_t i = 1; i < lines.size(); ++i) {
        size_t colon = lines[i].find(':');
        std::string name = lines[i].substr(0, colon);
        for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        std::string value = lines[i].substr(colon + 1);
        while (!value.empty() && value[0] == ' ') value.erase(0, 1);
        r.headers[name] = value;
      }
      size_t length =
          head ? 0
               : std::stoul(r.header("content-length").empty() ? "0" : r.header("content-length"));
      while (buf_.size() < length) {
        if (ReadSome() <= 0) {
          r.status = 0;
          return r;
        }
      }
      r.body = buf_.substr(0, length);
      buf_.erase(0, length);
      return r;
    }
  }

  // True if the server closes the connection within `timeout`.
  bool WaitClosed(std::chrono::milliseconds timeout) {
    timeval tv{static_cast<time_t>(timeout.count() / 1000),
               static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    for (;;) {
      char c;
      long n = ssl_ ? SSL_read(ssl_, &c, 1) : ::recv(fd_, &c, 1, 0);
      if (n == 0) return true;
      if (n < 0) return ssl_ != nullptr ? true : (errno == ECONNRESET);
      // Data arrived (e.g. an error response); keep waiting for EOF.
    }
  }

  int interim_responses() const { return interim_responses_; }

  // Reads until what was received (and not yet consumed by Read) contains `needle`; false if
  // the connection closes or stalls first.
  bool ReadUntil(const std::string& needle) {
    while (buf_.find(needle) == std::string::npos) {
      if (ReadSome() <= 0) return false;
    }
    return true;
  }
  const std::string& received() const { return buf_; }

 private:
  long ReadSome() {
    char tmp[65536];
    long n = ssl_ ? SSL_read(ssl_, tmp, sizeof tmp) : ::recv(fd_, tmp, sizeof tmp, 0);
    if (n > 0) buf_.append(tmp, n);
    return n;
  }

  int fd_ = -1;
  SSL* ssl_ = nullptr;
  bool connected_ = false;
  std::string buf_;
  int interim_responses_ = 0;
};

std::string Post(const std::string& path, const std::string& body,
                 const std::string& extra_headers = "") {
  return "POST " + path + " HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n" +
         extra_headers + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

Response Roundtrip(int port, const std::string& request, bool head = false) {
  Client c(port);
  REQUIRE(c.connected());
  REQUIRE(c.Send(request));
  return c.Read(head);
}

// Parses a JSON object into a Struct (fails the test if it is not valid JSON).
google::protobuf::Struct ParseJson(const std::string& json) {
  google::protobuf::Struct s;
  INFO(json);
  REQUIRE(google::protobuf::util::JsonStringToMessage(json, &s).ok());
  return s;
}

void RequireJsonError(const Response& r, int http_status, int code, const std::string& status,
                      const std::string& message_part) {
  INFO(r.body);
  REQUIRE(r.status == http_status);
  REQUIRE(r.header("content-type") == "application/json");
  google::protobuf::Struct s = ParseJson(r.body);
  REQUIRE(s.fields().at("code").number_value() == code);
  REQUIRE(s.fields().at("status").string_value() == status);
  REQUIRE(s.fields().at("message").string_value().find(message_part) != std::string::npos);
}

bool HaveCurl() { return std::system("command -v curl >/dev/null 2>&1") == 0; }

// Runs a shell command, returns its stdout.
std::string Run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  return out;
}

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "rest_gateway_test.XXXXXX");
    REQUIRE(::mkdtemp(tmpl.data()) != nullptr);
    path = tmpl;
  }
  ~TempDir() { std::filesystem::remove_all(path); }
};

// Writes a self-signed P-256 certificate for localhost/127.0.0.1 and its key as PEM files.
void MakeSelfSignedCert(const std::string& cert_path, const std::string& key_path) {
  EVP_PKEY* key = EVP_EC_gen("P-256");
  REQUIRE(key != nullptr);
  X509* x = X509_new();
  ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
  X509_gmtime_adj(X509_getm_notBefore(x), -60);
  X509_gmtime_adj(X509_getm_notAfter(x), 3600);
  X509_set_pubkey(x, key);
  X509_NAME* name = X509_get_subject_name(x);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
  X509_set_issuer_name(x, name);
  X509V3_CTX v3;
  X509V3_set_ctx_nodb(&v3);
  X509V3_set_ctx(&v3, x, x, nullptr, nullptr, 0);
  X509_EXTENSION* san =
      X509V3_EXT_conf_nid(nullptr, &v3, NID_subject_alt_name, "DNS:localhost,IP:127.0.0.1");
  REQUIRE(san != nullptr);
  X509_add_ext(x, san, -1);
  X509_EXTENSION_free(san);
  REQUIRE(X509_sign(x, key, EVP_sha256()) > 0);
  FILE* f = std::fopen(cert_path.c_str(), "w");
  PEM_write_X509(f, x);
  std::fclose(f);
  f = std::fopen(key_path.c_str(), "w");
  PEM_write_PrivateKey(f, key, nullptr, nullptr, 0, nullptr, nullptr);
  std::fclose(f);
  X509_free(x);
  EVP_PKEY_free(key);
}

}  // namespace

// ---------------------------------------------------------------------------------------------

TEST_CASE("REST mirror serves unary RPCs as JSON over HTTP", "[rest]") {
  Stack stack;
  const int port = stack.http->bound_port();

  SECTION("200 with the response's JSON, PascalCase names and defaults printed") {
    for (const char* path : {"/v1/AuthService/WhoAmI", "/v1/cub.v1.AuthService/WhoAmI"}) {
      Response r = Roundtrip(port, Post(path, "{}", "Authorization: Bearer good\r\n"));
      INFO(path << " -> " << r.body);
      REQUIRE(r.status == 200);
      REQUIRE(r.header("content-type") == "application/json");
      REQUIRE(r.body.find("\"User\":{") != std::string::npos);
      REQUIRE(r.body.find("\"Username\":\"alice\"") != std::string::npos);
      REQUIRE(r.body.find("\"UserID\":\"u-1\"") != std::string::npos);
      REQUIRE(r.body.find("\"Admin\":false") != std::string::npos);  // default printed
      cub::v1::WhoAmIResponse parsed;
      REQUIRE(google::protobuf::util::JsonStringToMessage(r.body, &parsed).ok());
      REQUIRE(parsed.user().groups(0) == "dev");
    }
  }

  SECTION("an empty body is the empty request message") {
    Response r =
        Roundtrip(port, Post("/v1/AuthService/WhoAmI", "", "Authorization: Bearer good\r\n"));
    REQUIRE(r.status == 200);
  }

  SECTION("request fields by json_name; metadata forwarded") {
    Response r = Roundtrip(port, Post("/v1/SpaceService/GetSpace", R"({"Space": "home"})",
                                      "X-Request-Id: req-42\r\n"));
    INFO(r.body);
    REQUIRE(r.status == 200);
    cub::v1::Space space;
    REQUIRE(google::protobuf::util::JsonStringToMessage(r.body, &space).ok());
    REQUIRE(space.slug() == "home");
    REQUIRE(space.display_name() == "Home \"sweet\" home \xE2\x9C\x93");
    REQUIRE(space.labels().at("tier") == "gold");
    REQUIRE(space.annotations().at("x-forwarded-for") == "127.0.0.1");
    REQUIRE(space.annotations().at("x-request-id") == "req-42");
    REQUIRE(r.body.find("\"SpaceID\":\"\"") != std::string::npos);  // defaults printed
  }

  SECTION("401 without or with a wrong token, with WWW-Authenticate") {
    Response r = Roundtrip(port, Post("/v1/AuthService/WhoAmI", "{}"));
    RequireJsonError(r, 401, 16, "UNAUTHENTICATED", "missing or invalid bearer token");
    REQUIRE(r.header("www-authenticate") == "Bearer");
    r = Roundtrip(port, Post("/v1/AuthService/WhoAmI", "{}", "Authorization: Bearer bad\r\n"));
    RequireJsonError(r, 401, 16, "UNAUTHENTICATED", "invalid bearer token");
  }

  SECTION("gRPC errors keep their code and message") {
    Response r = Roundtrip(port, Post("/v1/SpaceService/GetSpace", R"({"Space":"nope"})"));
    RequireJsonError(r, 404, 5, "NOT_FOUND", "space \"nope\" not found");
    // (A method in the pool but not served answers UNIMPLEMENTED, 501: see the own-pool test.)
  }

  SECTION("404 for unknown services, methods and paths") {
    RequireJsonError(Roundtrip(port, Post("/v1/SpaceService/Nope", "{}")), 404, 5, "NOT_FOUND",
                     "unknown method \"Nope\" of service cub.v1.SpaceService");
    RequireJsonError(Roundtrip(port, Post("/v1/NopeService/GetSpace", "{}")), 404, 5, "NOT_FOUND",
                     "unknown service \"NopeService\"");
    RequireJsonError(Roundtrip(port, Post("/v1/SpaceService", "{}")), 404, 5, "NOT_FOUND",
                     "/v1/<Service>/<Method>");
    RequireJsonError(Roundtrip(port, Post("/v1/SpaceService/GetSpace/x", "{}")), 404, 5,
                     "NOT_FOUND", "");
    RequireJsonError(Roundtrip(port, "GET /index.html HTTP/1.1\r\nHost: x\r\n\r\n"), 404, 5,
                     "NOT_FOUND", "");
  }

  SECTION("400 for malformed JSON, unknown fields and wrong types, naming the problem") {
    RequireJsonError(Roundtrip(port, Post("/v1/SpaceService/GetSpace", "{")), 400, 3,
                     "INVALID_ARGUMENT", "cub.v1.GetSpaceRequest");
    RequireJsonError(Roundtrip(port, Post("/v1/SpaceService/GetSpace", R"({"Spcae":"home"})")), 400,
                     3, "INVALID_ARGUMENT", "Spcae");
    RequireJsonError(Roundtrip(port, Post("/v1/SpaceService/GetSpace", R"({"Space":5})")), 400, 3,
                     "INVALID_ARGUMENT", "cub.v1.GetSpaceRequest");
    RequireJsonError(Roundtrip(port, Post("/v1/SpaceService/GetSpace", "[]")), 400, 3,
                     "INVALID_ARGUMENT", "");
  }

  SECTION("405 for methods other than POST, with Allow") {
    Response r = Roundtrip(port, "GET /v1/SpaceService/GetSpace HTTP/1.1\r\nHost: x\r\n\r\n");
    RequireJsonError(r, 405, 12, "UNIMPLEMENTED", "use POST");
    REQUIRE(r.header("allow") == "POST");
    r = Roundtrip(port, Post("/healthz", ""));
    REQUIRE(r.status == 405);
    REQUIRE(r.header("allow") == "GET, HEAD");
  }

  SECTION("GET and HEAD /healthz") {
    Response r = Roundtrip(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
    REQUIRE(r.status == 200);
    REQUIRE(r.body == "ok");
    r = Roundtrip(port, "HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n", /*head=*/true);
    REQUIRE(r.status == 200);
    REQUIRE(r.header("content-length") == "2");
    REQUIRE(r.body.empty());
  }

  SECTION("keep-alive and pipelining on one connection") {
    Client c(port);
    REQUIRE(c.connected());
    for (int i = 0; i < 3; ++i) {
      REQUIRE(c.Send(Post("/v1/AuthService/WhoAmI", "{}", "Authorization: Bearer good\r\n")));
      Response r = c.Read();
      REQUIRE(r.status == 200);
      REQUIRE(r.header("connection") == "keep-alive");
    }
    // Two requests in one write: both answered, in order.
    REQUIRE(c.Send(Post("/v1/SpaceService/GetSpace", R"({"Space":"home"})") +
                   Post("/v1/SpaceService/GetSpace", R"({"Space":"nope"})")));
    REQUIRE(c.Read().status == 200);
    REQUIRE(c.Read().status == 404);
  }

  SECTION("Connection: close and HTTP/1.0 close after the response") {
    Client c(port);
    REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"));
    Response r = c.Read();
    REQUIRE(r.status == 200);
    REQUIRE(r.header("connection") == "close");
    REQUIRE(c.WaitClosed(2s));
    Client d(port);
    REQUIRE(d.Send("GET /healthz HTTP/1.0\r\n\r\n"));
    REQUIRE(d.Read().status == 200);
    REQUIRE(d.WaitClosed(2s));
  }

  SECTION("chunked request bodies") {
    std::string req =
        "POST /v1/SpaceService/GetSpace HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
        "5\r\n{\"Spa\r\n"
        "a;ext=1\r\nce\":\"home\"\r\n"
        "1\r\n}\r\n"
        "0\r\nX-Trailer: 1\r\n\r\n";
    Client c(port);
    REQUIRE(c.Send(req));
    Response r = c.Read();
    INFO(r.body);
    REQUIRE(r.status == 200);
    REQUIRE(r.body.find("\"Slug\":\"home\"") != std::string::npos);
    // The connection stays usable after a chunked request.
    REQUIRE(c.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"));
    REQUIRE(c.Read().status == 200);
  }

  SECTION("Expect: 100-continue gets an interim 100") {
    Client c(port);
    std::string body = R"({"Space":"home"})";
    REQUIRE(
        c.Send("POST /v1/SpaceService/GetSpace HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\n"
               "Content-Length: " +
               std::to_string(body.size()) + "\r\n\r\n"));
    std::this_thread::sleep_for(50ms);
    REQUIRE(c.Send(body));
    REQUIRE(c.Read().status == 200);
    REQUIRE(c.interim_responses() == 1);
  }

  SECTION("413 for a body above 16 MiB, announced or chunked") {
    Response r = Roundtrip(port,
                           "POST /v1/SpaceService/GetSpace HTTP/1.1\r\nHost: x\r\n"
                           "Content-Length: 16777217\r\n\r\n");
    RequireJsonError(r, 413, 8, "RESOURCE_EXHAUSTED", "larger than 16777216 bytes");
    REQUIRE(r.header("connection") == "close");
    r = Roundtrip(port,
                  "POST /v1/SpaceService/GetSpace HTTP/1.1\r\nHost: x\r\n"
                  "Transfer-Encoding: chunked\r\n\r\n1000001\r\n");
    RequireJsonError(r, 413, 8, "RESOURCE_EXHAUSTED", "larger than");
  }

  SECTION("malformed requests") {
    RequireJsonError(Roundtrip(port, "BLAH\r\n\r\n"), 400, 3, "INVALID_ARGUMENT", "request line");
    RequireJsonError(Roundtrip(port, "GET /healthz HTTP/2.0\r\n\r\n"), 505, 12, "UNIMPLEMENTED",
                     "HTTP/2.0");
    RequireJsonError(Roundtrip(port, "GET /healthz HTTP/1.1\r\nBad Name: x\r\n\r\n"), 400, 3,
                     "INVALID_ARGUMENT", "header");
    RequireJsonError(Roundtrip(port, "GET /healthz HTTP/1.1\r\nA: b\r\n folded\r\n\r\n"), 400, 3,
                     "INVALID_ARGUMENT", "folding");
    RequireJsonError(
        Roundtrip(port, "POST /x HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"), 400,
        3, "INVALID_ARGUMENT", "Content-Length");
    RequireJsonError(Roundtrip(port,
                               "POST /x HTTP/1.1\r\nContent-Length: 1\r\n"
                               "Transfer-Encoding: chunked\r\n\r\n"),
                     400, 3, "INVALID_ARGUMENT", "both");
    RequireJsonError(Roundtrip(port, "POST /x HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"), 501,
                     12, "UNIMPLEMENTED", "gzip");
    RequireJsonError(
        Roundtrip(port, "GET /healthz HTTP/1.1\r\nX-Big: " + std::string(70000, 'a') + "\r\n\r\n"),
        431, 8, "RESOURCE_EXHAUSTED", "header");
  }

  SECTION("a large JSON body (above the 1 MiB where curl starts using Expect)") {
    std::string body = "{\"Space\":" + std::string(3 << 20, ' ') + "\"home\"}";
    Response r = Roundtrip(port, Post("/v1/SpaceService/GetSpace", body));
    REQUIRE(r.status == 200);
  }

  SECTION("with curl") {
    if (!HaveCurl()) {
      WARN("curl not installed; skipped");
      return;
    }
    const std::string base = "http://127.0.0.1:" + std::to_string(port);
    std::string out = Run("curl -sS -w '\\n%{http_code}' -H 'Authorization: Bearer good' -d '{}' " +
                          base + "/v1/AuthService/WhoAmI");
    INFO(out);
    REQUIRE(out.find("\"Username\":\"alice\"") != std::string::npos);
    REQUIRE(out.substr(out.size() - 3) == "200");
    out = Run("curl -sS -w '\\n%{http_code}' -d '{}' " + base + "/v1/AuthService/WhoAmI");
    REQUIRE(out.substr(out.size() - 3) == "401");
    out = Run("curl -sS -w '\\n%{http_code}' " + base + "/v1/AuthService/WhoAmI");
    REQUIRE(out.substr(out.size() - 3) == "405");
    // Two URLs in one curl invocation reuse the connection (keep-alive).
    out =
        Run("curl -sS -v -o /dev/null -o /dev/null " + base + "/healthz " + base + "/healthz 2>&1");
    REQUIRE(out.find("Re-using existing connection") != std::string::npos);
    // A body above 1 MiB: curl sends Expect: 100-continue and waits for the interim response.
    TempDir dir;
    std::string body_file = (dir.path / "body.json").string();
    std::ofstream(body_file) << "{\"Space\":" << std::string(2 << 20, ' ') << "\"home\"}";
    out = Run("curl -sS -w '\\n%{http_code}' -H 'Expect: 100-continue' --data-binary @" +
              body_file + " " + base + "/v1/SpaceService/GetSpace");
    REQUIRE(out.substr(out.size() - 3) == "200");
  }
}

TEST_CASE("REST mirror passes a deadline on each call", "[rest]") {
  cub::server::RestGatewayOptions gw;
  gw.deadline = 100ms;
  Stack stack({}, gw);
  Response r =
      Roundtrip(stack.http->bound_port(), Post("/v1/SpaceService/GetSpace", R"({"Space":"slow"})"));
  RequireJsonError(r, 504, 4, "DEADLINE_EXCEEDED", "");
}

TEST_CASE("RestGateway::Handle with a pool of its own", "[rest]") {
  // A pool that is not the generated one: messages are DynamicMessages, and it has a streaming
  // method.
  google::protobuf::FileDescriptorProto file;
  file.set_name("test/echo.proto");
  file.set_package("test.v1");
  file.set_syntax("proto3");
  auto* msg = file.add_message_type();
  msg->set_name("EchoRequest");
  auto* field = msg->add_field();
  field->set_name("text");
  field->set_json_name("Text");
  field->set_number(1);
  field->set_type(google::protobuf::FieldDescriptorProto::TYPE_STRING);
  field->set_label(google::protobuf::FieldDescriptorProto::LABEL_OPTIONAL);
  auto* service = file.add_service();
  service->set_name("EchoService");
  auto* echo = service->add_method();
  echo->set_name("Echo");
  echo->set_input_type(".test.v1.EchoRequest");
  echo->set_output_type(".test.v1.EchoRequest");
  auto* watch = service->add_method();
  watch->CopyFrom(*echo);
  watch->set_name("Watch");
  watch->set_server_streaming(true);
  auto* upload = service->add_method();
  upload->CopyFrom(*echo);
  upload->set_name("Upload");
  upload->set_client_streaming(true);
  google::protobuf::DescriptorPool pool;
  REQUIRE(pool.BuildFile(file) != nullptr);

  AuthImpl auth;  // a sync server needs at least one service
  grpc::ServerBuilder builder;
  builder.RegisterService(&auth);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  REQUIRE(server != nullptr);
  cub::server::RestGatewayOptions options;
  options.default_package = "test.v1";
  RestGateway gateway(server->InProcessChannel(grpc::ChannelArguments()), &pool, options);

  HttpRequest req;
  req.method = "POST";
  req.path = "/v1/EchoService/Upload";
  HttpResponse r = gateway.Handle(req);
  REQUIRE(r.status == 501);
  REQUIRE(r.body.find("client-streaming") != std::string::npos);

  // A server-streaming method is called (rest_stream_test.cc); this server does not
  // implement it, which comes back as an error before the first message: a JSON error.
  req.path = "/v1/EchoService/Watch";
  r = gateway.Handle(req);
  REQUIRE(r.status == 501);
  REQUIRE(!r.stream);
  REQUIRE(r.body.find("\"status\":\"UNIMPLEMENTED\"") != std::string::npos);

  req.path = "/v1/EchoService/Echo";
  req.body = R"({"Txet":"hi"})";
  r = gateway.Handle(req);
  REQUIRE(r.status == 400);
  REQUIRE(r.body.find("Txet") != std::string::npos);

  // Valid JSON reaches the server, which does not implement the service.
  req.body = R"({"Text":"hi"})";
  r = gateway.Handle(req);
  REQUIRE(r.status == 501);
  REQUIRE(r.body.find("\"status\":\"UNIMPLEMENTED\"") != std::string::npos);

  req.path = "/v1/SpaceService/GetSpace";  // not in this pool
  REQUIRE(gateway.Handle(req).status == 404);
  server->Shutdown();
}

TEST_CASE("HTTP status for every gRPC code", "[rest]") {
  using cub::server::HttpStatusForGrpcCode;
  const std::map<int, int> want = {{0, 200},  {1, 500},  {2, 500},  {3, 400},  {4, 504},  {5, 404},
                                   {6, 409},  {7, 403},  {8, 429},  {9, 400},  {10, 409}, {11, 400},
                                   {12, 501}, {13, 500}, {14, 503}, {15, 500}, {16, 401}};
  for (const auto& [code, status] : want) {
    INFO(code);
    REQUIRE(HttpStatusForGrpcCode(code) == status);
  }
  REQUIRE(
      cub::server::JsonErrorBody(5, "a \"b\"\n\x01\xff") ==
      "{\"code\":5,\"status\":\"NOT_FOUND\",\"message\":\"a \\\"b\\\"\\n\\u0001\xEF\xBF\xBD\"}");
}

// ---------------------------------------------------------------------------------------------
// HttpServer limits, with a handler of the test's own.

namespace {

HttpResponse TestHandler(const HttpRequest& req) {
  if (req.path == "/sleep")
    std::this_thread::sleep_for(
        std::chrono::milliseconds(std::stoi(req.query.empty() ? "0" : req.query)));
  if (req.path == "/throw") throw std::runtime_error("boom");
  HttpResponse r;
  r.body = req.method + " " + req.path + " " + req.body;
  return r;
}

std::unique_ptr<HttpServer> StartTestServer(HttpServerOptions o, const TlsFiles& tls = {}) {
  auto s = HttpServer::Start("127.0.0.1:0", tls, o, TestHandler);
  REQUIRE(s.ok());
  return std::move(*s);
}

std::string Get(const std::string& target) {
  return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
}

}  // namespace

TEST_CASE("HttpServer bounds what a client can hold", "[rest][http]") {
  HttpServerOptions o;
  o.threads = 1;
  o.header_timeout = 300ms;
  o.keepalive_timeout = 300ms;
  o.max_body_bytes = 1000;
  auto server = StartTestServer(o);
  const int port = server->bound_port();

  SECTION("a connection that sends nothing is closed after the header timeout") {
    Client c(port);
    auto start = Clock::now();
    REQUIRE(c.WaitClosed(3s));
    REQUIRE(Clock::now() - start >= 250ms);
  }
  SECTION("an idle connection holds no worker (1 thread)") {
    Client idle(port);
    auto start = Clock::now();
    Response r = Roundtrip(port, Get("/fast"));
    REQUIRE(r.status == 200);
    REQUIRE(Clock::now() - start < 200ms);
  }
  SECTION("incomplete headers get 408") {
    Client c(port);
    REQUIRE(c.Send("GET / HTTP/1.1\r\nHost: x\r\n"));
    Response r = c.Read();
    REQUIRE(r.status == 408);
    REQUIRE(c.WaitClosed(2s));
  }
  SECTION("an idle keep-alive connection is closed after the keep-alive timeout") {
    Client c(port);
    REQUIRE(c.Send(Get("/a")));
    REQUIRE(c.Read().status == 200);
    auto start = Clock::now();
    REQUIRE(c.WaitClosed(3s));
    REQUIRE(Clock::now() - start >= 250ms);
  }
  SECTION("the body cap is the configured one") {
    Response r = Roundtrip(port, "POST / HTTP/1.1\r\nContent-Length: 1001\r\n\r\n");
    REQUIRE(r.status == 413);
    r = Roundtrip(port, "POST / HTTP/1.1\r\nContent-Length: 1000\r\n\r\n" + std::string(1000, 'x'));
    REQUIRE(r.status == 200);
  }
  SECTION("a throwing handler is a 500") {
    Response r = Roundtrip(port, Get("/throw"));
    REQUIRE(r.status == 500);
    REQUIRE(r.body.find("INTERNAL") != std::string::npos);
  }
}

TEST_CASE("HttpServer: a stalled body is cut by io_timeout", "[rest][http]") {
  HttpServerOptions o;
  o.threads = 1;
  o.io_timeout = 300ms;
  auto server = StartTestServer(o);
  Client c(server->bound_port());
  REQUIRE(c.Send("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc"));
  auto start = Clock::now();
  REQUIRE(c.Read().status == 408);
  REQUIRE(Clock::now() - start < 2s);
}

TEST_CASE("HttpServer answers 503 when workers and queue are full", "[rest][http]") {
  HttpServerOptions o;
  o.threads = 1;
  o.max_queued = 1;
  auto server = StartTestServer(o);
  const int port = server->bound_port();
  Client a(port), b(port), c(port);
  REQUIRE(a.Send(Get("/sleep?600")));
  std::this_thread::sleep_for(150ms);  // a is in the handler
  REQUIRE(b.Send(Get("/sleep?10")));
  std::this_thread::sleep_for(150ms);  // b is queued
  auto start = Clock::now();
  REQUIRE(c.Send(Get("/sleep?10")));
  Response rc = c.Read();
  REQUIRE(rc.status == 503);
  REQUIRE(rc.header("retry-after") == "1");
  REQUIRE(Clock::now() - start < 300ms);
  REQUIRE(a.Read().status == 200);
  REQUIRE(b.Read().status == 200);
}

TEST_CASE("HttpServer::Shutdown lets in-flight requests finish", "[rest][http]") {
  HttpServerOptions o;
  o.threads = 2;
  auto server = StartTestServer(o);
  const int port = server->bound_port();
  Client idle(port);
  Client busy(port);
  REQUIRE(busy.Send(Get("/sleep?400")));
  std::this_thread::sleep_for(100ms);
  auto start = Clock::now();
  server->Shutdown();
  REQUIRE(Clock::now() - start >= 200ms);  // waited for the handler
  Response r = busy.Read();
  REQUIRE(r.status == 200);
  REQUIRE(r.header("connection") == "close");
  REQUIRE(idle.WaitClosed(1s));
  Client late(port);
  REQUIRE_FALSE(late.connected());
  server->Shutdown();  // idempotent
}

TEST_CASE("HttpServer::Shutdown is bounded by the grace period", "[rest][http]") {
  HttpServerOptions o;
  o.threads = 1;
  o.shutdown_grace = 200ms;
  auto server = StartTestServer(o);
  Client slow(server->bound_port());
  REQUIRE(slow.Send("GET / HTTP/1.1\r\n"));  // a request under way, for 10 s more
  std::this_thread::sleep_for(100ms);
  auto start = Clock::now();
  server->Shutdown();
  REQUIRE(Clock::now() - start < 2s);
}

TEST_CASE("HttpServer refuses requests that could be read two ways", "[rest][http]") {
  HttpServerOptions o;
  o.threads = 1;
  auto server = StartTestServer(o);
  const int port = server->bound_port();
  RequireJsonError(Roundtrip(port, "GET /x HTTP/1.1\nHost: x\n\n"), 400, 3, "INVALID_ARGUMENT",
                   "bare LF");
  RequireJsonError(
      Roundtrip(port, "POST /x HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 400, 3,
      "INVALID_ARGUMENT", "HTTP/1.0");
  RequireJsonError(Roundtrip(port, "POST /x HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"),
                   501, 12, "UNIMPLEMENTED", "gzip");
  RequireJsonError(Roundtrip(port,
                             "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n"
                             "Content-Length: 5\r\n\r\n"),
                   400, 3, "INVALID_ARGUMENT", "both");
  RequireJsonError(Roundtrip(port,
                             "POST /x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                             "zz\r\nabc\r\n0\r\n\r\n"),
                   400, 3, "INVALID_ARGUMENT", "chunk");
  RequireJsonError(Roundtrip(port, "GET /x HTTP/1.1\r\nExpect: magic\r\n\r\n"), 417, 9,
                   "FAILED_PRECONDITION", "magic");
  std::string many;
  for (int i = 0; i < 101; ++i) many += "X-" + std::to_string(i) + ": y\r\n";
  RequireJsonError(Roundtrip(port, "GET /x HTTP/1.1\r\n" + many + "\r\n"), 431, 8,
                   "RESOURCE_EXHAUSTED", "header fields");
  // Equal Content-Length fields are one length.
  Response r =
      Roundtrip(port, "POST /x HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc");
  REQUIRE(r.status == 200);
  REQUIRE(r.body == "POST /x abc");
  // A body that ends where its Content-Length says: what follows is the next request.
  Client c(port);
  REQUIRE(c.Send("POST /x HTTP/1.1\r\nContent-Length: 0\r\n\r\nGET /y HTTP/1.1\r\n\r\n"));
  REQUIRE(c.Read().body == "POST /x ");
  REQUIRE(c.Read().body == "GET /y ");
  // HTTP/1.0 keeps the connection only when asked to.
  REQUIRE(c.Send("GET /ten HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"));
  r = c.Read();
  REQUIRE(r.status == 200);
  REQUIRE(r.header("connection") == "keep-alive");
  REQUIRE(c.Send("HEAD /h HTTP/1.1\r\n\r\n"));
  r = c.Read(/*head=*/true);
  REQUIRE(r.status == 200);
  REQUIRE(r.header("content-length") == "8");  // "HEAD /h "'s length, without the body
  REQUIRE(c.Send(Get("/after-head")));
  REQUIRE(c.Read().body == "GET /after-head ");
}

TEST_CASE("HttpServer listen addresses", "[rest][http]") {
  HttpServerOptions o;
  o.threads = 1;
  for (const char* bad :
       {"", "8080", "127.0.0.1", "::1:80", "[::1]80", "127.0.0.1:http", "127.0.0.1:70000"}) {
    INFO(bad);
    auto s = HttpServer::Start(bad, {}, o, TestHandler);
    REQUIRE(s.status().code() == absl::StatusCode::kInvalidArgument);
  }
  auto v6 = HttpServer::Start("[::1]:0", {}, o, TestHandler);
  if (!v6.ok()) {
    WARN("IPv6 loopback unavailable: " << v6.status().ToString());
    return;
  }
  Client c((*v6)->bound_port(), /*ipv6=*/true);
  REQUIRE(c.connected());
  REQUIRE(c.Send(Get("/six")));
  Response r = c.Read();
  REQUIRE(r.status == 200);
  REQUIRE(r.body == "GET /six ");
}

TEST_CASE("REST mirror over TLS", "[rest][tls]") {
  TempDir dir;
  const std::string cert = (dir.path / "cert.pem").string();
  const std::string key = (dir.path / "key.pem").string();
  MakeSelfSignedCert(cert, key);

  SECTION("bad TLS files are refused at start") {
    HttpServerOptions o;
    auto s = HttpServer::Start("127.0.0.1:0", {cert, ""}, o, TestHandler);
    REQUIRE(s.status().code() == absl::StatusCode::kInvalidArgument);
    s = HttpServer::Start("127.0.0.1:0", {cert, cert}, o, TestHandler);
    REQUIRE(s.status().code() == absl::StatusCode::kInvalidArgument);
    s = HttpServer::Start("127.0.0.1:0", {(dir.path / "missing.pem").string(), key}, o,
                          TestHandler);
    REQUIRE(s.status().code() == absl::StatusCode::kInvalidArgument);
  }

  SECTION("round trips, keep-alive over one TLS connection") {
    Stack stack({cert, key});
    const int port = stack.http->bound_port();
    SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
    REQUIRE(SSL_CTX_load_verify_locations(ctx, cert.c_str(), nullptr) == 1);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
    {
      Client c(port, false, ctx);
      REQUIRE(c.connected());
      for (int i = 0; i < 3; ++i) {
        REQUIRE(c.Send(Post("/v1/AuthService/WhoAmI", "{}", "Authorization: Bearer good\r\n")));
        Response r = c.Read();
        REQUIRE(r.status == 200);
        REQUIRE(r.body.find("\"Username\":\"alice\"") != std::string::npos);
      }
      // Pipelined over TLS: the second request sits in OpenSSL's buffer, not the socket's.
      REQUIRE(c.Send(Get("/healthz") + Post("/v1/AuthService/WhoAmI", "{}")));
      REQUIRE(c.Read().status == 200);
      REQUIRE(c.Read().status == 401);
    }
    SSL_CTX_free(ctx);

    // Plaintext against the TLS port gets nothing useful, and does not hurt the server.
    {
      Client plain(port);
      REQUIRE(plain.Send(Get("/healthz")));
      REQUIRE(plain.Read().status == 0);
    }

    if (!HaveCurl()) {
      WARN("curl not installed; TLS curl round trip skipped");
      return;
    }
    std::string out =
        Run("curl -sS -k -w '\\n%{http_code}' -H 'Authorization: Bearer good' "
            "-d '{}' https://127.0.0.1:" +
            std::to_string(port) + "/v1/AuthService/WhoAmI");
    INFO(out);
    REQUIRE(out.find("\"User\":{") != std::string::npos);
    REQUIRE(out.substr(out.size() - 3) == "200");
    out = Run("curl -sS --cacert " + cert + " -w '\\n%{http_code}' -d '{}' https://localhost:" +
              std::to_string(port) + "/v1/AuthService/WhoAmI");
    REQUIRE(out.substr(out.size() - 3) == "401");
  }
}

// ---------------------------------------------------------------------------------------------
// Slow clients, connection limits and streaming responses.

TEST_CASE("REST mirror: slow clients hold no worker (slowloris)", "[rest][http][slowloris]") {
  HttpServerOptions o = DefaultStackOptions();
  o.header_timeout = 60s;  // the slow clients must stay connected for the whole test
  o.io_timeout = 60s;
  Stack stack({}, {}, o);
  const int port = stack.http->bound_port();
  const std::string normal = Post("/v1/AuthService/WhoAmI", "{}", "Authorization: Bearer good\r\n");
  REQUIRE(Roundtrip(port, normal).status == 200);  // warm up the in-process channel

  // 64 connections (16 times the workers), each sending its request one byte a second.
  const std::string slow_request = Post("/v1/SpaceService/GetSpace", R"({"Space":"home"})");
  constexpr int kSlow = 64;
  std::vector<std::unique_ptr<Client>> slow;
  for (int i = 0; i < kSlow; ++i) {
    slow.push_back(std::make_unique<Client>(port));
    REQUIRE(slow.back()->connected());
  }
  std::atomic<bool> stop{false};
  std::atomic<size_t> sent{0};
  std::atomic<bool> send_failed{false};
  std::thread trickle([&] {
    for (size_t pos = 0; !stop && pos < slow_request.size() - 1; ++pos) {
      for (auto& c : slow) {
        if (!c->Send(slow_request.substr(pos, 1))) send_failed = true;
      }
      sent = pos + 1;
      for (int i = 0; i < 10 && !stop; ++i) std::this_thread::sleep_for(100ms);
    }
  });
  while (sent < 3) std::this_thread::sleep_for(50ms);

  // The slow connections are all in the middle of their request line; normal calls go through.
  // Were a worker held by a slow client, a normal call would wait for that request to trickle
  // in (a byte a second: tens of seconds), so 2 s tells the two apart even on a loaded machine.
  // CHECK, not REQUIRE: the trickle thread must be joined whatever happens.
  for (int i = 0; i < 3; ++i) {
    auto start = Clock::now();
    Response r = Roundtrip(port, normal);
    auto took = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
    INFO("call " << i << " took " << took.count() << " ms");
    CHECK(r.status == 200);
    CHECK(took < 2000ms);
  }
  stop = true;
  trickle.join();
  REQUIRE_FALSE(send_failed);

  // They were held, not dropped: each finishes its request and is answered.
  for (auto& c : slow) {
    REQUIRE(c->Send(slow_request.substr(sent)));
    Response r = c->Read();
    REQUIRE(r.status == 200);
    REQUIRE(r.body.find("\"Slug\":\"home\"") != std::string::npos);
  }
}

TEST_CASE("HttpServer limits connections per client address and in total", "[rest][http]") {
  SECTION("per client: the extra connection gets 503 and is closed") {
    HttpServerOptions o;
    o.threads = 1;
    o.max_connections_per_client = 2;
    auto server = StartTestServer(o);
    const int port = server->bound_port();
    auto a = std::make_unique<Client>(port);
    Client b(port);
    // Served, so the server has accepted both before the third connects.
    REQUIRE(a->Send(Get("/a")));
    REQUIRE(a->Read().status == 200);
    REQUIRE(b.Send(Get("/b")));
    REQUIRE(b.Read().status == 200);
    {
      Client c(port);
      REQUIRE(c.connected());  // the kernel accepts; the server answers and closes
      Response r = c.Read();
      RequireJsonError(r, 503, 14, "UNAVAILABLE", "retry later");
      REQUIRE(r.header("connection") == "close");
      REQUIRE(c.WaitClosed(2s));
    }
    // Once one of the two closes, a new connection is served again.
    a.reset();
    int status = 0;
    for (int i = 0; i < 40 && status != 200; ++i) {
      std::this_thread::sleep_for(50ms);
      Client d(port);
      if (d.Send(Get("/d"))) status = d.Read().status;
    }
    REQUIRE(status == 200);
  }
  SECTION("in total: connections beyond the limit are closed") {
    HttpServerOptions o;
    o.threads = 1;
    o.max_connections = 2;
    auto server = StartTestServer(o);
    const int port = server->bound_port();
    Client a(port), b(port);
    REQUIRE(a.Send(Get("/a")));
    REQUIRE(a.Read().status == 200);
    REQUIRE(b.Send(Get("/b")));
    REQUIRE(b.Read().status == 200);
    Client c(port);
    REQUIRE(c.WaitClosed(2s));
    REQUIRE(a.Send(Get("/a")));  // the ones accepted are unaffected
    REQUIRE(a.Read().status == 200);
  }
}

namespace {

// The streams opened by clients of /events, for the test to write to.
struct EventHub {
  std::mutex mu;
  std::vector<std::shared_ptr<cub::server::HttpStream>> streams;
  std::shared_ptr<cub::server::HttpStream> WaitFor(size_t n) {
    for (int i = 0; i < 200; ++i) {
      {
        std::lock_guard<std::mutex> l(mu);
        if (streams.size() >= n) return streams[n - 1];
      }
      std::this_thread::sleep_for(10ms);
    }
    return nullptr;
  }
};

// Reassembles a chunked body from what a client received after the response head.
std::string Dechunk(std::string in) {
  std::string out;
  for (;;) {
    size_t eol = in.find("\r\n");
    if (eol == std::string::npos) return out;
    size_t n = std::stoul(in.substr(0, eol), nullptr, 16);
    if (n == 0 || in.size() < eol + 2 + n + 2) return out;
    out += in.substr(eol + 2, n);
    in.erase(0, eol + 2 + n + 2);
  }
}

}  // namespace

TEST_CASE("HttpServer streams server-sent events", "[rest][http][sse]") {
  EventHub hub;
  HttpServerOptions o;
  o.threads = 1;  // an open stream must not hold it
  auto started = HttpServer::Start("127.0.0.1:0", {}, o, [&hub](const HttpRequest& req) {
    if (req.path != "/events") return TestHandler(req);
    HttpResponse r;
    r.content_type = "text/event-stream";
    r.headers.emplace_back("Cache-Control", "no-cache");
    r.stream = [&hub](std::shared_ptr<cub::server::HttpStream> s) {
      std::lock_guard<std::mutex> l(hub.mu);
      hub.streams.push_back(std::move(s));
    };
    return r;
  });
  REQUIRE(started.ok());
  std::unique_ptr<HttpServer> server = std::move(*started);
  const int port = server->bound_port();

  Client c(port);
  REQUIRE(c.Send(Get("/events")));
  Response head = c.Read();
  REQUIRE(head.status == 200);
  REQUIRE(head.header("content-type") == "text/event-stream");
  REQUIRE(head.header("transfer-encoding") == "chunked");
  REQUIRE(head.header("cache-control") == "no-cache");
  auto stream = hub.WaitFor(1);
  REQUIRE(stream != nullptr);

  // The single worker is free while the stream is open.
  REQUIRE(Roundtrip(port, Get("/fast")).status == 200);

  // Events pushed later, from another thread, arrive in order.
  std::atomic<bool> written{false};
  std::thread producer([stream, &written] {
    std::this_thread::sleep_for(200ms);
    written = stream->Write("data: one\n\n") && stream->Write("event: tick\ndata: two\n\n");
  });
  REQUIRE(c.ReadUntil("data: two\n\n\r\n"));
  producer.join();
  REQUIRE(written);
  REQUIRE(Dechunk(c.received()) == "data: one\n\nevent: tick\ndata: two\n\n");

  SECTION("a client that disconnects ends its stream") {
    auto d = std::make_unique<Client>(port);
    REQUIRE(d->Send(Get("/events")));
    REQUIRE(d->Read().status == 200);
    auto second = hub.WaitFor(2);
    REQUIRE(second != nullptr);
    REQUIRE_FALSE(second->closed());
    d.reset();
    for (int i = 0; i < 200 && !second->closed(); ++i) std::this_thread::sleep_for(10ms);
    REQUIRE(second->closed());
    REQUIRE_FALSE(second->Write("data: late\n\n"));
  }

  SECTION("the producer closing ends the stream and the connection") {
    stream->Close();
    REQUIRE(c.ReadUntil("0\r\n\r\n"));
    REQUIRE(c.WaitClosed(2s));
  }

  SECTION("shutdown ends the stream") {
    server->Shutdown();
    REQUIRE(c.ReadUntil("0\r\n\r\n"));  // the stream's last chunk
    REQUIRE(c.WaitClosed(2s));
    REQUIRE(stream->closed());
    REQUIRE_FALSE(stream->Write("data: after\n\n"));
  }
}

TEST_CASE("HttpServer over TLS: limits apply to the handshake", "[rest][http][tls]") {
  TempDir dir;
  const std::string cert = (dir.path / "cert.pem").string();
  const std::string key = (dir.path / "key.pem").string();
  MakeSelfSignedCert(cert, key);
  HttpServerOptions o;
  o.threads = 1;
  o.header_timeout = 300ms;
  auto server = StartTestServer(o, {cert, key});
  const int port = server->bound_port();

  // A client that connects and never starts the handshake is closed after the header timeout,
  // and holds no worker meanwhile.
  Client stalled(port);
  SSL_CTX* ctx = SSL_CTX_new(TLS_client_method());
  REQUIRE(SSL_CTX_load_verify_locations(ctx, cert.c_str(), nullptr) == 1);
  SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, nullptr);
  {
    Client c(port, false, ctx);
    REQUIRE(c.connected());
    REQUIRE(c.Send(Get("/tls")));
    Response r = c.Read();
    REQUIRE(r.status == 200);
    REQUIRE(r.body == "GET /tls ");
    // Incomplete headers over TLS get 408 too.
    REQUIRE(c.Send("GET / HTTP/1.1\r\nHost: x\r\n"));
    REQUIRE(c.Read().status == 408);
  }
  SSL_CTX_free(ctx);
  REQUIRE(stalled.WaitClosed(3s));
}
