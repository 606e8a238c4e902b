// `cub version` (also `cub --version`): this client's version and the server's, asked with
// VersionService/GetVersion (no token needed). The client's line is printed even when the
// server cannot be reached; the command then fails.
#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cub/v1/version.grpc.pb.h"
#include "lib/util/version.h"

namespace cub::cli {

void AddVersionCommand(CLI::App& app, Env& env) {
  CLI::App* cmd = app.add_subcommand("version", "Print the versions of cub and of the server");
  OnRun(cmd, env, [&env] {
    const Printer printer = env.printer();
    cub::v1::ServerVersion server;
    std::unique_ptr<Client> client = Connect(env);
    const bool ok = client != nullptr && client->Call(&cub::v1::VersionService::Stub::GetVersion,
                                                      cub::v1::GetVersionRequest(), &server);
    if (printer.table()) {
      printer.Text(absl::StrCat("Client: ", CubVersion(), "\n"));
      if (ok) printer.Text(absl::StrCat("Server: ", server.version(), "\n"));
    } else if (ok) {
      // {"Client": ..., "Server": ...} through the usual JSON/YAML (and --jq) path.
      return printer.RawJson(absl::StrCat(R"({"Client":")", CubVersion(), R"(","Server":")",
                                          server.version(), R"("})"));
    }
    return ok ? kExitOk : kExitFailed;
  });
}

}  // namespace cub::cli
