// `cub auth login|whoami` and `cub whoami`: checking a token against cubd, saving it as a
// context in the config file, and showing who the current token belongs to.
#include <cstdlib>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/config.h"
#include "cub/v1/auth.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::AuthService;

std::string EnvOr(const std::string& flag, const char* name) {
  if (!flag.empty()) return flag;
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// A CA path saved in the config must work from any directory.
std::string Absolute(const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return path;  // Reading it fails below with a clear message.
  std::string out = resolved;
  std::free(resolved);
  return out;
}

int Login(const Env& env) {
  const GlobalOptions& g = env.globals;
  Connection c;
  c.server = EnvOr(g.server, "CUB_SERVER");
  c.token = EnvOr(g.token, "CUB_TOKEN");
  c.tls_ca = Absolute(g.tls_ca);
  c.tls = g.tls;
  if (c.server.empty()) {
    PrintFailure("no server: pass --server or set CUB_SERVER");
    return kExitFailed;
  }
  if (c.token.empty()) {
    PrintFailure("no token: pass --token or set CUB_TOKEN");
    return kExitFailed;
  }
  const std::string path = ConfigPath();
  absl::StatusOr<CliConfig> config = LoadConfig(path);
  if (!config.ok()) {
    PrintFailure(config.status().message());
    return kExitFailed;
  }
  const std::string name = g.context.empty() ? c.server : g.context;
  // Logging in again (a new token) keeps the context's TLS settings unless new ones are given.
  if (auto it = config->contexts.find(name);
      it != config->contexts.end() && it->second.server == c.server && c.tls_ca.empty() && !c.tls) {
    c.tls_ca = it->second.tls_ca;
    c.tls = it->second.tls;
  }

  auto client = Client::Create(c, std::chrono::seconds(g.timeout_seconds));
  if (!client.ok()) {
    PrintFailure(client.status().message());
    return kExitFailed;
  }
  cub::v1::WhoAmIResponse who;
  if (!(*client)->Call(&AuthService::Stub::WhoAmI, cub::v1::WhoAmIRequest(), &who)) {
    return kExitFailed;
  }

  config->contexts[name] = ContextConfig{c.server, c.token, c.tls_ca, c.tls && c.tls_ca.empty()};
  config->current_context = name;
  if (absl::Status saved = SaveConfig(path, *config); !saved.ok()) {
    PrintFailure(saved.message());
    return kExitFailed;
  }
  return env.printer().Confirm(
      who, absl::StrCat("Logged in to ", c.server, " as ", who.user().username()));
}

int WhoAmI(const Env& env) {
  cub::v1::WhoAmIResponse who;
  if (!CallCubd(env, &AuthService::Stub::WhoAmI, cub::v1::WhoAmIRequest(), &who)) {
    return kExitFailed;
  }
  return env.printer().Fields(who, who.user());
}

}  // namespace

void AddAuthCommands(CLI::App& app, Env& env) {
  CLI::App* auth = app.add_subcommand("auth", "Log in to cubd and show the current identity");

  CLI::App* login = auth->add_subcommand(
      "login",
      "Check a token with cubd, save server and token as a context and make it current.\n"
      "Takes --server and --token (or CUB_SERVER/CUB_TOKEN), optionally --tls or --tls-ca;\n"
      "--context names the context (default: the server address).");
  OnRun(login, env, [&env] { return Login(env); });

  const char* whoami_help = "Show the user the token belongs to: name, ID, groups, kind";
  CLI::App* who = auth->add_subcommand("whoami", whoami_help);
  OnRun(who, env, [&env] { return WhoAmI(env); });
  CLI::App* top_who = app.add_subcommand("whoami", whoami_help);
  OnRun(top_who, env, [&env] { return WhoAmI(env); });

  AddAuthTokenCommands(auth, env);
}

}  // namespace cub::cli
