// Connection to cubd for the cub CLI. See client.h.
#include "cli/client.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "cli/config.h"
#include "cli/flag_names.h"

namespace cub::cli {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Largest response accepted: a list of Units or Revisions with data can exceed gRPC's 4 MiB.
constexpr int kMaxResponseBytes = 256 << 20;

absl::StatusOr<std::string> ReadPem(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot read TLS CA ", path, ": ", std::strerror(errno)));
  }
  std::string text;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) {
    return absl::NotFoundError(absl::StrCat("cannot read TLS CA ", path, ": ", std::strerror(err)));
  }
  return text;
}

}  // namespace

absl::StatusOr<Connection> ResolveConnection(const GlobalOptions& options) {
  Connection c;
  c.server = !options.server.empty() ? options.server : Env("CUB_SERVER");
  c.token = !options.token.empty() ? options.token : Env("CUB_TOKEN");
  c.tls_ca = options.tls_ca;
  c.tls = options.tls;

  // The config file is consulted only for what flags and environment left unset, and always
  // when --context is given (so that a misspelt context is reported, not silently ignored).
  if (c.server.empty() || c.token.empty() || !options.context.empty()) {
    const std::string path = ConfigPath();
    absl::StatusOr<CliConfig> config = path.empty() ? CliConfig{} : LoadConfig(path);
    if (!config.ok()) return config.status();
    const std::string name = !options.context.empty() ? options.context : config->current_context;
    const ContextConfig* ctx = nullptr;
    if (!name.empty()) {
      auto it = config->contexts.find(name);
      if (it != config->contexts.end()) {
        ctx = &it->second;
      } else if (!options.context.empty()) {
        return absl::NotFoundError(absl::StrCat("no context ", name, " in ", path));
      }
    }
    if (ctx != nullptr) {
      if (c.server.empty()) c.server = ctx->server;
      // A context's token is a secret for its own server: never send it anywhere else.
      if (c.token.empty() && c.server == ctx->server) {
        c.token = ctx->token;
        c.context = name;
        c.oidc_issuer = ctx->oidc_issuer;
        c.oidc_client_id = ctx->oidc_client_id;
        c.refresh_token = ctx->refresh_token;
      }
      if (c.server == ctx->server && c.tls_ca.empty() && !c.tls) {
        c.tls_ca = ctx->tls_ca;
        c.tls = ctx->tls;
      }
    }
  }
  if (c.server.empty()) {
    return absl::FailedPreconditionError(
        "no server: pass --server, set CUB_SERVER or run cub auth login");
  }
  return c;
}

namespace {
std::atomic<void (*)()> before_failure{nullptr};
}  // namespace

void SetBeforeFailure(void (*hook)()) { before_failure.store(hook); }

void PrintFailure(absl::string_view message) {
  if (void (*hook)() = before_failure.load(); hook != nullptr) hook();
  std::cout.flush();
  std::cerr << "Failed: " << message << std::endl;
}

absl::StatusOr<std::unique_ptr<Client>> Client::Create(const Connection& connection,
                                                       std::chrono::seconds timeout) {
  std::string target = connection.server;
  bool tls = connection.tls || !connection.tls_ca.empty();
  if (absl::StartsWith(target, "https://")) {
    target = target.substr(8);
    tls = true;
  } else if (absl::StartsWith(target, "http://")) {
    target = target.substr(7);
  }
  while (!target.empty() && target.back() == '/') target.pop_back();

  std::shared_ptr<grpc::ChannelCredentials> credentials;
  if (tls) {
    grpc::SslCredentialsOptions ssl;
    if (!connection.tls_ca.empty()) {
      absl::StatusOr<std::string> pem = ReadPem(connection.tls_ca);
      if (!pem.ok()) return pem.status();
      ssl.pem_root_certs = *std::move(pem);
    }
    credentials = grpc::SslCredentials(ssl);
  } else {
    credentials = grpc::InsecureChannelCredentials();
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(kMaxResponseBytes);
  args.SetUserAgentPrefix("cub-cli");
  auto channel = grpc::CreateCustomChannel(target, credentials, args);
  return std::unique_ptr<Client>(
      new Client(connection.server, connection.token, std::move(channel), timeout));
}

std::unique_ptr<grpc::ClientContext> Client::NewContext() const {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + timeout_);
  if (!token_.empty()) context->AddMetadata("authorization", absl::StrCat("Bearer ", token_));
  return context;
}

std::string Client::Describe(const grpc::Status& status) const {
  const std::string message = WithFlagNames(status.error_message());
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      return absl::StrCat("cannot reach cubd at ", server_, ": ",
                          message.empty() ? "unavailable" : message);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
      // gRPC's own text for a call that ran out of time on our side; anything else is the
      // server explaining its refusal.
      if (message.empty() || message == "Deadline Exceeded") {
        return absl::StrCat("no answer from cubd at ", server_, " within ", timeout_.count(), "s");
      }
      return message;
    case grpc::StatusCode::UNIMPLEMENTED:
      if (message.empty()) {
        return absl::StrCat("cubd at ", server_, " does not support this command (UNIMPLEMENTED)");
      }
      return message;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      // gRPC's own refusal of a message over the server's limit, before cubd reads it.
      if (absl::StartsWith(message, "Received message larger than max")) {
        return absl::StrCat("the request is larger than cubd at ", server_,
                            " accepts (its --max-unit-bytes plus 1 MiB): ", message);
      }
      return message;
    default:
      if (message.empty()) {
        // gRPC's code numbers are absl::StatusCode's, and abseil spells them as gRPC does.
        return absl::StrCat(
            absl::StatusCodeToString(static_cast<absl::StatusCode>(status.error_code())),
            " from cubd at ", server_);
      }
      return message;
  }
}

}  // namespace cub::cli
