// `cub auth login|whoami` and `cub whoami`: checking a token against cubd (or logging in at an
// OpenID provider cubd trusts), saving it as a context in the config file, and showing who the
// current token belongs to.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "cli/commands.h"
#include "cli/config.h"
#include "cli/oidc_browser.h"
#include "cli/oidc_login.h"
#include "cub/v1/auth.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::AuthService;

// The flags of `cub auth login` beyond the global ones.
struct LoginFlags {
  bool oidc = false;
  std::string oidc_issuer;
  bool device = false;
  bool browser = false;
  bool use = false;
  std::string oidc_ca_file;
};

// How long the browser flow waits for the browser to come back.
constexpr absl::Duration kBrowserTimeout = absl::Minutes(5);

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

// The connection `cub auth login` checks: --server/CUB_SERVER and the TLS flags, with the TLS
// settings of the context being replaced when none are given and the server is the same.
absl::StatusOr<Connection> LoginConnection(const GlobalOptions& g, const CliConfig& config,
                                           const std::string& name) {
  Connection c;
  c.server = EnvOr(g.server, "CUB_SERVER");
  c.tls_ca = Absolute(g.tls_ca);
  c.tls = g.tls;
  if (c.server.empty()) {
    return absl::InvalidArgumentError("no server: pass --server or set CUB_SERVER");
  }
  if (auto it = config.contexts.find(name.empty() ? c.server : name);
      it != config.contexts.end() && it->second.server == c.server && c.tls_ca.empty() && !c.tls) {
    c.tls_ca = it->second.tls_ca;
    c.tls = it->second.tls;
  }
  return c;
}

// Saves `ctx` as context `name`, keeping the Space an earlier `cub context set` gave it, under the
// config's lock (another cub process may have written the file since it was read: a refresh of
// another context). The first context becomes current; a later one only with --use (or if it
// already was). Returns the current context's name afterwards.
absl::StatusOr<std::string> SaveLogin(const std::string& path, const std::string& name,
                                      ContextConfig ctx, bool use) {
  std::string current;
  absl::Status saved = UpdateConfig(path, [&](CliConfig& now) -> absl::StatusOr<bool> {
    if (auto it = now.contexts.find(name); it != now.contexts.end()) ctx.space = it->second.space;
    now.contexts[name] = ctx;
    if (use || now.current_context.empty()) now.current_context = name;
    current = now.current_context;
    return true;
  });
  if (!saved.ok()) return saved;
  return current;
}

// "; saved as context N (current)" or "; saved as context N, the current context is still C
// (cub context use N to switch)".
std::string SavedAs(const std::string& name, const std::string& current) {
  if (name == current) return absl::StrCat("; saved as context ", name, " (current)");
  return absl::StrCat("; saved as context ", name, ", the current context is still ", current,
                      " (cub context use ", name, " to switch)");
}

int TokenLogin(const Env& env, bool use) {
  const GlobalOptions& g = env.globals;
  const std::string path = ConfigPath();
  absl::StatusOr<CliConfig> config = LoadConfig(path);
  if (!config.ok()) {
    PrintFailure(config.status().message());
    return kExitFailed;
  }
  absl::StatusOr<Connection> c = LoginConnection(g, *config, g.context);
  if (!c.ok()) {
    PrintFailure(c.status().message());
    return kExitFailed;
  }
  c->token = EnvOr(g.token, "CUB_TOKEN");
  if (c->token.empty()) {
    PrintFailure("no token: pass --token or set CUB_TOKEN (or log in with --oidc)");
    return kExitFailed;
  }
  const std::string name = g.context.empty() ? c->server : g.context;
  auto client = Client::Create(*c, std::chrono::seconds(g.timeout_seconds));
  if (!client.ok()) {
    PrintFailure(client.status().message());
    return kExitFailed;
  }
  cub::v1::WhoAmIResponse who;
  if (!(*client)->Call(&AuthService::Stub::WhoAmI, cub::v1::WhoAmIRequest(), &who)) {
    return kExitFailed;
  }

  ContextConfig ctx{c->server, c->token, c->tls_ca, c->tls && c->tls_ca.empty()};
  ctx.user = who.user().username();
  absl::StatusOr<std::string> current = SaveLogin(path, name, ctx, use);
  if (!current.ok()) {
    PrintFailure(current.status().message());
    return kExitFailed;
  }
  return env.printer().Confirm(who, absl::StrCat("Logged in to ", c->server, " as ",
                                                 who.user().username(), SavedAs(name, *current)));
}

// The issuer to log in at, from cubd's login config and --oidc-issuer.
absl::StatusOr<cub::v1::LoginIssuer> ChooseIssuer(const cub::v1::GetLoginConfigResponse& login,
                                                  const std::string& server,
                                                  const std::string& wanted) {
  std::vector<std::string> names;
  for (const auto& i : login.issuers()) names.push_back(i.issuer());
  if (names.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cubd at ", server,
        " trusts no OpenID provider (it runs without --oidc-issuer): log in with --token"));
  }
  if (wanted.empty()) {
    if (names.size() == 1) return login.issuers(0);
    return absl::InvalidArgumentError(
        absl::StrCat("cubd at ", server, " trusts several OpenID providers (",
                     absl::StrJoin(names, ", "), "): choose one with --oidc-issuer"));
  }
  for (const auto& i : login.issuers()) {
    if (absl::StripSuffix(i.issuer(), "/") == absl::StripSuffix(wanted, "/")) return i;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("--oidc-issuer ", wanted, " is not an issuer cubd at ", server,
                   " trusts; it trusts: ", absl::StrJoin(names, ", ")));
}

// Which provider to log in at and as which client: cubd's GetLoginConfig (asked without a
// token: it is public) and --oidc-issuer. A failed call has already printed its failure and
// is returned with an empty message.
absl::StatusOr<oidc::LoginClient> LoginClientFor(const Connection& c, std::chrono::seconds timeout,
                                                 const std::string& wanted) {
  auto anonymous = Client::Create(c, timeout);
  if (!anonymous.ok()) return anonymous.status();
  cub::v1::GetLoginConfigResponse login_config;
  if (!(*anonymous)
           ->Call(&AuthService::Stub::GetLoginConfig, cub::v1::GetLoginConfigRequest(),
                  &login_config)) {
    return absl::UnavailableError("");
  }
  absl::StatusOr<cub::v1::LoginIssuer> issuer = ChooseIssuer(login_config, c.server, wanted);
  if (!issuer.ok()) return issuer.status();
  oidc::LoginClient client;
  client.issuer = issuer->issuer();
  client.client_id = issuer->client_id();
  client.scopes.assign(issuer->scopes().begin(), issuer->scopes().end());
  return client;
}

// Whether the browser flow fits: asked for, or a browser or display is at hand.
bool UseBrowser(const LoginFlags& flags) {
  if (flags.browser || flags.device) return flags.browser;
  for (const char* name : {"BROWSER", "DISPLAY", "WAYLAND_DISPLAY"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && *v != '\0') return true;
  }
  return false;
}

int OidcLogin(const Env& env, const LoginFlags& flags) {
  const GlobalOptions& g = env.globals;
  if (!g.token.empty()) {
    return UsageError("--token and --oidc exclude each other: --oidc logs in at the provider");
  }
  if (flags.device && flags.browser) {
    return UsageError("--device and --browser exclude each other");
  }
  const std::string path = ConfigPath();
  absl::StatusOr<CliConfig> config = LoadConfig(path);
  if (!config.ok()) {
    PrintFailure(config.status().message());
    return kExitFailed;
  }
  absl::StatusOr<Connection> c = LoginConnection(g, *config, g.context);
  if (!c.ok()) {
    PrintFailure(c.status().message());
    return kExitFailed;
  }
  const std::string name = g.context.empty() ? c->server : g.context;
  const auto timeout = std::chrono::seconds(g.timeout_seconds);

  absl::StatusOr<oidc::LoginClient> client = LoginClientFor(*c, timeout, flags.oidc_issuer);
  if (!client.ok()) {
    if (!client.status().message().empty()) PrintFailure(client.status().message());
    return kExitFailed;
  }
  client->ca_file = Absolute(flags.oidc_ca_file);
  absl::StatusOr<oidc::ProviderEndpoints> endpoints = oidc::Discover(*client);
  if (!endpoints.ok()) {
    PrintFailure(endpoints.status().message());
    return kExitFailed;
  }
  absl::StatusOr<oidc::Tokens> tokens =
      UseBrowser(flags) ? oidc::BrowserLogin(*endpoints, *client, kBrowserTimeout)
                        : oidc::DeviceLogin(*endpoints, *client);
  if (!tokens.ok()) {
    PrintFailure(tokens.status().message());
    return kExitFailed;
  }

  c->token = tokens->id_token;
  auto authed = Client::Create(*c, timeout);
  if (!authed.ok()) {
    PrintFailure(authed.status().message());
    return kExitFailed;
  }
  cub::v1::WhoAmIResponse who;
  if (!(*authed)->Call(&AuthService::Stub::WhoAmI, cub::v1::WhoAmIRequest(), &who)) {
    return kExitFailed;
  }

  ContextConfig ctx{c->server, tokens->id_token, c->tls_ca, c->tls && c->tls_ca.empty()};
  ctx.oidc_issuer = client->issuer;
  ctx.oidc_client_id = client->client_id;
  ctx.refresh_token = tokens->refresh_token;
  ctx.oidc_ca_file = client->ca_file;
  ctx.user = who.user().username();
  // The login took a while: SaveLogin re-reads the file under its lock.
  absl::StatusOr<std::string> current = SaveLogin(path, name, ctx, flags.use);
  if (!current.ok()) {
    PrintFailure(current.status().message());
    return kExitFailed;
  }
  return env.printer().Confirm(
      who, absl::StrCat("Logged in to ", c->server, " as ", who.user().username(), " (issuer ",
                        client->issuer, ")", SavedAs(name, *current)));
}

int Login(const Env& env, const LoginFlags& flags) {
  if (!flags.oidc) {
    if (flags.device || flags.browser || !flags.oidc_issuer.empty() ||
        !flags.oidc_ca_file.empty()) {
      return UsageError("--device, --browser, --oidc-issuer and --oidc-ca-file go with --oidc");
    }
    return TokenLogin(env, flags.use);
  }
  return OidcLogin(env, flags);
}

int WhoAmI(const Env& env) {
  cub::v1::WhoAmIResponse who;
  if (!CallCubd(env, &AuthService::Stub::WhoAmI, cub::v1::WhoAmIRequest(), &who)) {
    return kExitFailed;
  }
  if (!env.printer().table()) return env.printer().Fields(who);
  const cub::v1::User& u = who.user();
  Table t{{"FIELD", "VALUE"},
          {{"Username", u.username()},
           {"UserID", u.user_id()},
           {"Issuer", u.issuer()},
           {"Subject", u.subject()},
           {"Email", u.email()},
           {"Groups", absl::StrJoin(u.groups(), ", ")},
           {"Admin", u.admin() ? "true" : "false"},
           {"ServiceAccount", u.service_account() ? "true" : "false"},
           {"AuthenticatedBy", who.authenticated_by()},
           {"ExpiresAt", who.expires_at()}}};
  std::string text = t.Render();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  return env.printer().Confirm(who, text);
}

}  // namespace

void AddAuthCommands(CLI::App& app, Env& env) {
  CLI::App* auth = app.add_subcommand("auth", "Log in to cubd and show the current identity");

  auto flags = std::make_shared<LoginFlags>();
  CLI::App* login = auth->add_subcommand(
      "login",
      "Check a token with cubd and save server and token as a context.\n"
      "Takes --server and --token (or CUB_SERVER/CUB_TOKEN), optionally --tls or --tls-ca;\n"
      "--context names the context (default: the server address).\n"
      "With --oidc, logs in at an OpenID provider cubd trusts instead (device code, or a\n"
      "browser when one is at hand) and keeps the refresh token.\n"
      "The context becomes current only if there is none yet or --use is given.");
  login->add_flag("--oidc", flags->oidc, "Log in at an OpenID provider cubd trusts");
  login->add_option("--oidc-issuer", flags->oidc_issuer,
                    "The provider to log in at, when cubd trusts several");
  login->add_flag("--device", flags->device,
                  "Device code login: a code to enter in a browser anywhere");
  login->add_flag("--browser", flags->browser,
                  "Browser login ($BROWSER or xdg-open) with a redirect to 127.0.0.1");
  login->add_option("--oidc-ca-file", flags->oidc_ca_file,
                    "PEM bundle to verify the provider's TLS with (saved for refreshes)");
  login->add_flag("--use", flags->use, "Make the context current even if another one is");
  OnRun(login, env, [&env, flags] { return Login(env, *flags); });

  const char* whoami_help =
      "Show who the token belongs to: name, ID, issuer, subject, email, groups, kind, expiry";
  CLI::App* who = auth->add_subcommand("whoami", whoami_help);
  OnRun(who, env, [&env] { return WhoAmI(env); });
  CLI::App* top_who = app.add_subcommand("whoami", whoami_help);
  OnRun(top_who, env, [&env] { return WhoAmI(env); });

  AddAuthTokenCommands(auth, env);
}

}  // namespace cub::cli
