// OpenSSH known_hosts files, as a Git Target over SSH checks its server's host key against one
// (`known-hosts-file` param, lib/targets/internal.h). Internal to lib/targets.
//
// Understood: lines "[marker] hosts keytype base64-key [comment]"; hosts a comma-separated list
// of names or address literals, "[host]:port" for a port other than 22, glob patterns ('*', '?'),
// negations ("!pattern": a host matching one is not matched by the line), or one hashed name
// "|1|base64-salt|base64-hmac-sha1" (ssh-keygen -H); the marker "@revoked" (the key is refused
// for those hosts). Lines with "@cert-authority" are skipped: host certificates are not
// supported. Blank lines, '#' comments and lines that do not parse are skipped, as ssh does.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_TARGETS_KNOWN_HOSTS_H_
#define CUB_LIB_TARGETS_KNOWN_HOSTS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace cub::targets::internal {

struct KnownHost {
  bool revoked = false;
  std::string hosts;     // the line's host list, as written
  std::string key_type;  // e.g. "ssh-ed25519"
  std::string key;       // the decoded key blob (SSH wire form, starting with the type)
};

// The usable lines of a known_hosts file's text.
std::vector<KnownHost> ParseKnownHosts(absl::string_view text);

// The name a host is listed under: "host" for port 22, "[host]:port" otherwise; lowercase.
std::string KnownHostName(absl::string_view host, int port);

// Does `hosts` (a line's host list) match `name` (KnownHostName)?
bool KnownHostMatches(const std::string& hosts, const std::string& name);

enum class HostKeyCheck {
  kKnown,     // a line for the host lists this key
  kUnknown,   // no line lists the host
  kMismatch,  // lines list the host, with other keys only
  kRevoked,   // an @revoked line lists this key for the host (or for any host)
};

// How `key` (SSH wire form), presented by the host named `name`, stands in `entries`.
HostKeyCheck CheckHostKey(const std::vector<KnownHost>& entries, const std::string& name,
                          absl::string_view key);

// "SHA256:<unpadded base64 of sha256(key)>", as ssh-keygen -l prints a key's fingerprint.
std::string KeyFingerprint(absl::string_view key);

// The key type a key blob starts with ("ssh-ed25519"), or "unknown".
std::string KeyTypeOf(absl::string_view key);

}  // namespace cub::targets::internal

#endif  // CUB_LIB_TARGETS_KNOWN_HOSTS_H_
