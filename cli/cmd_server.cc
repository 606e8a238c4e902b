// `cub server ...`: about the server itself.
#include "cli/commands.h"
#include "cub/v1/release.grpc.pb.h"

namespace cub::cli {

using cub::v1::ServerService;

void AddServerCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("server", "About the server itself");
  CLI::App* cmd = group->add_subcommand(
      "public-key", "Print the public key the server signs Releases and records with (PEM)");
  OnRun(cmd, env, [&env] {
    cub::v1::PublicKey key;
    if (!CallCubd(env, &ServerService::Stub::GetPublicKey, cub::v1::GetPublicKeyRequest(), &key)) {
      return kExitFailed;
    }
    const Printer printer = env.printer();
    if (!printer.table()) return printer.Document(key);
    return printer.Text(key.pem());
  });
}

}  // namespace cub::cli
