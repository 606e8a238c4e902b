// Shared plumbing for the cub CLI's command groups. See commands.h.
#include "cli/commands.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "cli/oidc_refresh.h"
#include "cli/space_flag.h"
#include "lib/util/utf8.h"

namespace cub::cli {

void OnRun(CLI::App* sub, Env& env, std::function<int()> fn) {
  sub->callback([&env, sub, fn = std::move(fn)] {
    env.run = [&env, sub, fn] {
      if (int rc = FillSpaceDefault(env, sub); rc != kExitOk) return rc;
      return fn();
    };
  });
}

std::unique_ptr<Client> Connect(const Env& env) {
  absl::StatusOr<Connection> connection = ResolveConnection(env.globals);
  if (!connection.ok()) {
    PrintFailure(connection.status().message());
    return nullptr;
  }
  // A saved OIDC login's ID token that is about to expire is refreshed first.
  if (absl::Status fresh = RefreshIfExpiring(&*connection, absl::Now()); !fresh.ok()) {
    PrintFailure(fresh.message());
    return nullptr;
  }
  auto client = Client::Create(*connection, std::chrono::seconds(env.globals.timeout_seconds));
  if (!client.ok()) {
    PrintFailure(client.status().message());
    return nullptr;
  }
  return *std::move(client);
}

CLI::Option* AddKeyValueFlag(CLI::App* sub, const std::string& flag, std::vector<std::string>* out,
                             const std::string& help) {
  CLI::Validator key_value(
      [](std::string& value) -> std::string {
        const size_t eq = value.find('=');
        if (eq == std::string::npos) return "expected KEY=VALUE, got '" + value + "'";
        if (eq == 0) return "missing KEY in '" + value + "'";
        return "";
      },
      "");
  CLI::Option* opt = sub->add_option(flag, *out, help)
                         ->type_name("KEY=VALUE")
                         ->allow_extra_args(false)
                         ->check(key_value);
  // As in ConfigHub's cub, `--label a=b,c=d` sets two labels (a value cannot hold a comma).
  if (flag == "--label") opt->delimiter(',')->type_name("KEY=VALUE[,KEY=VALUE...]");
  return opt;
}

void PutKeyValues(const std::vector<std::string>& items,
                  google::protobuf::Map<std::string, std::string>* map) {
  for (const std::string& item : items) {
    const size_t eq = item.find('=');
    if (eq == std::string::npos) continue;  // Rejected by the flag's validator.
    (*map)[item.substr(0, eq)] = item.substr(eq + 1);
  }
}

absl::StatusOr<std::string> ReadInput(const std::string& path) {
  const bool is_stdin = path == "-";
  std::FILE* f = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", std::strerror(errno)));
  }
  std::string text;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  if (!is_stdin) std::fclose(f);
  if (failed) {
    return absl::NotFoundError(
        absl::StrCat("cannot read ", is_stdin ? "stdin" : path, ": ", std::strerror(err)));
  }
  // Sent as text, which cannot keep a NUL and must be UTF-8: refuse it here, naming the file.
  const std::string name = is_stdin ? "stdin" : path;
  if (size_t nul = text.find('\0'); nul != std::string::npos) {
    return absl::InvalidArgumentError(absl::StrCat(name, " holds a NUL byte at offset ", nul,
                                                   "; cub stores text, which cannot contain NUL"));
  }
  if (size_t bad = FindInvalidUtf8(text); bad != std::string::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " is not valid UTF-8 at byte offset ", bad, "; cub stores UTF-8 text"));
  }
  return text;
}

int UsageError(absl::string_view message) {
  std::cerr << message << "\nRun with --help for more information." << std::endl;
  return kExitUsage;
}

std::string IdSuffix(const std::string& id) {
  return id.empty() ? "" : absl::StrCat(" (ID ", id, ")");
}

}  // namespace cub::cli
