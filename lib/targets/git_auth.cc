// How a Git Target logs in to its remote: the params (internal.h), the credential files and the
// libgit2 callbacks.
//
// Why file names and not paths: whoever may create a Target would otherwise choose any file
// cubd can read (its own signing key, /etc/shadow as root) and have cubd send it to a host they
// run, as a password or an SSH key. A plain name keeps them inside the directory the operator
// filled for this purpose (--git-credentials-dir).
//
// Why the host key is checked here: libgit2 1.5 does not read known_hosts; without a
// certificate_check callback it accepts whatever key the server presents, so anyone on the path
// could receive the pushes. The callback compares the raw key libgit2 hands over
// (GIT_CERT_SSH_RAW) with the Target's known_hosts file, and refuses when it is not listed.
//
// libgit2 calls the credentials callback again after the server refuses what it returned, and
// would do so forever: each kind of credential is offered once, and a second request is
// answered with the refusal's message.

#include <arpa/inet.h>
#include <fcntl.h>
#include <git2.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "lib/targets/internal.h"
#include "lib/targets/known_hosts.h"

namespace cub::targets::internal {
namespace {

constexpr char kUsername[] = "username";
constexpr char kPasswordFile[] = "password-file";
constexpr char kSshKeyFile[] = "ssh-key-file";
constexpr char kKnownHostsFile[] = "known-hosts-file";

bool StartsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

// The parts of a repository URL that logging in needs.
struct UrlParts {
  enum Kind { kOther, kHttp, kSsh } kind = kOther;
  std::string user;  // empty: none
  bool has_password = false;
  std::string host;  // without brackets
  int port = 0;      // 0: the scheme's default
};

UrlParts ParseUrl(const std::string& url) {
  UrlParts u;
  std::string authority;
  if (StartsWith(url, "https://") || StartsWith(url, "http://") || StartsWith(url, "ssh://")) {
    u.kind = StartsWith(url, "ssh://") ? UrlParts::kSsh : UrlParts::kHttp;
    size_t start = url.find("://") + 3;
    size_t end = url.find_first_of("/?#", start);
    authority = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  } else if (url[0] != '/' && url.find("://") == std::string::npos) {
    // scp-like user@host:path (ValidateGitParams admits git@host:path only).
    u.kind = UrlParts::kSsh;
    authority = url.substr(0, url.find(':'));
  } else {
    return u;
  }
  if (size_t at = authority.rfind('@'); at != std::string::npos) {
    std::string userinfo = authority.substr(0, at);
    authority = authority.substr(at + 1);
    size_t colon = userinfo.find(':');
    u.has_password = colon != std::string::npos;
    u.user = userinfo.substr(0, colon);
  }
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    u.host = authority.substr(1, close == std::string::npos ? std::string::npos : close - 1);
    if (close != std::string::npos && close + 1 < authority.size() && authority[close + 1] == ':')
      u.port = std::atoi(authority.c_str() + close + 2);
  } else if (size_t colon = authority.rfind(':');
             colon != std::string::npos && u.kind != UrlParts::kOther && !StartsWith(url, "git@")) {
    u.host = authority.substr(0, colon);
    u.port = std::atoi(authority.c_str() + colon + 1);
  } else {
    u.host = authority;
  }
  return u;
}

absl::Status CheckFileName(const std::string& param, const std::string& name) {
  bool bad = name.empty() || name == "." || name == ".." || name.find('/') != std::string::npos ||
             name.find('\\') != std::string::npos;
  for (char c : name) bad = bad || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  if (bad) {
    return absl::InvalidArgumentError(
        absl::StrCat("Git target: param '", param,
                     "' must be a plain file name inside cubd's "
                     "--git-credentials-dir (no '/', not '.' or '..'), not '",
                     name, "'"));
  }
  return absl::OkStatus();
}

// Reads a credential file: FAILED_PRECONDITION naming it when missing, not a regular file, or
// open to others (`secret`: readable by others; otherwise writable by others).
absl::StatusOr<std::string> ReadCredentialFile(const GitAuth& auth, const char* param,
                                               const std::string& path, bool secret) {
  const std::string what =
      absl::StrCat("Git target ", auth.repository, ": param '", param, "': ", path);
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": cannot open: ", ErrnoText(err),
                     err == ENOENT ? " (the file must be in cubd's --git-credentials-dir)" : ""));
  }
  struct stat st;
  std::string text;
  absl::Status status;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    status = absl::FailedPreconditionError(absl::StrCat(what, ": not a regular file"));
  } else if (secret && (st.st_mode & S_IROTH)) {
    status = absl::FailedPreconditionError(absl::StrFormat(
        "%s: readable by others (mode %04o); a credential must not be: chmod o-rwx it", what,
        st.st_mode & 07777));
  } else if (!secret && (st.st_mode & (S_IWOTH | S_IWGRP))) {
    status = absl::FailedPreconditionError(absl::StrFormat(
        "%s: writable by others (mode %04o), so anyone could add a host key: chmod go-w it", what,
        st.st_mode & 07777));
  } else {
    char buf[8192];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < (1 << 20)) text.append(buf, n);
    if (n < 0) {
      status = absl::FailedPreconditionError(absl::StrCat(what, ": ", ErrnoText(errno)));
    }
  }
  ::close(fd);
  if (!status.ok()) return status;
  return text;
}

class AuthState : public RemoteAuthPayload {
 public:
  GitAuth auth;
  std::string password;  // empty: none
  std::string key_text;  // empty: none
  std::vector<KnownHost> known_hosts;
  int userpass_offered = 0;
  int key_offered = 0;
};

int Refuse(const std::string& message) {
  git_error_set_str(GIT_ERROR_NET, message.c_str());
  return GIT_EAUTH;
}

int OnCredentials(git_credential** out, const char* url, const char* username_from_url,
                  unsigned int allowed, void* payload) {
  auto* st = static_cast<AuthState*>(payload);
  const GitAuth& a = st->auth;
  const std::string where = url != nullptr ? url : a.repository;
  if (a.ssh) {
    const std::string user =
        username_from_url != nullptr && *username_from_url != '\0' ? username_from_url : "git";
    if ((allowed & (GIT_CREDENTIAL_SSH_KEY | GIT_CREDENTIAL_SSH_MEMORY)) == 0 &&
        (allowed & GIT_CREDENTIAL_USERNAME)) {
      return git_credential_username_new(out, user.c_str());
    }
    if (st->key_text.empty()) {
      return Refuse(absl::StrCat("the SSH server ", where,
                                 " asks for a login; the Target names no 'ssh-key-file'"));
    }
    if ((allowed & (GIT_CREDENTIAL_SSH_KEY | GIT_CREDENTIAL_SSH_MEMORY)) == 0) {
      return Refuse(absl::StrCat("the SSH server ", where, " does not accept public-key login"));
    }
    if (st->key_offered++ > 0) {
      // libssh2 1.10 signs with RSA as ssh-rsa (SHA-1), which OpenSSH 8.8 and later refuse.
      const bool rsa = st->key_text.find("BEGIN RSA PRIVATE KEY") != std::string::npos;
      return Refuse(absl::StrCat("the SSH server ", where, " refused user '", user,
                                 "' with the key in ssh-key-file ", a.ssh_key_file,
                                 rsa ? " (an RSA key: cub signs with ssh-rsa, which current "
                                       "servers refuse; use an Ed25519 or ECDSA key)"
                                     : ""));
    }
    if (allowed & GIT_CREDENTIAL_SSH_MEMORY) {
      return git_credential_ssh_key_memory_new(out, user.c_str(), nullptr, st->key_text.c_str(),
                                               nullptr);
    }
    return git_credential_ssh_key_new(out, user.c_str(), nullptr, a.ssh_key_file.c_str(), nullptr);
  }
  if ((allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) == 0) {
    return Refuse(absl::StrCat("the server ", where,
                               " wants a kind of login cub does not offer (only user and "
                               "password or token)"));
  }
  if (st->password.empty()) {
    return Refuse(absl::StrCat("the server ", where,
                               " asks for a login; the Target names no 'password-file'"));
  }
  if (st->userpass_offered++ > 0) {
    return Refuse(absl::StrCat("the server ", where, " refused user '", a.username,
                               "' with the password in password-file ", a.password_file));
  }
  return git_credential_userpass_plaintext_new(out, a.username.c_str(), st->password.c_str());
}

int OnCertificate(git_cert* cert, int /*valid*/, const char* /*host*/, void* payload) {
  // TLS: libgit2's own verification against the system's roots decides.
  if (cert->cert_type != GIT_CERT_HOSTKEY_LIBSSH2) return GIT_PASSTHROUGH;
  auto* st = static_cast<AuthState*>(payload);
  const GitAuth& a = st->auth;
  const auto* hk = reinterpret_cast<const git_cert_hostkey*>(cert);
  if ((hk->type & GIT_CERT_SSH_RAW) == 0 || hk->hostkey == nullptr) {
    return Refuse(absl::StrCat("the SSH host key of ", a.known_host_name,
                               " cannot be checked: libgit2 did not hand it over"));
  }
  const absl::string_view key(hk->hostkey, hk->hostkey_len);
  const std::string shown = absl::StrCat(KeyTypeOf(key), " ", KeyFingerprint(key));
  if (a.known_hosts_file.empty()) {
    return Refuse(absl::StrCat("refusing the SSH server ", a.known_host_name, " (host key ", shown,
                               "): the Target names no 'known-hosts-file' to check it against"));
  }
  switch (CheckHostKey(st->known_hosts, a.known_host_name, key)) {
    case HostKeyCheck::kKnown:
      return 0;
    case HostKeyCheck::kUnknown:
      return Refuse(absl::StrCat("refusing the SSH server ", a.known_host_name, ": host key ",
                                 shown, " is unknown: known-hosts-file ", a.known_hosts_file,
                                 " has no line for ", a.known_host_name,
                                 " (add the server's keys, e.g. from ssh-keyscan, once checked)"));
    case HostKeyCheck::kMismatch: {
      // libssh2 chooses the host key type, not from known_hosts as ssh does: a file listing
      // only some of the server's types refuses it although nothing is wrong.
      std::set<std::string> types;
      for (const KnownHost& h : st->known_hosts) {
        if (!h.revoked && KnownHostMatches(h.hosts, a.known_host_name)) types.insert(h.key_type);
      }
      if (!types.count(KeyTypeOf(key))) {
        return Refuse(absl::StrCat("refusing the SSH server ", a.known_host_name,
                                   ": it presented host key ", shown, ", and known-hosts-file ",
                                   a.known_hosts_file, " lists only ", absl::StrJoin(types, ", "),
                                   " keys for it; list every host key of the server "
                                   "(ssh-keyscan prints them all), once checked"));
      }
      return Refuse(
          absl::StrCat("refusing the SSH server ", a.known_host_name, ": host key ", shown,
                       " does not match the keys known-hosts-file ", a.known_hosts_file,
                       " lists for it (the host's key changed, or someone is impersonating it)"));
    }
    case HostKeyCheck::kRevoked:
      return Refuse(absl::StrCat("refusing the SSH server ", a.known_host_name, ": host key ",
                                 shown, " is marked @revoked in known-hosts-file ",
                                 a.known_hosts_file));
  }
  return GIT_EAUTH;
}

}  // namespace

const std::vector<std::string>& GitAuthParamNames() {
  static const auto* names =
      new std::vector<std::string>{kUsername, kPasswordFile, kSshKeyFile, kKnownHostsFile};
  return *names;
}

bool IsLoopbackHttpUrl(const std::string& url) {
  if (!StartsWith(url, "http://")) return false;
  size_t start = 7;
  size_t end = url.find_first_of("/?#", start);
  std::string authority = url.substr(start, end == std::string::npos ? end : end - start);
  if (authority.find('@') != std::string::npos)
    authority = authority.substr(authority.rfind('@') + 1);
  std::string host, port;
  if (!authority.empty() && authority[0] == '[') {
    size_t close = authority.find(']');
    if (close == std::string::npos) return false;
    host = authority.substr(1, close - 1);
    port = authority.substr(close + 1);
    unsigned char a6[16];
    if (inet_pton(AF_INET6, host.c_str(), a6) != 1) return false;
    static const unsigned char kLoop6[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    if (std::memcmp(a6, kLoop6, 16) != 0) return false;
  } else {
    size_t colon = authority.find(':');
    host = authority.substr(0, colon);
    port = colon == std::string::npos ? "" : authority.substr(colon);
    unsigned char a4[4];
    // inet_pton accepts only the dotted quad, not "127.1" or octal spellings.
    if (inet_pton(AF_INET, host.c_str(), a4) != 1 || a4[0] != 127) return false;
  }
  if (port.empty()) return true;
  if (port[0] != ':' || port.size() == 1 || port.size() > 6) return false;
  for (size_t i = 1; i < port.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(port[i]))) return false;
  }
  return true;
}

absl::Status ValidateGitAuthParams(const std::map<std::string, std::string>& params) {
  const std::string& repository = params.at("repository");
  const UrlParts u = ParseUrl(repository);
  if (u.has_password) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Git target: param 'repository' must not carry a password (user:password@); put it in "
        "a file in cubd's --git-credentials-dir and name that file with param '",
        u.kind == UrlParts::kSsh ? kSshKeyFile : kPasswordFile, "'"));
  }
  if (u.kind == UrlParts::kHttp && !u.user.empty()) {
    // A token is often given as the user name (https://TOKEN@host/...): it would be stored in
    // the database and shown in every message naming the repository.
    return absl::InvalidArgumentError(absl::StrCat(
        "Git target: param 'repository' must not carry a user name in an http(s) URL ('",
        u.user.size() > 4 ? u.user.substr(0, 4) + "..." : u.user,
        "@'); give the user with param 'username' and a token in a file named by param '",
        kPasswordFile, "'"));
  }
  auto has = [&](const char* k) { return params.count(k) > 0; };
  for (const char* k : {kPasswordFile, kSshKeyFile, kKnownHostsFile}) {
    if (auto it = params.find(k); it != params.end()) {
      if (absl::Status s = CheckFileName(k, it->second); !s.ok()) return s;
    }
  }
  if (auto it = params.find(kUsername); it != params.end()) {
    const std::string& n = it->second;
    bool bad = n.empty() || n.find(':') != std::string::npos;
    for (char c : n) bad = bad || static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
    if (bad) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Git target: param 'username' must be non-empty, without ':' or control characters"));
    }
  }
  for (const char* k : {kUsername, kPasswordFile}) {
    if (has(k) && u.kind != UrlParts::kHttp) {
      return absl::InvalidArgumentError(absl::StrCat("Git target: param '", k,
                                                     "' is for https:// repositories, and '",
                                                     repository, "' is not one"));
    }
  }
  for (const char* k : {kSshKeyFile, kKnownHostsFile}) {
    if (has(k) && u.kind != UrlParts::kSsh) {
      return absl::InvalidArgumentError(absl::StrCat("Git target: param '", k,
                                                     "' is for ssh:// and git@host:path "
                                                     "repositories, and '",
                                                     repository, "' is not one"));
    }
  }
  if (has(kUsername) && !has(kPasswordFile)) {
    return absl::InvalidArgumentError(
        "Git target: param 'username' needs param 'password-file' (the password or token)");
  }
  if (has(kSshKeyFile) != has(kKnownHostsFile)) {
    return absl::InvalidArgumentError(
        has(kSshKeyFile)
            ? "Git target: param 'ssh-key-file' needs param 'known-hosts-file': the server's "
              "host key must be checked"
            : "Git target: param 'known-hosts-file' needs param 'ssh-key-file' (the key to log "
              "in with)");
  }
  return absl::OkStatus();
}

absl::StatusOr<GitAuth> GitAuthOf(const std::map<std::string, std::string>& params,
                                  const ProviderEnv& env) {
  GitAuth a;
  a.repository = params.at("repository");
  const UrlParts u = ParseUrl(a.repository);
  a.ssh = u.kind == UrlParts::kSsh;
  if (a.ssh) a.known_host_name = KnownHostName(u.host, u.port == 0 ? 22 : u.port);
  auto it = params.find(kUsername);
  a.username = it != params.end() ? it->second : !u.user.empty() ? u.user : "x-access-token";
  for (auto [param, field] :
       {std::pair{kPasswordFile, &a.password_file}, std::pair{kSshKeyFile, &a.ssh_key_file},
        std::pair{kKnownHostsFile, &a.known_hosts_file}}) {
    auto f = params.find(param);
    if (f == params.end()) continue;
    if (env.credentials_dir.empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("Git target ", a.repository, ": param '", param, "' names credential file '",
                       f->second, "', but cubd was started without --git-credentials-dir"));
    }
    std::string dir = env.credentials_dir;
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    *field = absl::StrCat(dir, "/", f->second);
  }
  return a;
}

absl::StatusOr<std::unique_ptr<RemoteAuthPayload>> InstallRemoteAuth(
    const GitAuth& auth, git_remote_callbacks* callbacks) {
  auto st = std::make_unique<AuthState>();
  st->auth = auth;
  if (!auth.password_file.empty()) {
    auto text = ReadCredentialFile(auth, kPasswordFile, auth.password_file, true);
    if (!text.ok()) return text.status();
    std::string line = text->substr(0, text->find('\n'));
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Git target ", auth.repository, ": param 'password-file': ", auth.password_file,
          ": the first line (the password or token) is empty"));
    }
    st->password = std::move(line);
  }
  if (!auth.ssh_key_file.empty()) {
    auto text = ReadCredentialFile(auth, kSshKeyFile, auth.ssh_key_file, true);
    if (!text.ok()) return text.status();
    if (text->find("PRIVATE KEY-----") == std::string::npos) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Git target ", auth.repository, ": param 'ssh-key-file': ", auth.ssh_key_file,
          ": not a private key (OpenSSH or PEM form)"));
    }
    st->key_text = *std::move(text);
  }
  if (!auth.known_hosts_file.empty()) {
    auto text = ReadCredentialFile(auth, kKnownHostsFile, auth.known_hosts_file, false);
    if (!text.ok()) return text.status();
    st->known_hosts = ParseKnownHosts(*text);
    if (st->known_hosts.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Git target ", auth.repository, ": param 'known-hosts-file': ", auth.known_hosts_file,
          ": no known_hosts line in it"));
    }
  }
  callbacks->credentials = OnCredentials;
  callbacks->certificate_check = OnCertificate;
  callbacks->payload = st.get();
  return std::unique_ptr<RemoteAuthPayload>(std::move(st));
}

}  // namespace cub::targets::internal
