// `cub auth token create|list|revoke`: the caller's own API tokens (a server admin: anyone's).
// The secret is printed once, by create; cubd keeps only its hash.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cub/v1/auth.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::AuthService;
using cub::v1::Token;

// Times in the table to the second: "2026-12-01T20:30:00Z".
std::string ToSecond(const std::string& t) {
  const size_t dot = t.find('.');
  return dot == std::string::npos ? t : absl::StrCat(t.substr(0, dot), "Z");
}

void AddCreate(CLI::App* group, Env& env) {
  auto req = std::make_shared<cub::v1::CreateTokenRequest>();
  CLI::App* cmd = group->add_subcommand(
      "create", "Create a token for yourself and print it (shown only this once)");
  cmd->add_option_function<std::string>(
         "--expires-in", [req](const std::string& v) { req->set_expires_in(v); },
         "How long it lives: 30d, 12h, 90m (default: the server's, 90d unless configured)")
      ->type_name("DURATION");
  cmd->add_option_function<std::string>(
      "--description", [req](const std::string& v) { req->set_description(v); },
      "What it is for (one line, at most 256 bytes)");
  OnRun(cmd, env, [&env, req] {
    cub::v1::CreateTokenResponse resp;
    if (!CallCubd(env, &AuthService::Stub::CreateToken, *req, &resp)) return kExitFailed;
    const Printer printer = env.printer();
    if (!printer.table()) return printer.Document(resp);
    return printer.Text(absl::StrCat(
        resp.secret(), "\n", "token ", resp.token().token_id(), " for ", resp.token().username(),
        " expires at ", ToSecond(resp.token().expires_at()), "; it is shown only this once\n"));
  });
}

void AddList(CLI::App* group, Env& env) {
  auto req = std::make_shared<cub::v1::ListTokensRequest>();
  CLI::App* cmd = group->add_subcommand(
      "list", "List your tokens, newest first (active ones unless --include-inactive)");
  auto* user = cmd->add_option_function<std::string>(
      "--user", [req](const std::string& v) { req->set_user(v); },
      "Another user's tokens (server admins only)");
  cmd->add_flag_function(
         "--all", [req](int64_t) { req->set_user("*"); }, "Everyone's tokens (server admins only)")
      ->excludes(user);
  cmd->add_flag_function(
      "--include-inactive", [req](int64_t) { req->set_include_inactive(true); },
      "Also expired and revoked tokens");
  OnRun(cmd, env, [&env, req] {
    cub::v1::ListTokensResponse resp;
    if (!CallCubd(env, &AuthService::Stub::ListTokens, *req, &resp)) return kExitFailed;
    return env.printer().List<Token>(
        resp.tokens(), {"ID", "USER", "DESCRIPTION", "CREATED", "EXPIRES", "STATE"},
        [](const Token& t) -> std::vector<std::string> {
          std::string state = t.state();
          if (!t.revoked_at().empty()) {
            absl::StrAppend(&state, " ", ToSecond(t.revoked_at()),
                            t.revoked_by().empty() ? "" : absl::StrCat(" by ", t.revoked_by()));
          }
          return {t.token_id(),
                  t.username(),
                  t.description(),
                  ToSecond(t.created_at()),
                  ToSecond(t.expires_at()),
                  state};
        });
  });
}

void AddRevoke(CLI::App* group, Env& env) {
  auto req = std::make_shared<cub::v1::RevokeTokenRequest>();
  CLI::App* cmd = group->add_subcommand(
      "revoke", "Revoke a token (yours; a server admin: anyone's): it is refused from now on");
  cmd->add_option_function<std::string>(
         "id", [req](const std::string& v) { req->set_token_id(v); },
         "The token's ID, as `cub auth token list` shows it")
      ->required();
  OnRun(cmd, env, [&env, req] {
    cub::v1::RevokeTokenResponse resp;
    if (!CallCubd(env, &AuthService::Stub::RevokeToken, *req, &resp)) return kExitFailed;
    return env.printer().Confirm(
        resp, absl::StrCat("Revoked token ", resp.token().token_id(), " of ",
                           resp.token().username(), " at ", ToSecond(resp.token().revoked_at())));
  });
}

}  // namespace

void AddAuthTokenCommands(CLI::App* auth, Env& env) {
  CLI::App* group = auth->add_subcommand(
      "token", "Create, list and revoke cub API tokens (each expires; see docs/operations.md)");
  AddCreate(group, env);
  AddList(group, env);
  AddRevoke(group, env);
}

}  // namespace cub::cli
