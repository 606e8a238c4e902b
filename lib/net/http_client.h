// A small blocking HTTP(S) client (libcurl) for the few services cub talks to: an OpenID
// provider's discovery document, its keys and its token endpoints, and OCI registries.
//
// Contract:
// - One request, no redirects followed (a 3xx is returned as it came), no cookies, no proxy
//   from the environment unless `use_env_proxy`.
// - Methods GET, POST, PUT, PATCH (each sending `body`, of any size, exactly as given),
//   HEAD (no response body is read) and DELETE. No "Expect: 100-continue" round trip.
// - TLS verifies the peer and its host name, against `ca_file` when set, else the system roots.
// - The response body is read up to `max_response_bytes`; a longer one is an error, not a
//   truncated body, so a hostile server cannot make the caller hold more than that.
// - `timeout` bounds the whole exchange (connect, TLS, send, receive).
// Errors: UNAVAILABLE "METHOD URL: <what failed>" for connection, TLS and timeout failures;
// RESOURCE_EXHAUSTED when the body is too long; INVALID_ARGUMENT for a malformed URL.
// A non-2xx status is not an error: the caller reads `status`.
//
// Thread-safe: each call uses its own handle. libcurl is loaded and initialised by the first
// call (lib/net/curl_api.h), once per process, from any thread.
#ifndef CUB_LIB_NET_HTTP_CLIENT_H_
#define CUB_LIB_NET_HTTP_CLIENT_H_

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace cub::net {

struct HttpRequest {
  std::string method = "GET";  // GET, POST, PUT, PATCH, HEAD or DELETE
  std::string url;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // POST, PUT and PATCH; set Content-Type in `headers`
  absl::Duration timeout = absl::Seconds(10);
  size_t max_response_bytes = 1 << 20;
  std::string ca_file;  // PEM bundle; empty: the system's roots
  bool use_env_proxy = false;
};

struct HttpResponse {
  int status = 0;
  std::string content_type;
  std::string body;
  // Header names lower-cased; the last value of a repeated header. Only the final response's
  // headers (those of an interim "100 Continue" are dropped).
  std::map<std::string, std::string> headers;
};

// Loads libcurl now rather than at the first Fetch: a server calls it at start, so that a
// missing library shows at once. A command line program does not, and only the commands that
// speak HTTP pay for loading it.
void InitHttpClient();

absl::StatusOr<HttpResponse> Fetch(const HttpRequest& request);

// application/x-www-form-urlencoded text of `fields`, in their order.
std::string FormEncode(const std::vector<std::pair<std::string, std::string>>& fields);
// Percent-encodes everything but RFC 3986 unreserved characters.
std::string UrlEncode(const std::string& s);
// Decodes a query or form component ('+' is a space); nullopt-like empty Status on a bad escape.
absl::StatusOr<std::string> UrlDecode(const std::string& s);

// Whether `url` may be fetched as an OpenID issuer's: https://, or http:// to a loopback host
// (127.0.0.0/8, [::1], localhost) for tests and local providers. Otherwise INVALID_ARGUMENT
// naming `what` and the URL ("--oidc-issuer http://idp.example.com: ...").
absl::Status CheckIssuerUrl(const std::string& what, const std::string& url);

}  // namespace cub::net

#endif  // CUB_LIB_NET_HTTP_CLIENT_H_
