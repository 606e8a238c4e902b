// Server-streaming methods on the REST mirror: a real grpc::Server with a ChangeOrderService
// whose WatchChangeOrder streams canned messages (no database), the RestGateway on its
// in-process channel and the HttpServer in front, driven over a socket. Checks the
// server-sent events framing, errors before and after the first message, and that a client
// who disconnects cancels the call.
#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "cub/v1/changeorder.grpc.pb.h"
#include "server/http_server.h"
#include "server/rest_gateway.h"

namespace {

using namespace std::chrono_literals;

class FakeWatch final : public cub::v1::ChangeOrderService::Service {
 public:
  std::atomic<bool> cancelled{false};

  grpc::Status WatchChangeOrder(grpc::ServerContext* ctx,
                                const cub::v1::WatchChangeOrderRequest* req,
                                grpc::ServerWriter<cub::v1::ChangeOrderProgress>* w) override {
    const std::string& name = req->change_order();
    cub::v1::ChangeOrderProgress p;
    if (name == "missing") return grpc::Status(grpc::StatusCode::NOT_FOUND, "no such thing");
    if (name == "empty") return grpc::Status::OK;
    for (int i = 1; i <= (name == "three" ? 3 : 1); ++i) {
      p.set_state("s" + std::to_string(i));
      p.add_stages()->set_taken(i);
      w->Write(p);
    }
    if (name == "later") return grpc::Status(grpc::StatusCode::ABORTED, "went \"wrong\"");
    if (name == "forever") {
      while (!ctx->IsCancelled()) std::this_thread::sleep_for(10ms);
      cancelled = true;
      return grpc::Status(grpc::StatusCode::CANCELLED, "gone");
    }
    return grpc::Status::OK;
  }
};

struct Stack {
  FakeWatch watch;
  std::unique_ptr<grpc::Server> grpc_server;
  std::unique_ptr<cub::server::RestGateway> gateway;
  std::unique_ptr<cub::server::HttpServer> http;

  explicit Stack(std::chrono::milliseconds heartbeat = std::chrono::milliseconds(15'000)) {
    grpc::ServerBuilder builder;
    builder.RegisterService(&watch);
    grpc_server = builder.BuildAndStart();
    REQUIRE(grpc_server != nullptr);
    cub::server::RestGatewayOptions options;
    options.stream_heartbeat = heartbeat;
    gateway = std::make_unique<cub::server::RestGateway>(
        grpc_server->InProcessChannel(grpc::ChannelArguments()),
        google::protobuf::DescriptorPool::generated_pool(), options);
    cub::server::HttpServerOptions o;
    o.threads = 1;  // an open stream must not hold the only worker
    auto started = cub::server::HttpServer::Start("127.0.0.1:0", {}, o, gateway->AsHandler());
    REQUIRE(started.ok());
    http = std::move(*started);
  }
  ~Stack() {
    http->Shutdown();
    grpc_server->Shutdown();
  }
};

// An HTTP/1.0 request (so the streamed body is close-delimited, not chunked; the server
// answers as HTTP/1.1).
class Conn {
 public:
  explicit Conn(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    REQUIRE(fd_ >= 0);
    timeval tv{10, 0};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  }
  ~Conn() { Close(); }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

  void Watch(const std::string& name) {
    const std::string body = "{\"Space\":\"b\",\"ChangeOrder\":\"" + name + "\"}";
    const std::string req =
        "POST /v1/ChangeOrderService/WatchChangeOrder HTTP/1.0\r\n"
        "Content-Type: application/json\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n" + body;
    REQUIRE(::send(fd_, req.data(), req.size(), MSG_NOSIGNAL) == static_cast<long>(req.size()));
  }
  // Reads until `needle` arrives (true) or the connection closes (false).
  bool ReadUntil(const std::string& needle) {
    while (got_.find(needle) == std::string::npos) {
      char buf[4096];
      long n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) return false;
      got_.append(buf, n);
    }
    return true;
  }
  std::string ReadAll() {
    ReadUntil(std::string(1, '\0'));  // never sent: reads to the end
    return got_;
  }

 private:
  int fd_ = -1;
  std::string got_;
};

std::string BodyOf(const std::string& response) {
  size_t end = response.find("\r\n\r\n");
  REQUIRE(end != std::string::npos);
  return response.substr(end + 4);
}

TEST_CASE("A server-streaming method is served as server-sent events", "[rest][sse]") {
  Stack stack;
  const int port = stack.http->bound_port();

  SECTION("one data event per message, then the end") {
    Conn c(port);
    c.Watch("three");
    const std::string r = c.ReadAll();
    INFO(r);
    REQUIRE(r.rfind("HTTP/1.1 200", 0) == 0);
    REQUIRE(r.find("Content-Type: text/event-stream") != std::string::npos);
    const std::string body = BodyOf(r);
    REQUIRE(body.rfind("data: {\"Stages\":[{\"Stage\":\"\",\"Total\":0,\"Taken\":1,", 0) == 0);
    REQUIRE(body.find("\"State\":\"s1\"}\n\ndata: ") != std::string::npos);
    REQUIRE(body.find("\"State\":\"s3\"}\n\n") ==
            body.size() - std::string("\"State\":\"s3\"}\n\n").size());
    REQUIRE(body.find("event: error") == std::string::npos);
  }

  SECTION("an error before the first message is a JSON error response") {
    Conn c(port);
    c.Watch("missing");
    const std::string r = c.ReadAll();
    INFO(r);
    REQUIRE(r.rfind("HTTP/1.1 404", 0) == 0);
    REQUIRE(r.find("Content-Type: application/json") != std::string::npos);
    REQUIRE(BodyOf(r) == R"({"code":5,"status":"NOT_FOUND","message":"no such thing"})");
  }

  SECTION("a stream that ends without a message is an empty event stream") {
    Conn c(port);
    c.Watch("empty");
    const std::string r = c.ReadAll();
    INFO(r);
    REQUIRE(r.rfind("HTTP/1.1 200", 0) == 0);
    REQUIRE(BodyOf(r).empty());
  }

  SECTION("an error after the first message is an error event") {
    Conn c(port);
    c.Watch("later");
    const std::string body = BodyOf(c.ReadAll());
    INFO(body);
    REQUIRE(body.rfind("data: {", 0) == 0);
    const std::string tail =
        "event: error\ndata: {\"code\":10,\"status\":\"ABORTED\",\"message\":\"went "
        "\\\"wrong\\\"\"}\n\n";
    REQUIRE(body.size() > tail.size());
    REQUIRE(body.substr(body.size() - tail.size()) == tail);
  }

  SECTION("a client that disconnects cancels the call") {
    Conn c(port);
    c.Watch("forever");
    REQUIRE(c.ReadUntil("\"State\":\"s1\""));
    // The single HTTP worker is free while the stream is open.
    Conn other(port);
    other.Watch("three");
    REQUIRE(other.ReadAll().find("\"State\":\"s3\"") != std::string::npos);
    c.Close();
    auto deadline = std::chrono::steady_clock::now() + 10s;
    while (!stack.watch.cancelled && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(20ms);
    }
    REQUIRE(stack.watch.cancelled);
  }
}

TEST_CASE("A silent stream gets keep-alive comments", "[rest][sse]") {
  Stack stack(std::chrono::milliseconds(600));
  Conn c(stack.http->bound_port());
  c.Watch("forever");
  REQUIRE(c.ReadUntil("\"State\":\"s1\"}\n\n"));
  REQUIRE(c.ReadUntil("\"State\":\"s1\"}\n\n: keep-alive\n\n"));
}

TEST_CASE("Destroying the gateway ends the streams it relays", "[rest][sse]") {
  auto stack = std::make_unique<Stack>();
  Conn c(stack->http->bound_port());
  c.Watch("forever");
  REQUIRE(c.ReadUntil("\"State\":\"s1\""));
  stack.reset();  // joins the relay thread: returns only once the call was cancelled
  SUCCEED();
}

}  // namespace
