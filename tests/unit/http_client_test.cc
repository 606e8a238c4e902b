#include "lib/net/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include "../harness/static_http.h"

namespace cub::net {
namespace {

TEST_CASE("UrlEncode keeps only unreserved characters", "[http]") {
  CHECK(UrlEncode("") == "");
  CHECK(UrlEncode("aZ09-._~") == "aZ09-._~");
  CHECK(UrlEncode("a b&c=d/e?") == "a%20b%26c%3Dd%2Fe%3F");
  CHECK(UrlEncode("\xc3\xa9") == "%C3%A9");
  CHECK(UrlEncode(std::string("\0", 1)) == "%00");
}

TEST_CASE("FormEncode joins fields in their order", "[http]") {
  CHECK(FormEncode({}) == "");
  CHECK(FormEncode({{"grant_type", "urn:ietf:params:oauth:grant-type:device_code"},
                    {"client_id", "cub cli"}}) ==
        "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Adevice_code&client_id=cub%20cli");
  CHECK(FormEncode({{"b", ""}, {"a", "1"}}) == "b=&a=1");
}

TEST_CASE("UrlDecode reads escapes and '+' and refuses bad escapes", "[http]") {
  CHECK(*UrlDecode("a+b%20c%2Fd") == "a b c/d");
  CHECK(*UrlDecode("%c3%A9") == "\xc3\xa9");
  CHECK(*UrlDecode(UrlEncode("x y&z=\x01")) == "x y&z=\x01");
  CHECK(UrlDecode("%").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(UrlDecode("ab%2").status().message() == "bad percent escape at offset 2");
  CHECK_FALSE(UrlDecode("%zz").ok());
}

TEST_CASE("CheckIssuerUrl takes https, and http only to loopback", "[http]") {
  for (const char* ok : {"https://idp.example.com", "https://idp.example.com/realms/x",
                         "http://127.0.0.1:5556", "http://127.1.2.3/dex", "http://localhost:8080",
                         "http://LOCALHOST", "http://[::1]:9000/"}) {
    INFO(ok);
    CHECK(CheckIssuerUrl("--oidc-issuer", ok).ok());
  }
  for (const char* bad :
       {"http://idp.example.com", "http://127.0.0.1.evil.example/", "http://localhost.evil.example",
        "http://127.0.0.1@evil.example/", "ftp://127.0.0.1/", "idp.example.com", "https://",
        "https:///path", "http://10.0.0.1/", "http://[::1", "http://[::1]evil.example/",
        "https://user@idp.example.com/", "http://127.0.0.1\\@evil.example/", "http://127.0.0.1 /",
        "http://127.1.2.3.4.5/", "http://127.0.0.1./", "https://idp.example.com/\x01"}) {
    INFO(bad);
    absl::Status s = CheckIssuerUrl("--oidc-issuer", bad);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message().find(std::string("--oidc-issuer ") + bad + ":") == 0);
  }
  CHECK(CheckIssuerUrl("--oidc-issuer", "http://idp.example.com").message() ==
        "--oidc-issuer http://idp.example.com: http:// is accepted only on a loopback address "
        "(127.0.0.1, [::1], localhost); use https://");
}

// A loopback port that nothing listens on: bound, then closed.
int ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

TEST_CASE("Fetch reads bodies within the limit from a real server", "[http]") {
  InitHttpClient();
  std::string dir =
      std::filesystem::temp_directory_path() / ("cub_http_" + std::to_string(getpid()));
  cub::testing::StaticHttpServer server(dir);
  server.Write("small.json", "{\"a\":1}");
  server.Write("big.json", std::string(5000, 'x'));

  HttpRequest req;
  req.url = server.url() + "/small.json";
  auto ok = Fetch(req);
  REQUIRE(ok.ok());
  CHECK(ok->status == 200);
  CHECK(ok->body == "{\"a\":1}");
  CHECK(ok->content_type == "application/json");
  CHECK(ok->headers.at("content-length") == "7");

  req.url = server.url() + "/missing";
  auto missing = Fetch(req);
  REQUIRE(missing.ok());  // a status is not an error
  CHECK(missing->status == 404);

  req.url = server.url() + "/big.json";
  req.max_response_bytes = 4096;
  auto big = Fetch(req);
  CHECK(big.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(big.status().message() == "GET " + req.url + ": the response is longer than 4096 bytes");
  req.max_response_bytes = 5000;
  CHECK(Fetch(req).ok());  // exactly the limit is within it
  CHECK(server.Count("/big.json") == 2);
  std::filesystem::remove_all(dir);
}

TEST_CASE("Fetch reports a refused connection as UNAVAILABLE", "[http]") {
  InitHttpClient();
  HttpRequest req;
  req.url = "http://127.0.0.1:" + std::to_string(ClosedPort()) + "/x";
  auto r = Fetch(req);
  CHECK(r.status().code() == absl::StatusCode::kUnavailable);
  CHECK(r.status().message().find("GET " + req.url + ": ") == 0);
  req.url = "gopher://127.0.0.1/";
  CHECK(Fetch(req).status().code() == absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cub::net
