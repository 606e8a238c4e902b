#include "lib/net/http_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <cctype>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/net/curl_api.h"

namespace cub::net {
namespace {

struct Transfer {
  HttpResponse* response;
  size_t limit;
  bool too_long = false;
};

size_t OnBody(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  size_t bytes = size * n;
  if (t->response->body.size() + bytes > t->limit) {
    t->too_long = true;
    return 0;  // makes libcurl stop with CURLE_WRITE_ERROR
  }
  t->response->body.append(data, bytes);
  return bytes;
}

size_t OnHeader(char* data, size_t size, size_t n, void* user) {
  auto* t = static_cast<Transfer*>(user);
  absl::string_view line(data, size * n);
  // A status line starts the headers of a response: keep only the last response's.
  if (absl::StartsWith(line, "HTTP/")) t->response->headers.clear();
  size_t colon = line.find(':');
  if (colon != absl::string_view::npos) {
    std::string name = absl::AsciiStrToLower(line.substr(0, colon));
    std::string value(absl::StripAsciiWhitespace(line.substr(colon + 1)));
    t->response->headers[name] = value;
  }
  return size * n;
}

struct CurlDeleter {
  const CurlApi* api;
  void operator()(CURL* c) const { api->easy_cleanup(c); }
};
struct SlistDeleter {
  const CurlApi* api;
  void operator()(curl_slist* l) const { api->slist_free_all(l); }
};

bool IsUnreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

void InitHttpClient() { (void)Curl(); }

absl::StatusOr<HttpResponse> Fetch(const HttpRequest& req) {
  const std::string& m = req.method;
  const bool sends_body = m == "POST" || m == "PUT" || m == "PATCH";
  if (m != "GET" && m != "HEAD" && m != "DELETE" && !sends_body) {
    return absl::InvalidArgumentError(
        absl::StrCat("HTTP method ", req.method, " is not supported"));
  }
  if (!absl::StartsWith(req.url, "https://") && !absl::StartsWith(req.url, "http://")) {
    return absl::InvalidArgumentError(absl::StrCat(req.url, " is not an http:// or https:// URL"));
  }
  absl::StatusOr<const CurlApi*> loaded = Curl();
  if (!loaded.ok()) {
    return absl::UnavailableError(
        absl::StrCat(req.method, " ", req.url, ": ", loaded.status().message()));
  }
  const CurlApi& api = **loaded;
  std::unique_ptr<CURL, CurlDeleter> curl(api.easy_init(), CurlDeleter{&api});
  if (!curl) return absl::InternalError("libcurl could not start a transfer");
  HttpResponse resp;
  Transfer t{&resp, req.max_response_bytes};
  CURL* c = curl.get();
  api.easy_setopt(c, CURLOPT_URL, req.url.c_str());
  api.easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
  api.easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
  api.easy_setopt(c, CURLOPT_NOSIGNAL, 1L);  // threads: no SIGALRM for DNS timeouts
  api.easy_setopt(c, CURLOPT_TIMEOUT_MS, static_cast<long>(absl::ToInt64Milliseconds(req.timeout)));
  api.easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
  api.easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!req.ca_file.empty()) api.easy_setopt(c, CURLOPT_CAINFO, req.ca_file.c_str());
  if (!req.use_env_proxy) api.easy_setopt(c, CURLOPT_PROXY, "");
  api.easy_setopt(c, CURLOPT_WRITEFUNCTION, OnBody);
  api.easy_setopt(c, CURLOPT_WRITEDATA, &t);
  api.easy_setopt(c, CURLOPT_HEADERFUNCTION, OnHeader);
  api.easy_setopt(c, CURLOPT_HEADERDATA, &t);
  api.easy_setopt(c, CURLOPT_USERAGENT, "cub/0.1");
  std::unique_ptr<curl_slist, SlistDeleter> headers(nullptr, SlistDeleter{&api});
  for (const auto& [name, value] : req.headers) {
    std::string line = absl::StrCat(name, ": ", value);
    headers.reset(api.slist_append(headers.release(), line.c_str()));
  }
  // libcurl waits for a "100 Continue" before sending a body over 1 MiB; registries answer
  // none, so that would cost a second per upload.
  if (sends_body) headers.reset(api.slist_append(headers.release(), "Expect:"));
  if (headers) api.easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  if (sends_body) {
    // POSTFIELDS sends the bytes as they are (no chunking) for any method set below.
    api.easy_setopt(c, CURLOPT_POST, 1L);
    api.easy_setopt(c, CURLOPT_POSTFIELDS, req.body.data());
    api.easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(req.body.size()));
    if (m != "POST") api.easy_setopt(c, CURLOPT_CUSTOMREQUEST, m.c_str());
  } else if (m == "HEAD") {
    api.easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else if (m == "DELETE") {
    api.easy_setopt(c, CURLOPT_CUSTOMREQUEST, "DELETE");
  }
  char error[CURL_ERROR_SIZE] = {0};
  api.easy_setopt(c, CURLOPT_ERRORBUFFER, error);
  CURLcode rc = api.easy_perform(c);
  if (t.too_long) {
    return absl::ResourceExhaustedError(absl::StrCat(req.method, " ", req.url,
                                                     ": the response is longer than ",
                                                     req.max_response_bytes, " bytes"));
  }
  if (rc == CURLE_URL_MALFORMAT) {
    return absl::InvalidArgumentError(absl::StrCat(req.url, " is not a valid URL"));
  }
  if (rc != CURLE_OK) {
    return absl::UnavailableError(absl::StrCat(req.method, " ", req.url, ": ",
                                               error[0] != '\0' ? error : api.easy_strerror(rc)));
  }
  long status = 0;
  api.easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  resp.status = static_cast<int>(status);
  if (auto it = resp.headers.find("content-type"); it != resp.headers.end()) {
    resp.content_type = it->second;
  }
  return resp;
}

std::string UrlEncode(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (IsUnreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string out;
  for (const auto& [k, v] : fields) {
    if (!out.empty()) out.push_back('&');
    absl::StrAppend(&out, UrlEncode(k), "=", UrlEncode(v));
  }
  return out;
}

absl::StatusOr<std::string> UrlDecode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out.push_back(' ');
    } else if (s[i] == '%') {
      int hi = i + 2 < s.size() ? HexValue(s[i + 1]) : -1;
      int lo = i + 2 < s.size() ? HexValue(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return absl::InvalidArgumentError(absl::StrCat("bad percent escape at offset ", i));
      }
      out.push_back(static_cast<char>(hi * 16 + lo));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

absl::Status CheckIssuerUrl(const std::string& what, const std::string& url) {
  // Spaces, control bytes and backslashes are read differently by different URL parsers, so a
  // URL holding one could name another host to libcurl than to this check.
  for (unsigned char c : url) {
    if (c <= 0x20 || c >= 0x7f || c == '\\') {
      return absl::InvalidArgumentError(absl::StrCat(
          what, " ", url, ": the URL holds a space, a control or non-ASCII byte, or a backslash"));
    }
  }
  absl::string_view rest = url;
  if (absl::ConsumePrefix(&rest, "https://")) {
    absl::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
    if (authority.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " ", url, ": the URL names no host"));
    }
    if (authority.find('@') != absl::string_view::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " ", url, ": an issuer URL cannot carry user information"));
    }
    return absl::OkStatus();
  }
  if (!absl::ConsumePrefix(&rest, "http://")) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", url, ": an issuer must be an https:// URL"));
  }
  absl::string_view authority = rest.substr(0, rest.find_first_of("/?#"));
  if (authority.find('@') != absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " ", url, ": an issuer URL cannot carry user information"));
  }
  std::string host;
  if (absl::StartsWith(authority, "[")) {
    size_t close = authority.find(']');
    // "[::1" or "[::1]x": not a host and port, whatever a lenient parser would make of it.
    if (close == absl::string_view::npos ||
        (close + 1 < authority.size() && authority[close + 1] != ':')) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " ", url, ": the URL's bracketed host is malformed"));
    }
    host = std::string(authority.substr(1, close - 1));
  } else {
    host = std::string(authority.substr(0, authority.find(':')));
  }
  host = absl::AsciiStrToLower(host);
  // An address literal, parsed as one (a name like "127.0.0.1.example" would go to DNS), or
  // the one name that is always loopback.
  in_addr v4{};
  in6_addr v6{};
  bool loopback =
      host == "localhost" ||
      (::inet_pton(AF_INET, host.c_str(), &v4) == 1 && (ntohl(v4.s_addr) >> 24) == 127) ||
      (::inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6));
  if (!loopback) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", url,
        ": http:// is accepted only on a loopback address (127.0.0.1, [::1], localhost); use "
        "https://"));
  }
  return absl::OkStatus();
}

}  // namespace cub::net
