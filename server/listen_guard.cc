#include "server/listen_guard.h"

#include <arpa/inet.h>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace cub::server {
namespace {

// The host part of "HOST:PORT" or "[IPV6]:PORT"; empty for ":PORT" (every interface).
std::string HostOf(const std::string& hostport) {
  if (!hostport.empty() && hostport[0] == '[') {
    const size_t close = hostport.find(']');
    return hostport.substr(1, close == std::string::npos ? std::string::npos : close - 1);
  }
  const size_t colon = hostport.rfind(':');
  if (colon == std::string::npos) return hostport;
  // More than one colon and no brackets: a bare IPv6 address with no port.
  if (hostport.find(':') != colon) return hostport;
  return hostport.substr(0, colon);
}

}  // namespace

bool IsLoopbackListen(const std::string& hostport) {
  if (absl::StartsWith(hostport, "unix:") || absl::StartsWith(hostport, "unix-abstract:")) {
    return true;
  }
  const std::string host = absl::AsciiStrToLower(HostOf(hostport));
  if (host == "localhost") return true;
  in_addr v4;
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6;
  if (inet_pton(AF_INET6, host.c_str(), &v6) != 1) return false;  // a name, or nothing
  if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
  return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
}

absl::Status CheckEmbeddedDatabaseListen(bool embedded, bool allowed,
                                         const std::vector<std::string>& listens) {
  if (!embedded || allowed) return absl::OkStatus();
  for (const std::string& listen : listens) {
    if (listen.empty() || IsLoopbackListen(listen)) continue;
    return absl::FailedPreconditionError(absl::StrCat(
        "refusing to serve ", listen,
        ", which is not a loopback address, from the embedded database: without "
        "--database-url cubd keeps its data in its data directory, which in a pod is lost with "
        "the pod. Give --database-url (CUBD_DATABASE_URL), or --allow-embedded-database "
        "(CUBD_ALLOW_EMBEDDED_DATABASE=true) if the data directory is meant to be kept"));
  }
  return absl::OkStatus();
}

}  // namespace cub::server
