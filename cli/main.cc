// cub: the command-line client of cubd. Builds the CLI11 App with the global options and every
// command group, parses, runs the selected command, and maps the outcome to an exit code:
// 0 success, 1 refused or failed ("Failed: ..." on stderr), 2 usage error (CLI11's message).
#include <grpc/support/log.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "cli/cmd_context.h"
#include "cli/cmd_freeze.h"
#include "cli/commands.h"
#include "cli/completion.h"
#include "cli/timeout.h"

namespace cub::cli {
namespace {

constexpr char kGlobalsFooter[] =
    "Global options (before or after the command; see cub --help):\n"
    "  --server HOST:PORT  --token T  --tls  --tls-ca FILE  --context NAME\n"
    "  -o, --output table|json|yaml  --json  --jq EXPR  --names  --no-header  --quiet\n"
    "  --timeout DURATION (60, 90s, 2m, 1h)";

void AddGlobalOptions(CLI::App& app, GlobalOptions& g) {
  app.add_option("--server", g.server, "cubd address (default: $CUB_SERVER, else the context's)")
      ->type_name("HOST:PORT");
  app.add_option("--token", g.token, "Bearer token (default: $CUB_TOKEN, else the context's)")
      ->type_name("TOKEN");
  app.add_flag("--tls", g.tls, "Connect with TLS, verifying the server with the system roots");
  app.add_option("--tls-ca", g.tls_ca, "Connect with TLS, verifying the server with this CA bundle")
      ->type_name("FILE");
  app.add_option("--context", g.context,
                 "Use this saved context instead of the current one (for auth login: the name "
                 "to save it under)")
      ->type_name("NAME");
  app.add_option("-o,--output", g.output, "Output format")
      ->type_name("FORMAT")
      ->check(CLI::IsMember({"table", "json", "yaml", "mutations"}))
      ->capture_default_str();
  auto* json = app.add_flag("--json", g.json, "Same as -o json");
  app.add_option("--jq", g.jq,
                 "Print the JSON output through this jq program (strings raw, one result a line)")
      ->type_name("EXPR")
      ->excludes(json);
  app.add_flag("--names", g.names,
               "Print only names: a list's first column, a single object's Slug, Name or ID");
  app.add_flag("--no-header", g.no_header, "Print tables without their header row");
  app.add_flag("--quiet", g.quiet, "Print nothing on success");
  app.add_option_function<std::string>(
         "--timeout",
         [&g](const std::string& text) {
           absl::StatusOr<int> seconds = ParseTimeoutSeconds(text);
           if (!seconds.ok())
             throw CLI::ValidationError("--timeout", std::string(seconds.status().message()));
           g.timeout_seconds = *seconds;
         },
         "Deadline of each call to cubd: seconds (60) or a duration (90s, 2m, 1h), up to 1d")
      ->type_name("DURATION")
      ->default_str("60");
}

// Every group needs a verb, and every command's help points at the global options.
void Finish(CLI::App* app, bool root) {
  for (CLI::App* sub : app->get_subcommands({})) {
    if (!sub->get_subcommands({}).empty()) sub->require_subcommand(1);
    sub->footer(kGlobalsFooter);
    sub->set_help_all_flag();  // --help-all only at the top.
    Finish(sub, false);
  }
  if (root) app->require_subcommand(1);
}

// gRPC logs connection errors (TLS handshakes...) to stderr on its own; the failed call's
// status says the same in our one "Failed:" line. GRPC_VERBOSITY turns its logging back on.
void NoLog(gpr_log_func_args*) {}

int Main(int argc, char** argv) {
  if (std::getenv("GRPC_VERBOSITY") == nullptr) gpr_set_log_function(NoLog);
  Env env;
  CLI::App app("cub: manage Spaces, Units and their promotion through cubd.", "cub");
  app.fallthrough();  // Global options are accepted after the subcommand too.
  app.set_help_all_flag("--help-all", "Print help for every command");
  AddGlobalOptions(app, env.globals);

  AddAuthCommands(app, env);
  AddContextCommands(app, env);
  AddSpaceCommands(app, env);
  AddUnitCommands(app, env);
  AddRevisionCommands(app, env);
  AddTagCommands(app, env);
  AddVariantCommands(app, env);
  AddLinkCommands(app, env);
  AddFilterCommands(app, env);
  AddChangeSetCommands(app, env);
  AddFunctionCommands(app, env);
  AddInvocationCommands(app, env);
  AddChangeWorkflowCommands(app, env);
  AddChangeOrderCommands(app, env);
  AddPromotionCommands(app, env);
  AddEventCommands(app, env);
  AddTargetCommands(app, env);
  AddReleaseCommands(app, env);
  AddServerCommands(app, env);
  AddKeyCommands(app, env);
  AddApprovalCommands(app, env);
  AddFreezeCommands(app, env);
  AddVersionCommand(app, env);
  AddCompletionCommand(app, env);
  Finish(&app, true);

  // `cub --version` (as the last argument) is `cub version`: client and server versions.
  std::vector<std::string> args(argv + 1, argv + argc);
  if (!args.empty() && args.back() == "--version") args.back() = "version";
  std::reverse(args.begin(), args.end());  // CLI11 takes the arguments reversed
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  if (!env.run) return UsageError("A subcommand is required");
  return env.run();
}

}  // namespace
}  // namespace cub::cli

int main(int argc, char** argv) {
  // libcurl is not loaded here: the few commands that speak HTTP load it at their first request
  // (lib/net/curl_api.h), and the rest start without its two dozen libraries.
  return cub::cli::Main(argc, argv);
}
