// `cub key ...`: the public keys cubd trusts for signatures on Releases, records and OCI
// evidence. list: anyone; trust and revoke: a server admin.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/commands.h"
#include "cub/v1/key.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::KeyService;

void AddList(CLI::App* group, Env& env) {
  auto all = std::make_shared<bool>(false);
  CLI::App* cmd =
      group->add_subcommand("list", "List the trusted keys (Current: cubd signs with it)");
  cmd->add_flag("--all", *all, "Include revoked keys");
  OnRun(cmd, env, [&env, all] {
    cub::v1::ListKeysRequest req;
    req.set_all(*all);
    cub::v1::ListKeysResponse resp;
    if (!CallCubd(env, &KeyService::Stub::ListKeys, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::TrustedKey>(
        resp.keys(), {"KEY ID", "ORIGIN", "CURRENT", "STATE", "CREATED", "NOTE"},
        [](const cub::v1::TrustedKey& k) -> std::vector<std::string> {
          return {k.key_id(),
                  k.origin(),
                  k.current() ? "yes" : "",
                  k.revoked_at().empty() ? "Trusted" : absl::StrCat("Revoked ", k.revoked_at()),
                  k.created_at(),
                  k.note()};
        });
  });
}

void AddTrust(CLI::App* group, Env& env) {
  struct Opts {
    std::string file, note;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "trust", "Trust an Ed25519 public key (PEM) for signatures; it never signs (admin)");
  cmd->add_option("--file", o->file, "The public key, SubjectPublicKeyInfo PEM; - reads stdin")
      ->required();
  cmd->add_option("--note", o->note, "Why it is trusted, whose it is");
  OnRun(cmd, env, [&env, o] {
    absl::StatusOr<std::string> pem = ReadInput(o->file);
    if (!pem.ok()) {
      PrintFailure(absl::StrCat("--file: ", pem.status().message()));
      return kExitFailed;
    }
    cub::v1::TrustKeyRequest req;
    req.set_pem(*std::move(pem));
    req.set_note(o->note);
    cub::v1::TrustedKey key;
    if (!CallCubd(env, &KeyService::Stub::TrustKey, req, &key)) return kExitFailed;
    return env.printer().Confirm(key, absl::StrCat("Key ", key.key_id(), " trusted"));
  });
}

void AddRevoke(CLI::App* group, Env& env) {
  struct Opts {
    std::string id, reason;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "revoke",
      "Revoke a key: nothing it signed verifies from then on (admin; not the current key)");
  cmd->add_option("ID", o->id, "Key ID, sha256:<hex> as `cub key list` shows it")->required();
  cmd->add_option("--reason", o->reason, "Why it is revoked");
  OnRun(cmd, env, [&env, o] {
    cub::v1::RevokeKeyRequest req;
    req.set_key_id(o->id);
    req.set_reason(o->reason);
    cub::v1::TrustedKey key;
    if (!CallCubd(env, &KeyService::Stub::RevokeKey, req, &key)) return kExitFailed;
    return env.printer().Confirm(key, absl::StrCat("Key ", key.key_id(), " revoked"));
  });
}

}  // namespace

void AddKeyCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("key", "The public keys signatures are checked against");
  AddList(group, env);
  AddTrust(group, env);
  AddRevoke(group, env);
}

}  // namespace cub::cli
