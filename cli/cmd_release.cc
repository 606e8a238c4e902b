// `cub target ...`, `cub release ...` and `cub server public-key`: where a Space's Releases go,
// publishing and rolling back, the live status a GitOps operator reports, the deployment
// history, and checking the signed records.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cub/v1/release.grpc.pb.h"
#include "lib/domain/vocabulary.h"

namespace cub::cli {
namespace {

using cub::v1::ReleaseService;
using cub::v1::ServerService;
using cub::v1::TargetService;

std::string Params(const google::protobuf::Map<std::string, std::string>& params) {
  std::vector<std::string> out;
  std::map<std::string, std::string> sorted(params.begin(), params.end());
  for (const auto& [k, v] : sorted) out.push_back(absl::StrCat(k, "=", v));
  return absl::StrJoin(out, ",");
}

void AddTargetCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("target", "Manage release Targets (where Releases go)");
  {
    struct Opts {
      std::string space, name, provider;
      std::vector<std::string> params;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand("create", "Create a Target");
    cmd->add_option("--space", o->space, "Space to keep the Target in")->required();
    cmd->add_option("NAME", o->name, "Slug of the new Target")->required();
    cmd->add_option("--provider", o->provider, "Directory or Git")
        ->required()
        ->check(CLI::IsMember({"Directory", "Git"}));
    AddKeyValueFlag(cmd, "--param", &o->params,
                    "Provider parameter: path=DIR (Directory); repository=PATH-OR-URL, branch=B,"
                    " path=TEMPLATE (Git) (repeatable)");
    OnRun(cmd, env, [&env, o] {
      cub::v1::CreateTargetRequest req;
      req.set_space(o->space);
      req.set_slug(o->name);
      req.set_provider(o->provider);
      PutKeyValues(o->params, req.mutable_params());
      cub::v1::Target t;
      if (!CallCubd(env, &TargetService::Stub::CreateTarget, req, &t)) return kExitFailed;
      return env.printer().Confirm(
          t, absl::StrCat("Target ", t.slug(), " created", IdSuffix(t.target_id())));
    });
  }
  {
    struct Opts {
      std::string space, name;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand("get", "Show a Target");
    cmd->add_option("--space", o->space, "Space slug or ID")->required();
    cmd->add_option("NAME", o->name, "Target slug or ID")->required();
    OnRun(cmd, env, [&env, o] {
      cub::v1::GetTargetRequest req;
      req.set_space(o->space);
      req.set_target(o->name);
      cub::v1::Target t;
      if (!CallCubd(env, &TargetService::Stub::GetTarget, req, &t)) return kExitFailed;
      return env.printer().Fields(t);
    });
  }
  {
    auto space = std::make_shared<std::string>();
    CLI::App* cmd = group->add_subcommand("list", "List the Targets of a Space");
    cmd->add_option("--space", *space, "Space slug or ID")->required();
    OnRun(cmd, env, [&env, space] {
      cub::v1::ListTargetsRequest req;
      req.set_space(*space);
      cub::v1::ListTargetsResponse resp;
      if (!CallCubd(env, &TargetService::Stub::ListTargets, req, &resp)) return kExitFailed;
      return env.printer().List<cub::v1::Target>(
          resp.targets(), {"NAME", "PROVIDER", "PARAMS", "ID"},
          [](const cub::v1::Target& t) -> std::vector<std::string> {
            return {t.slug(), t.provider(), Params(t.params()), t.target_id()};
          });
    });
  }
  {
    struct Opts {
      std::string space, name;
      std::vector<std::string> params;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand("update", "Change a Target's parameters");
    cmd->add_option("--space", o->space, "Space slug or ID")->required();
    cmd->add_option("NAME", o->name, "Target slug or ID")->required();
    AddKeyValueFlag(cmd, "--param", &o->params, "Set a parameter; KEY= removes it (repeatable)")
        ->required();
    OnRun(cmd, env, [&env, o] {
      cub::v1::UpdateTargetRequest req;
      req.set_space(o->space);
      req.set_target(o->name);
      PutKeyValues(o->params, req.mutable_params());
      cub::v1::Target t;
      if (!CallCubd(env, &TargetService::Stub::UpdateTarget, req, &t)) return kExitFailed;
      return env.printer().Confirm(t, absl::StrCat("Target ", t.slug(), " updated"));
    });
  }
  {
    struct Opts {
      std::string space, name;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand("delete", "Delete a Target no Space releases to");
    cmd->add_option("--space", o->space, "Space slug or ID")->required();
    cmd->add_option("NAME", o->name, "Target slug or ID")->required();
    OnRun(cmd, env, [&env, o] {
      cub::v1::DeleteTargetRequest req;
      req.set_space(o->space);
      req.set_target(o->name);
      cub::v1::DeleteTargetResponse resp;
      if (!CallCubd(env, &TargetService::Stub::DeleteTarget, req, &resp)) return kExitFailed;
      return env.printer().Confirm(resp, absl::StrCat("Target ", o->name, " deleted"));
    });
  }
}

std::string UnitsText(const cub::v1::Release& r) {
  std::vector<std::string> out;
  for (const auto& u : r.units()) out.push_back(absl::StrCat(u.unit(), "@", u.revision_num()));
  return absl::StrJoin(out, ",");
}

void AddReleaseGroup(CLI::App& app, Env& env) {
  CLI::App* group =
      app.add_subcommand("release", "Publish Releases, report their live status, roll back");
  {
    struct Opts {
      std::string space, revision, description;
      int release = 0;
      bool dry_run = false;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand(
        "publish", "Bundle the Space's Units at a revision and publish them to its Target");
    cmd->add_option("SPACE", o->space, "Space slug or ID")->required();
    cmd->add_option("--revision", o->revision,
                    "N, HeadRevisionNum (default), LastReleasedRevisionNum, Tag:T, ChangeSet:C,"
                    " ChangeOrder:BASE/NAME or Before:ChangeOrder:BASE/NAME");
    cmd->add_option("--release", o->release, "Publish again what Release N bundled (a rollback)")
        ->check(CLI::PositiveNumber)
        ->excludes("--revision");
    cmd->add_option("--description", o->description, "Why this Release");
    cmd->add_flag("--dry-run", o->dry_run, "Show what would be bundled; publish nothing");
    OnRun(cmd, env, [&env, o] {
      cub::v1::PublishReleaseRequest req;
      req.set_space(o->space);
      req.set_revision(o->revision);
      req.set_release(o->release);
      req.set_description(o->description);
      req.set_dry_run(o->dry_run);
      cub::v1::Release r;
      if (!CallCubd(env, &ReleaseService::Stub::PublishRelease, req, &r)) return kExitFailed;
      const Printer printer = env.printer();
      if (!printer.table()) return printer.Document(r);
      std::string text;
      for (const auto& u : r.units()) {
        absl::StrAppend(&text, "  ", u.unit(), " revision ", u.revision_num(), "\n");
      }
      if (o->dry_run) {
        return printer.Text(absl::StrCat("Would publish ", r.units_size(), " units of ",
                                         r.space_slug(), " to ", r.target(), " (digest ",
                                         r.bundle_digest(), "):\n", text));
      }
      return printer.Text(
          absl::StrCat("Release ", r.release_num(), " of ", r.space_slug(), " published to ",
                       r.target(), " (", r.units_size(), " units, digest ", r.bundle_digest(),
                       r.commit().empty() ? "" : ", commit " + r.commit(), ")\n", text));
    });
  }
  {
    struct Opts {
      std::string space;
      int release = 0;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand("get", "Show a Release");
    cmd->add_option("--space", o->space, "Space slug or ID")->required();
    cmd->add_option("--release", o->release, "Release number")->required();
    OnRun(cmd, env, [&env, o] {
      cub::v1::GetReleaseRequest req;
      req.set_space(o->space);
      req.set_release(o->release);
      cub::v1::Release r;
      if (!CallCubd(env, &ReleaseService::Stub::GetRelease, req, &r)) return kExitFailed;
      return env.printer().Fields(r, {"Provenance"});
    });
  }
  {
    auto space = std::make_shared<std::string>();
    CLI::App* cmd = group->add_subcommand("list", "List a Space's Releases, newest first");
    cmd->add_option("--space", *space, "Space slug or ID")->required();
    OnRun(cmd, env, [&env, space] {
      cub::v1::ListReleasesRequest req;
      req.set_space(*space);
      cub::v1::ListReleasesResponse resp;
      if (!CallCubd(env, &ReleaseService::Stub::ListReleases, req, &resp)) return kExitFailed;
      return env.printer().List<cub::v1::Release>(
          resp.releases(),
          {"RELEASE", "CHANGE-ORDER", "SYNC", "HEALTH", "PUBLISHED", "BY", "UNITS", "DIGEST"},
          [](const cub::v1::Release& r) -> std::vector<std::string> {
            return {std::to_string(r.release_num()),
                    r.change_order(),
                    r.live_status().sync(),
                    r.live_status().health(),
                    r.published_at(),
                    r.published_by(),
                    UnitsText(r),
                    r.bundle_digest()};
          });
    });
  }
  {
    struct Opts {
      std::string space, digest, sync, health, operation, message;
      int release = 0;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand(
        "set-status", "Report a Release's live status (for GitOps reporters; reporter role)");
    cmd->add_option("--space", o->space, "Space slug or ID")->required();
    auto* by_num = cmd->add_option("--release", o->release, "Release number");
    auto* by_digest = cmd->add_option("--digest", o->digest, "Release bundle digest (sha256:...)");
    by_num->excludes(by_digest);
    cmd->add_option("--sync", o->sync, "Synced, OutOfSync or Unknown")
        ->required()
        ->check(CLI::IsMember(domain::AllNames(domain::kAllSyncStatuses, domain::SyncStatusName)));
    cmd->add_option("--health", o->health,
                    "Healthy, Progressing, Degraded, Suspended, Missing or Unknown")
        ->required()
        ->check(
            CLI::IsMember(domain::AllNames(domain::kAllHealthStatuses, domain::HealthStatusName)));
    cmd->add_option("--operation", o->operation, "Running, Succeeded or Failed")
        ->check(CLI::IsMember(
            domain::AllNames(domain::kAllOperationStatuses, domain::OperationStatusName)));
    cmd->add_option("--message", o->message, "What the operator said");
    OnRun(cmd, env, [&env, o] {
      if (o->release == 0 && o->digest.empty()) {
        return UsageError("name the Release with --release N or --digest sha256:...");
      }
      cub::v1::SetReleaseStatusRequest req;
      req.set_space(o->space);
      req.set_release(o->release);
      req.set_bundle_digest(o->digest);
      req.set_sync(o->sync);
      req.set_health(o->health);
      req.set_operation(o->operation);
      req.set_message(o->message);
      cub::v1::Release r;
      if (!CallCubd(env, &ReleaseService::Stub::SetReleaseStatus, req, &r)) return kExitFailed;
      return env.printer().Confirm(
          r, absl::StrCat("Release ", r.release_num(), " of ", r.space_slug(), " is ",
                          r.live_status().sync(), "/", r.live_status().health()));
    });
  }
  {
    auto space = std::make_shared<std::string>();
    CLI::App* cmd = group->add_subcommand(
        "history", "The Space's 16 most recent deployments and how each ended");
    cmd->add_option("--space", *space, "Space slug or ID")->required();
    OnRun(cmd, env, [&env, space] {
      cub::v1::ReleaseHistoryRequest req;
      req.set_space(*space);
      cub::v1::ReleaseHistoryResponse resp;
      if (!CallCubd(env, &ReleaseService::Stub::ReleaseHistory, req, &resp)) return kExitFailed;
      return env.printer().List<cub::v1::Deployment>(
          resp.deployments(),
          {"RELEASE", "CHANGE-ORDER", "STARTED", "HEALTHY", "ENDED", "REASON", "SIGNED"},
          [](const cub::v1::Deployment& d) -> std::vector<std::string> {
            return {std::to_string(d.release_num()),
                    d.change_order(),
                    d.started_at(),
                    d.healthy_at(),
                    d.ended_at(),
                    d.end_reason(),
                    d.record().empty() ? "no" : "yes"};
          });
    });
  }
  {
    struct Opts {
      std::string space;
      int release = 0;
    };
    auto o = std::make_shared<Opts>();
    CLI::App* cmd = group->add_subcommand(
        "verify", "Check a Release's signed provenance and that its stored bundle matches it");
    cmd->add_option("--space", o->space, "Space slug or ID")->required();
    cmd->add_option("--release", o->release, "Release number")->required();
    OnRun(cmd, env, [&env, o] {
      cub::v1::VerifyReleaseRequest req;
      req.set_space(o->space);
      req.set_release(o->release);
      cub::v1::VerifyReleaseResponse resp;
      if (!CallCubd(env, &ReleaseService::Stub::VerifyRelease, req, &resp)) return kExitFailed;
      int rc = env.printer().table()
                   ? env.printer().Text(absl::StrCat(
                         resp.verified() ? "Verified" : "NOT verified", ": release ", o->release,
                         " of ", o->space, "\n  ", absl::StrJoin(resp.checks(), "\n  "), "\n"))
                   : env.printer().Document(resp);
      if (!resp.verified()) {
        PrintFailure(absl::StrCat("release ", o->release, " of ", o->space, " does not verify"));
        return kExitFailed;
      }
      return rc;
    });
  }
}

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

}  // namespace

void AddReleaseCommands(CLI::App& app, Env& env) {
  AddTargetCommands(app, env);
  AddReleaseGroup(app, env);
  AddServerCommands(app, env);
}

}  // namespace cub::cli
