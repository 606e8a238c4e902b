// Plumbing shared by the cub CLI's command groups (cmd_*.cc): how a subcommand registers the
// work it does, the repeatable KEY=VALUE flags, reading a FILE argument or stdin, and the
// usage-error exit. Each cmd_*.cc file defines one Add*Commands function that adds its group
// to the root App; main.cc calls them all.
//
// Exit codes: 0 success, 1 refused or failed (one "Failed: ..." line on stderr), 2 usage error.
#ifndef CUB_CLI_COMMANDS_H_
#define CUB_CLI_COMMANDS_H_

#include <google/protobuf/map.h>

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/client.h"
#include "cli/output.h"

namespace cub::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

// State shared by all commands of one invocation. Leaf subcommands set `run` from their
// callback (which CLI11 calls after a successful parse); main then calls it.
struct Env {
  GlobalOptions globals;
  std::function<int()> run;

  Printer printer() const {
    return Printer(ParseFormat(globals.json ? "json" : globals.output), globals.quiet,
                   PrintOptions{globals.jq, globals.names, globals.no_header});
  }
};

// Makes `sub` a leaf command whose work is `fn`, run after parsing completes.
void OnRun(CLI::App* sub, Env& env, std::function<int()> fn);

// Resolves the connection, refreshes a saved OIDC login's ID token when it is about to expire
// (RefreshIfExpiring) and creates the client; on failure prints "Failed: ..." and returns
// nullptr (exit code 1).
std::unique_ptr<Client> Connect(const Env& env);

// The connect-and-call every command makes: connects (Connect above), then calls `method`
// (e.g. &cub::v1::SpaceService::Stub::GetSpace) with `request` through Client::Call, which
// adds the bearer token and the deadline and checks the request's text first. Returns true
// with `*response` filled; otherwise "Failed: ..." is on stderr and the command exits with
// kExitFailed. Printing the response is the caller's.
template <typename Stub, typename Request, typename Response>
bool CallCubd(const Env& env,
              grpc::Status (Stub::*method)(grpc::ClientContext*, const Request&, Response*),
              const Request& request, Response* response) {
  std::unique_ptr<Client> client = Connect(env);
  return client != nullptr && client->Call(method, request, response);
}

// Adds a repeatable `flag` (e.g. "--label") taking KEY=VALUE; a value without '=' is a usage
// error naming the flag. One value per occurrence, so it never swallows positional arguments;
// for "--label" that value may list several, comma-separated (`--label a=b,c=d`).
CLI::Option* AddKeyValueFlag(CLI::App* sub, const std::string& flag, std::vector<std::string>* out,
                             const std::string& help);

// Splits KEY=VALUE items (already validated) into `map`; a later key wins.
void PutKeyValues(const std::vector<std::string>& items,
                  google::protobuf::Map<std::string, std::string>* map);

// Reads a FILE argument: "-" is stdin. Errors read "cannot read FILE: <reason>"; a file that
// is not text (a NUL byte, invalid UTF-8) is refused naming the file and the offset.
absl::StatusOr<std::string> ReadInput(const std::string& path);

// Prints `message` and the --help hint on stderr as CLI11 does, and returns kExitUsage.
int UsageError(absl::string_view message);

// "ID ..." helper for confirmation lines: "(ID <id>)" or "" when the id is empty.
std::string IdSuffix(const std::string& id);

// Command groups.
void AddAuthCommands(CLI::App& app, Env& env);
// `auth token`, into the auth group (AddAuthCommands calls it).
void AddAuthTokenCommands(CLI::App* auth, Env& env);
void AddSpaceCommands(CLI::App& app, Env& env);
void AddUnitCommands(CLI::App& app, Env& env);
void AddRevisionCommands(CLI::App& app, Env& env);
void AddTagCommands(CLI::App& app, Env& env);
void AddVariantCommands(CLI::App& app, Env& env);
// `variant create`, into the variant group (AddVariantCommands calls it).
void AddVariantCreateCommand(CLI::App* variant, Env& env);
void AddLinkCommands(CLI::App& app, Env& env);
void AddFilterCommands(CLI::App& app, Env& env);
void AddChangeSetCommands(CLI::App& app, Env& env);
void AddFunctionCommands(CLI::App& app, Env& env);
void AddInvocationCommands(CLI::App& app, Env& env);
void AddChangeWorkflowCommands(CLI::App& app, Env& env);
void AddChangeOrderCommands(CLI::App& app, Env& env);
// `changeorder records`, into the changeorder group (AddChangeOrderCommands calls it).
void AddChangeOrderRecordsCommand(CLI::App* changeorder, Env& env);
// `promotion` (queued promotions) and `event` (the event log).
void AddPromotionCommands(CLI::App& app, Env& env);
void AddEventCommands(CLI::App& app, Env& env);
// `target`, `release` and `server`.
void AddReleaseCommands(CLI::App& app, Env& env);
// `release applications`, into the release group (AddReleaseCommands calls it).
void AddReleaseApplicationsCommand(CLI::App* release, Env& env);
void AddTargetCommands(CLI::App& app, Env& env);
void AddServerCommands(CLI::App& app, Env& env);
// `key`: the trusted keys.
void AddKeyCommands(CLI::App& app, Env& env);
// `variant approve` (after AddVariantCommands) and `attestation`.
void AddApprovalCommands(CLI::App& app, Env& env);
// `version` (cmd_version.cc).
void AddVersionCommand(CLI::App& app, Env& env);

}  // namespace cub::cli

#endif  // CUB_CLI_COMMANDS_H_
