// `cub context list|current|use|set|delete`: the contexts of the config file (config.h), as
// kubectl's `config get-contexts|current-context|use-context|set-context`. Every change goes
// through UpdateConfig: under the file's lock, re-read, written atomically. Nothing here talks
// to cubd; tokens are never printed.
#include "cli/cmd_context.h"

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cli/config.h"
#include "cli/contexts.h"
#include "lib/util/json.h"

namespace cub::cli {
namespace {

// "oidc", "token" or "none": how the context authenticates.
std::string AuthKind(const ContextConfig& c) {
  if (!c.oidc_issuer.empty()) return "oidc";
  return c.token.empty() ? "none" : "token";
}

std::string OrDash(const std::string& s) { return s.empty() ? "-" : s; }

// The config file, or "Failed: ..." printed and nullopt.
std::optional<CliConfig> Load(const std::string& path) {
  absl::StatusOr<CliConfig> config = LoadConfig(path);
  if (!config.ok()) {
    PrintFailure(config.status().message());
    return std::nullopt;
  }
  return *std::move(config);
}

int List(const Env& env) {
  std::optional<CliConfig> config = Load(ConfigPath());
  if (!config) return kExitFailed;
  Printer printer = env.printer();
  if (!printer.table() && !printer.options().names) {
    Json all = Json::array();
    for (const auto& [name, c] : config->contexts) {
      all.push_back({{"Name", name},
                     {"Current", name == config->current_context},
                     {"Server", c.server},
                     {"Space", c.space},
                     {"User", c.user},
                     {"Auth", AuthKind(c)},
                     {"OidcIssuer", c.oidc_issuer},
                     {"TlsCa", c.tls_ca},
                     {"Tls", c.tls}});
    }
    return printer.RawJson(JsonText(all));
  }
  Table t{{"CURRENT", "NAME", "SERVER", "SPACE", "USER", "AUTH"}, {}};
  if (printer.options().names) t.header = {"NAME"};
  for (const auto& [name, c] : config->contexts) {
    if (printer.options().names) {
      t.rows.push_back({name});
      continue;
    }
    t.rows.push_back({name == config->current_context ? "*" : "", name, c.server, OrDash(c.space),
                      OrDash(c.user), AuthKind(c)});
  }
  return printer.Rows(t);
}

int Current(const Env& env) {
  std::optional<CliConfig> config = Load(ConfigPath());
  if (!config) return kExitFailed;
  if (config->current_context.empty()) {
    PrintFailure("no current context (cub context use NAME, or cub auth login)");
    return kExitFailed;
  }
  return env.printer().Text(config->current_context + "\n");
}

int Use(const Env& env, const std::string& name) {
  const std::string path = ConfigPath();
  absl::Status saved = UpdateConfig(path, [&](CliConfig& now) -> absl::StatusOr<bool> {
    if (now.contexts.count(name) == 0) return UnknownContext(now, name, path);
    now.current_context = name;
    return true;
  });
  if (!saved.ok()) {
    PrintFailure(saved.message());
    return kExitFailed;
  }
  return env.printer().Text(absl::StrCat("Switched to context ", name, "\n"));
}

int Delete(const Env& env, const std::string& name) {
  const std::string path = ConfigPath();
  bool was_current = false;
  absl::Status saved = UpdateConfig(path, [&](CliConfig& now) -> absl::StatusOr<bool> {
    if (now.contexts.count(name) == 0) return UnknownContext(now, name, path);
    now.contexts.erase(name);
    was_current = now.current_context == name;
    if (was_current) now.current_context.clear();
    return true;
  });
  if (!saved.ok()) {
    PrintFailure(saved.message());
    return kExitFailed;
  }
  return env.printer().Text(absl::StrCat(
      "Context ", name, " deleted",
      was_current ? "; there is no current context now (cub context use NAME)" : "", "\n"));
}

// `cub context set`'s own flags; --server, --tls and --tls-ca are the global ones.
struct SetFlags {
  std::string name, space;
  bool space_given = false;
};

// A CA path saved in the config must work from any directory.
std::string Absolute(const std::string& path) {
  if (path.empty() || path.front() == '/') return path;
  char* resolved = ::realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return path;
  std::string out = resolved;
  std::free(resolved);
  return out;
}

// Applies the flags to context `c` (new when `created`); false when nothing changes. A new
// server drops the saved login: its token is a secret for the old server only.
absl::StatusOr<bool> ApplySet(const Env& env, const SetFlags& f, bool created, ContextConfig& c,
                              bool* dropped_login) {
  const GlobalOptions& g = env.globals;
  if (created && g.server.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("context ", f.name, " is new: give its --server ADDR"));
  }
  const ContextConfig before = c;
  if (!g.server.empty() && g.server != c.server) {
    *dropped_login = !created && (!c.token.empty() || !c.refresh_token.empty());
    c = ContextConfig{};
    c.server = g.server;
    c.space = before.space;
    c.tls = before.tls;
    c.tls_ca = before.tls_ca;
  }
  if (!g.tls_ca.empty()) c.tls_ca = Absolute(g.tls_ca);
  if (g.tls) c.tls = true;
  if (f.space_given) c.space = f.space;
  return created || c.server != before.server || c.tls_ca != before.tls_ca || c.tls != before.tls ||
         c.space != before.space;
}

int Set(const Env& env, SetFlags f) {
  if (!env.globals.token.empty()) {
    return UsageError("cub context set takes no --token: cub auth login saves one");
  }
  const std::string path = ConfigPath();
  bool created = false, changed = false, dropped_login = false;
  std::string current;
  absl::Status saved = UpdateConfig(path, [&](CliConfig& now) -> absl::StatusOr<bool> {
    if (f.name.empty()) f.name = now.current_context;
    if (f.name.empty()) {
      return absl::InvalidArgumentError("no NAME given and there is no current context");
    }
    created = now.contexts.count(f.name) == 0;
    absl::StatusOr<bool> applied = ApplySet(env, f, created, now.contexts[f.name], &dropped_login);
    if (!applied.ok()) return applied.status();
    changed = *applied;
    if (now.current_context.empty()) now.current_context = f.name;
    current = now.current_context;
    return changed;
  });
  if (!saved.ok()) {
    PrintFailure(saved.message());
    return kExitFailed;
  }
  std::string line = absl::StrCat("Context ", f.name,
                                  created ? " created" : (changed ? " updated" : " unchanged"));
  if (dropped_login) absl::StrAppend(&line, "; its login was for the old server: cub auth login");
  absl::StrAppend(&line, current == f.name ? " (current)" : "", "\n");
  return env.printer().Text(line);
}

}  // namespace

void AddContextCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand(
      "context", "Saved contexts (server, login, default Space) in the config file");
  CLI::App* list = group->add_subcommand(
      "list", "List the contexts: current marker, name, server, Space, user, kind of login");
  OnRun(list, env, [&env] { return List(env); });
  CLI::App* current = group->add_subcommand("current", "Print the current context's name");
  OnRun(current, env, [&env] { return Current(env); });

  auto name = std::make_shared<std::string>();
  CLI::App* use = group->add_subcommand("use", "Make a context the current one");
  use->add_option("NAME", *name, "Context name")->required();
  OnRun(use, env, [&env, name] { return Use(env, *name); });
  CLI::App* del = group->add_subcommand("delete", "Remove a context (and its saved login)");
  del->add_option("NAME", *name, "Context name")->required();
  OnRun(del, env, [&env, name] { return Delete(env, *name); });

  auto flags = std::make_shared<SetFlags>();
  CLI::App* set = group->add_subcommand(
      "set",
      "Create or change a context: its Space (the default --space), --server, --tls, --tls-ca.\n"
      "NAME defaults to the current context; the first context becomes current.\n"
      "A new --server drops the context's login (cub auth login again).");
  set->add_option("NAME", flags->name, "Context name (default: the current one)");
  set->add_option("--space", flags->space, "Default Space of the context (\"\" removes it)")
      ->type_name("SPACE")
      ->each([flags](const std::string&) { flags->space_given = true; });
  OnRun(set, env, [&env, flags] { return Set(env, *flags); });
}

}  // namespace cub::cli
