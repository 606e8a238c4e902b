// The cub CLI's connection to cubd: resolving which server and token to use (flags, then the
// CUB_SERVER/CUB_TOKEN environment, then the config file's context), creating the gRPC
// channel (plaintext, TLS with system roots, or TLS verified against --tls-ca), and making
// calls with the bearer token and a deadline. A failed call prints one line on stderr,
// "Failed: <the server's message>" (naming flags where cubd names fields), which is what exit
// code 1 means to the user.
#ifndef CUB_CLI_CLIENT_H_
#define CUB_CLI_CLIENT_H_

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "lib/util/proto_text.h"

namespace cub::cli {

// Options every command accepts, before or after the subcommand.
struct GlobalOptions {
  std::string server;
  std::string token;
  std::string tls_ca;
  bool tls = false;
  std::string output = "table";
  bool json = false;       // --json: -o json
  std::string jq;          // --jq EXPR: json output filtered by jq
  bool names = false;      // --names
  bool no_header = false;  // --no-header
  bool quiet = false;
  std::string context;
  int timeout_seconds = 60;
};

// Where to connect and as whom, once flags, environment and config have been consulted.
struct Connection {
  std::string server;  // host:port or a gRPC target; an http(s):// prefix is removed
  std::string token;   // may be empty: the server then answers UNAUTHENTICATED
  std::string tls_ca;  // PEM file to verify the server with; implies TLS
  bool tls = false;    // TLS with the system's roots
  // When the token is a saved context's (not --token or CUB_TOKEN): that context's name, and
  // for a context of `cub auth login --oidc` what refreshing its ID token takes.
  std::string context;
  std::string oidc_issuer;
  std::string oidc_client_id;
  std::string refresh_token;
};

// Each of server, token and TLS settings comes from its flag, else the environment
// (CUB_SERVER, CUB_TOKEN), else the context named by --context or the config's
// CurrentContext. TLS settings are taken from the context only when the server is the
// context's. Fails with "no server: ..." when no server is configured, and when --context
// names a context the config file does not have. Does not refresh anything: see
// RefreshIfExpiring (oidc_refresh.h), which Connect (commands.h) applies.
absl::StatusOr<Connection> ResolveConnection(const GlobalOptions& options);

// Writes "Failed: <message>" and a newline to stderr.
void PrintFailure(absl::string_view message);
// Sets what PrintFailure calls before it writes (nullptr: nothing): a live progress line on
// stderr erases itself there, so that the failure is not written into it (cli/progress.h).
void SetBeforeFailure(void (*hook)());

// A channel to one cubd. Calls are synchronous; each gets its own deadline.
class Client {
 public:
  // Fails if the TLS CA file cannot be read.
  static absl::StatusOr<std::unique_ptr<Client>> Create(const Connection& connection,
                                                        std::chrono::seconds timeout);

  // A context carrying `authorization: Bearer <token>` and the deadline.
  std::unique_ptr<grpc::ClientContext> NewContext() const;

  // Calls `method` (e.g. &cub::v1::SpaceService::Stub::CreateSpace). Returns true on success;
  // otherwise prints the failure (see Describe) and returns false. A request with a text
  // field the server would refuse (a NUL byte, invalid UTF-8) is not sent: the failure names
  // the field.
  template <typename Stub, typename Request, typename Response>
  bool Call(grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*),
            const Request& request, Response* response) const {
    if (absl::Status text = CheckTextFields(request); !text.ok()) {
      PrintFailure(text.message());
      return false;
    }
    Stub stub(channel_);
    std::unique_ptr<grpc::ClientContext> context = NewContext();
    const grpc::Status status = (stub.*method)(context.get(), request, response);
    if (status.ok()) return true;
    PrintFailure(Describe(status));
    return false;
  }

  // The user-facing text of a failed call: the server's message with this CLI's flags in place
  // of the API's field names (WithFlagNames), or for UNAVAILABLE "cannot reach cubd at ADDR: ...".
  std::string Describe(const grpc::Status& status) const;

  const std::string& server() const { return server_; }
  // For streaming calls, which keep their stub and context for as long as they run.
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

 private:
  Client(std::string server, std::string token, std::shared_ptr<grpc::Channel> channel,
         std::chrono::seconds timeout)
      : server_(std::move(server)),
        token_(std::move(token)),
        channel_(std::move(channel)),
        timeout_(timeout) {}

  std::string server_;
  std::string token_;
  std::shared_ptr<grpc::Channel> channel_;
  std::chrono::seconds timeout_;
};

}  // namespace cub::cli

#endif  // CUB_CLI_CLIENT_H_
