// Authorization code with PKCE on a loopback redirect. See oidc_browser.h.
#include "cli/oidc_browser.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "lib/net/http_client.h"
#include "lib/util/html.h"
#include "lib/util/status_macros.h"

namespace cub::cli::oidc {
namespace {

constexpr size_t kMaxRequestBytes = 16 << 10;

// Closes a file descriptor when it goes out of scope.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

std::string Errno() { return std::strerror(errno); }

// A listening TCP socket on 127.0.0.1 and a port the kernel chose.
absl::StatusOr<int> ListenOnLoopback(int* port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot create a socket: ", Errno()));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 8) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    const std::string err = Errno();
    ::close(fd);
    return absl::InternalError(absl::StrCat("cannot listen on 127.0.0.1 for the login: ", err));
  }
  *port = ntohs(addr.sin_port);
  return fd;
}

// The request target of the HTTP request on `conn` ("/callback?..."), read within `deadline`.
absl::StatusOr<std::string> ReadRequestTarget(int conn, absl::Time deadline) {
  std::string data;
  while (data.find("\r\n\r\n") == std::string::npos && data.find("\n\n") == std::string::npos) {
    if (data.size() > kMaxRequestBytes) {
      return absl::InvalidArgumentError("the browser's request is too long");
    }
    const int wait_ms = static_cast<int>(
        absl::ToInt64Milliseconds(std::max(deadline - absl::Now(), absl::ZeroDuration())));
    pollfd p{conn, POLLIN, 0};
    if (wait_ms == 0 || ::poll(&p, 1, wait_ms) <= 0) {
      return absl::DeadlineExceededError("the browser's request did not arrive in time");
    }
    char buf[4096];
    const ssize_t n = ::recv(conn, buf, sizeof buf, 0);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return absl::UnavailableError("the browser closed the connection");
    }
    data.append(buf, static_cast<size_t>(n));
  }
  // "GET /callback?code=... HTTP/1.1"
  std::vector<std::string> line =
      absl::StrSplit(data.substr(0, data.find_first_of("\r\n")), ' ', absl::SkipEmpty());
  if (line.size() != 3 || line[0] != "GET") {
    return absl::InvalidArgumentError("the browser's request is not a GET");
  }
  return line[1];
}

void Answer(int conn, int status, const std::string& title, const std::string& text) {
  const std::string body =
      absl::StrCat("<!doctype html><html><head><meta charset=\"utf-8\"><title>cub: ", title,
                   "</title></head><body><h1>", title, "</h1><p>", text, "</p></body></html>\n");
  const std::string reply =
      absl::StrCat("HTTP/1.1 ", status, status == 200 ? " OK" : " Bad Request",
                   "\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ", body.size(),
                   "\r\nConnection: close\r\nCache-Control: no-store\r\n\r\n", body);
  size_t sent = 0;
  while (sent < reply.size()) {
    const ssize_t n = ::send(conn, reply.data() + sent, reply.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) {
      if (n < 0 && errno == EINTR) continue;
      return;  // The browser went away: nothing more to tell it.
    }
    sent += static_cast<size_t>(n);
  }
}

bool OnPath(const std::string& name) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return false;
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    if (::access(absl::StrCat(dir, "/", name).c_str(), X_OK) == 0) return true;
  }
  return false;
}

// Starts $BROWSER URL (through sh, so $BROWSER may carry arguments) or xdg-open URL, with
// its stdout sent to stderr so that cub's own output stays clean. -1 when there is none.
pid_t StartBrowser(const std::string& url) {
  const char* browser = std::getenv("BROWSER");
  const bool have_browser = browser != nullptr && *browser != '\0';
  if (!have_browser && !OnPath("xdg-open")) return -1;
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;  // The parent (or -1 on failure).
  ::dup2(2, 1);
  if (have_browser) {
    ::execl("/bin/sh", "sh", "-c", "exec $BROWSER \"$1\"", "sh", url.c_str(),
            static_cast<char*>(nullptr));
  } else {
    ::execlp("xdg-open", "xdg-open", url.c_str(), static_cast<char*>(nullptr));
  }
  ::_exit(127);
}

// Waits for the browser's redirect to /callback and returns its code; other paths (a
// favicon) are answered 404 and ignored.
absl::StatusOr<std::string> AwaitCallback(int listener, const std::string& state, pid_t browser,
                                          absl::Time deadline) {
  while (absl::Now() < deadline) {
    pollfd p{listener, POLLIN, 0};
    const int ready = ::poll(&p, 1, 1000);
    if (ready < 0 && errno != EINTR) {
      return absl::InternalError(absl::StrCat("waiting for the browser: ", Errno()));
    }
    if (browser > 0) {
      int wstatus = 0;
      if (::waitpid(browser, &wstatus, WNOHANG) == browser) {
        browser = -1;
        // xdg-open returns at once; only a browser command that failed ends the wait.
        if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0) {
          return absl::FailedPreconditionError(absl::StrCat(
              "the browser command (", std::getenv("BROWSER") ? "$BROWSER" : "xdg-open",
              ") failed before the login was completed"));
        }
      }
    }
    if (ready <= 0) continue;
    Fd conn(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
    if (conn.get() < 0) continue;
    absl::StatusOr<std::string> target =
        ReadRequestTarget(conn.get(), std::min(deadline, absl::Now() + absl::Seconds(10)));
    if (!target.ok()) continue;
    if (!absl::StartsWith(*target, "/callback")) {
      Answer(conn.get(), 404, "Not found", "This is cub's login callback.");
      continue;
    }
    absl::StatusOr<std::string> code = ParseCallback(*target, state);
    if (absl::IsFailedPrecondition(code.status())) {
      // Not this login's answer (another page or process knocking on the port): refusing it
      // must not end the login, or anyone local could abort it with one request.
      Answer(conn.get(), 400, "Not this login", HtmlEscape(code.status().message()));
      continue;
    }
    if (!code.ok()) {
      Answer(conn.get(), 400, "Login failed",
             HtmlEscape(absl::StrCat(code.status().message(), ". You can close this window.")));
      return code.status();
    }
    Answer(conn.get(), 200, "Logged in",
           "cub has the login; you can close this window and return to the terminal.");
    return code;
  }
  return absl::DeadlineExceededError("");
}

}  // namespace

absl::StatusOr<Tokens> BrowserLogin(const ProviderEndpoints& endpoints, const LoginClient& client,
                                    absl::Duration timeout) {
  if (endpoints.authorization_endpoint.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        client.issuer, " offers no browser login (no authorization_endpoint); use --device"));
  }
  int port = 0;
  CUB_ASSIGN_OR_RETURN(int listen_fd, ListenOnLoopback(&port));
  Fd listener(listen_fd);
  AuthorizationRequest request;
  request.redirect_uri = absl::StrCat("http://127.0.0.1:", port, "/callback");
  request.state = RandomUrlSafe(24);
  request.nonce = RandomUrlSafe(24);
  request.prompt = "consent";
  const std::string verifier = NewCodeVerifier();
  request.code_challenge = CodeChallengeS256(verifier);
  const std::string url = AuthorizationUrl(endpoints, client, request);

  const pid_t browser = StartBrowser(url);
  std::cout.flush();
  std::cerr << (browser > 0 ? "Opened a browser for the login; if none appears, open: "
                            : "Open this URL in a browser to log in: ")
            << url << std::endl;
  absl::StatusOr<std::string> code =
      AwaitCallback(listener.get(), request.state, browser, absl::Now() + timeout);
  if (browser > 0) ::waitpid(browser, nullptr, WNOHANG);  // Reap it if it is done.
  if (!code.ok()) {
    if (code.status().code() == absl::StatusCode::kDeadlineExceeded) {
      return absl::DeadlineExceededError(absl::StrCat("the browser login at ", client.issuer,
                                                      " was not completed within ",
                                                      absl::FormatDuration(timeout)));
    }
    return code.status();
  }

  CUB_ASSIGN_OR_RETURN(Tokens tokens, PostTokenRequest(endpoints, client,
                                                       {{"grant_type", "authorization_code"},
                                                        {"code", *code},
                                                        {"redirect_uri", request.redirect_uri},
                                                        {"client_id", client.client_id},
                                                        {"code_verifier", verifier}}));
  absl::StatusOr<std::string> nonce = TokenClaim(tokens.id_token, "nonce");
  if (!nonce.ok() || *nonce != request.nonce) {
    return absl::PermissionDeniedError(
        absl::StrCat("the id_token from ", client.issuer,
                     " does not carry this login's nonce: it was not issued for this login"));
  }
  return tokens;
}

}  // namespace cub::cli::oidc
