// `cub release ...`: publishing and rolling back, the live status a GitOps operator reports,
// the deployment history, and checking the signed records.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/count.h"
#include "cli/engine_wait.h"
#include "cli/paged_list.h"
#include "cli/progress.h"
#include "cli/space_flag.h"
#include "cub/v1/release.grpc.pb.h"
#include "lib/domain/vocabulary.h"
#include "lib/domain/vulnerabilities.h"

namespace cub::cli {
namespace {

using cub::v1::ReleaseService;

std::string UnitsText(const cub::v1::Release& r) {
  std::vector<std::string> out;
  for (const auto& u : r.units()) out.push_back(absl::StrCat(u.unit(), "@", u.revision_num()));
  return absl::StrJoin(out, ",");
}

std::string DeliveryText(const cub::v1::Release& r);

// The published (or, in a dry run, the would-be) Release.
int PrintPublished(const Printer& printer, const cub::v1::Release& r, bool dry_run) {
  if (!printer.table()) return printer.Document(r);
  std::string text;
  for (const auto& u : r.units()) {
    absl::StrAppend(&text, "  ", u.unit(), " revision ", u.revision_num(), "\n");
  }
  if (dry_run) {
    return printer.Text(absl::StrCat("Would publish ", Count(r.units_size(), "unit"), " of ",
                                     r.space_slug(), " to ", r.target(), " (digest ",
                                     r.bundle_digest(), "):\n", text));
  }
  return printer.Text(absl::StrCat(
      "Release ", r.release_num(), " of ", r.space_slug(), " published to ", r.target(), " (",
      Count(r.units_size(), "unit"), ", digest ", r.bundle_digest(),
      r.commit().empty() ? "" : ", commit " + r.commit(), ")\n", text, DeliveryText(r)));
}

// How a publish's Release stands with its Target, for people: what to do, and what not to.
std::string DeliveryText(const cub::v1::Release& r) {
  if (r.delivery_state() == "Pending") {
    return "Delivery: Pending (recorded; cubd delivers it to the target shortly)\n";
  }
  if (r.delivery_state() == "Failed") {
    return absl::StrCat("Delivery: Failed (attempt ", r.delivery_attempts(),
                        "): ", r.delivery_error(), "\n");
  }
  return absl::StrCat("Delivery: ", r.delivery_state(), "\n");
}

// The Releases of a Stage-wide publish (or, in a dry run, the would-be ones), the Spaces
// refused and those that had published the ChangeOrder already. Exit 1 when a Space was refused
// or a delivery failed.
int PrintStagePublished(const Printer& printer, const cub::v1::PublishReleasesRequest& req,
                        const cub::v1::PublishReleasesResponse& resp) {
  int rc = kExitOk;
  if (!printer.table()) {
    rc = printer.Document(resp);
  } else {
    std::string text = absl::StrCat(req.dry_run() ? "Would publish " : "Published ",
                                    Count(resp.releases_size(), "release"), " of ",
                                    req.change_order(), " in stage ", req.stage(), "\n");
    for (const auto& r : resp.releases()) {
      if (req.dry_run()) {
        absl::StrAppend(&text, "  ", r.space_slug(), ": ", Count(r.units_size(), "unit"),
                        " (digest ", r.bundle_digest(), ")\n");
      } else {
        absl::StrAppend(&text, "  ", r.space_slug(), ": Release ", r.release_num(), " ",
                        r.delivery_state(), r.commit().empty() ? "" : " commit " + r.commit(),
                        "\n");
      }
    }
    if (resp.already_published_size() > 0) {
      absl::StrAppend(&text, "Already published (left as they are): ",
                      absl::StrJoin(resp.already_published(), ", "), "\n");
    }
    for (const auto& f : resp.refused()) {
      absl::StrAppend(&text, "Refused ", f.space_slug(), ": ", f.message(), "\n");
    }
    rc = printer.Text(text);
  }
  int failed = 0;
  std::string first_error;
  for (const auto& r : resp.releases()) {
    if (r.delivery_state() != "Failed") continue;
    if (failed++ == 0) first_error = absl::StrCat(r.target(), ": ", r.delivery_error());
  }
  if (rc == kExitOk && failed > 0) {
    PrintFailure(absl::StrCat(Count(failed, "release"), failed == 1 ? " is" : " are",
                              " recorded and signed, but delivery failed (", first_error,
                              "); cubd retries them until the target takes them: fix the "
                              "target, do not publish again"));
    rc = kExitFailed;
  }
  if (rc == kExitOk && resp.refused_size() > 0) {
    PrintFailure(absl::StrCat(Count(resp.refused_size(), "Space"), " of stage ", req.stage(),
                              resp.refused_size() == 1 ? " was" : " were",
                              " refused; the others were ",
                              req.dry_run() ? "checked" : "published"));
    return kExitFailed;
  }
  return rc;
}

void AddReleasePublish(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, revision, description;
    std::string change_order, stage, where_space;
    int release = 0;
    bool dry_run = false, wait = false;
    bool force = false;
    std::string force_reason;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "publish",
      "Bundle the Space's Units at a revision and publish them to its Target; or, with "
      "--change-order and --stage, every Space of the Stage that took the ChangeOrder");
  auto* space = cmd->add_option("SPACE", o->space, "Space slug or ID");
  cmd->add_option("--revision", o->revision,
                  "N, HeadRevisionNum (default), LastReleasedRevisionNum, Tag:T, ChangeSet:C,"
                  " ChangeOrder:BASE/NAME or Before:ChangeOrder:BASE/NAME");
  cmd->add_option("--release", o->release, "Publish again what Release N bundled (a rollback)")
      ->check(CLI::PositiveNumber)
      ->excludes("--revision");
  auto* co = cmd->add_option("--change-order", o->change_order,
                             "BASE/NAME: publish the Stage's Spaces that took it (with --stage)");
  auto* stage = cmd->add_option("--stage", o->stage, "The Stage whose Spaces to publish");
  auto* where = cmd->add_option("--where-space", o->where_space,
                                "Narrow the Stage's Spaces, as space list --where does");
  co->needs(stage)->excludes(space)->excludes("--revision")->excludes("--release");
  stage->needs(co);
  where->needs(co);
  cmd->add_option("--description", o->description, "Why this Release");
  cmd->add_flag("--dry-run", o->dry_run, "Show what would be bundled; publish nothing");
  cmd->add_flag("--wait", o->wait,
                "For a Release of a ChangeOrder: then wait until cubd's promotion engine has "
                "acted on what it made possible, and show what it did")
      ->excludes("--dry-run")
      ->excludes(co);
  cmd->add_flag("--force", o->force,
                "Publish although a freeze covering the Space is in force (needs the admin role "
                "on the Space and --force-reason; passes nothing else)")
      ->excludes(co);
  cmd->add_option("--force-reason", o->force_reason, "Why the freeze is passed (recorded)");
  OnRun(cmd, env, [&env, o] {
    if (!o->change_order.empty()) {
      cub::v1::PublishReleasesRequest req;
      req.set_change_order(o->change_order);
      req.set_stage(o->stage);
      req.set_where_space(o->where_space);
      req.set_description(o->description);
      req.set_dry_run(o->dry_run);
      // The table shows neither the signed statements nor (once published) the Units, which for
      // a whole Stage run to megabytes; a dry run's table counts the Units.
      req.set_brief(env.printer().table() && !o->dry_run);
      cub::v1::PublishReleasesResponse resp;
      {
        // One RPC for the whole Stage: the live line says what it does and for how long.
        TerminalProgress progress(
            ProgressWanted(env),
            absl::StrCat(o->dry_run ? "Planning the Releases of " : "Publishing the Releases of ",
                         o->change_order, o->stage.empty() ? "" : " in stage " + o->stage));
        if (!CallCubd(env, &ReleaseService::Stub::PublishReleases, req, &resp)) {
          return kExitFailed;
        }
      }
      return PrintStagePublished(env.printer(), req, resp);
    }
    if (o->space.empty()) {
      return UsageError("name the SPACE to publish, or --change-order BASE/NAME and --stage S");
    }
    cub::v1::PublishReleaseRequest req;
    req.set_force(o->force);
    req.set_force_reason(o->force_reason);
    req.set_space(o->space);
    req.set_revision(o->revision);
    req.set_release(o->release);
    req.set_description(o->description);
    req.set_dry_run(o->dry_run);
    cub::v1::Release r;
    if (!CallCubd(env, &ReleaseService::Stub::PublishRelease, req, &r)) return kExitFailed;
    int rc = PrintPublished(env.printer(), r, o->dry_run);
    // Recorded, but the Target did not take it: cubd retries, and publishing again would
    // record a second Release.
    if (rc == kExitOk && !o->dry_run && r.delivery_state() == "Failed") {
      PrintFailure(
          absl::StrCat("Release ", r.release_num(), " of ", r.space_slug(),
                       " is recorded and signed, but its delivery to ", r.target(),
                       " failed: ", r.delivery_error(), "; cubd retries it",
                       r.next_delivery_at().empty() ? "" : " from " + r.next_delivery_at(),
                       " until the target takes it: fix the target, do not publish again"));
      return kExitFailed;
    }
    if (rc != kExitOk || !o->wait) return rc;
    if (r.change_order().empty()) {
      return env.printer().Text("This Release carries no ChangeOrder: nothing to wait for\n");
    }
    // Events from the publish on (by the server's clock, which stamped both).
    return WaitForEngine(env, r.change_order(), 0, r.published_at());
  });
}

void AddReleaseGet(CLI::App* group, Env& env) {
  struct Opts {
    std::string space;
    int release = 0;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand("get", "Show a Release");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
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

void AddReleaseList(CLI::App* group, Env& env) {
  auto space = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("list", "List a Space's Releases, newest first");
  AddSpaceOption(cmd, space.get(), "Space slug or ID");
  auto page = std::make_shared<PageFlags>();
  AddPageFlags(cmd, page.get(), "Releases");
  OnRun(cmd, env, [&env, space, page] {
    cub::v1::ListReleasesRequest req;
    req.set_space(*space);
    return PrintPaged(env, *page, req, &ReleaseService::Stub::ListReleases,
                      &cub::v1::ListReleasesResponse::releases,
                      {"RELEASE", "CHANGE-ORDER", "SYNC", "HEALTH", "PUBLISHED", "BY", "UNITS",
                       "DIGEST", "DELIVERY"},
                      [](const cub::v1::Release& r) -> std::vector<std::string> {
                        return {std::to_string(r.release_num()),
                                r.change_order(),
                                r.live_status().sync(),
                                r.live_status().health(),
                                r.published_at(),
                                r.published_by(),
                                UnitsText(r),
                                r.bundle_digest(),
                                r.delivery_state()};
                      });
  });
}

// "critical=0,high=2,medium=5,low=9" in severity order; "" for a Release never scanned.
template <typename ProtoMap>
std::string FindingsText(const ProtoMap& m) {
  std::vector<std::string> parts;
  for (domain::Severity s : domain::kAllSeverities) {
    auto it = m.find(std::string(domain::SeverityName(s)));
    if (it != m.end()) parts.push_back(absl::StrCat(it->first, "=", it->second));
  }
  return absl::StrJoin(parts, ",");
}

// The number of the Space's newest Release (for --latest); on failure prints it.
absl::StatusOr<int> NewestRelease(const Env& env, const std::string& space) {
  cub::v1::ListReleasesRequest req;
  req.set_space(space);
  cub::v1::ListReleasesResponse resp;
  if (!CallCubd(env, &ReleaseService::Stub::ListReleases, req, &resp)) {
    return absl::UnavailableError("printed");
  }
  int newest = 0;
  for (const cub::v1::Release& r : resp.releases()) newest = std::max(newest, r.release_num());
  if (newest == 0) {
    PrintFailure(absl::StrCat("--latest: Space ", space, " has no Release yet"));
    return absl::NotFoundError("printed");
  }
  return newest;
}

void AddReleaseSetStatus(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, digest, commit, sync, health, operation, message, vulnerabilities;
    int release = 0;
    bool latest = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "set-status",
      "Report a Release's live status (reporter role) and/or its scan findings (scanner or"
      " reporter role)");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  auto* by_num = cmd->add_option("--release", o->release, "Release number");
  auto* by_digest =
      cmd->add_option("--digest,--bundle-digest", o->digest, "Release bundle digest (sha256:...)");
  auto* by_commit = cmd->add_option(
      "--commit", o->commit,
      "The Git commit deployed (40 hex digits, or a Flux revision main@sha1:...): the Release the"
      " Space's Git Target history names there");
  by_num->excludes(by_digest);
  by_commit->excludes(by_num)->excludes(by_digest);
  cmd->add_flag("--latest", o->latest, "The Space's newest Release (the highest number)")
      ->excludes(by_num)
      ->excludes(by_digest)
      ->excludes(by_commit);
  auto* sync = cmd->add_option("--sync", o->sync, "Synced, OutOfSync or Unknown")
                   ->check(CLI::IsMember(
                       domain::AllNames(domain::kAllSyncStatuses, domain::SyncStatusName)));
  auto* health = cmd->add_option("--health", o->health,
                                 "Healthy, Progressing, Degraded, Suspended, Missing or Unknown")
                     ->check(CLI::IsMember(
                         domain::AllNames(domain::kAllHealthStatuses, domain::HealthStatusName)));
  sync->needs(health);
  health->needs(sync);
  cmd->add_option("--operation", o->operation, "Running, Succeeded or Failed")
      ->check(CLI::IsMember(
          domain::AllNames(domain::kAllOperationStatuses, domain::OperationStatusName)))
      ->needs(sync);
  cmd->add_option("--message", o->message, "What the operator said")->needs(sync);
  cmd->add_option("--vulnerabilities", o->vulnerabilities,
                  "Scan findings: critical=N,high=N,medium=N,low=N (any of them, each once)");
  OnRun(cmd, env, [&env, o] {
    if (o->release == 0 && o->digest.empty() && o->commit.empty() && !o->latest) {
      return UsageError(
          "name the Release with --release N, --latest, --digest sha256:... or --commit COMMIT");
    }
    if (o->sync.empty() && o->vulnerabilities.empty()) {
      return UsageError(
          "give --sync and --health (a live status), --vulnerabilities (scan findings), or both");
    }
    cub::v1::SetReleaseStatusRequest req;
    if (!o->vulnerabilities.empty()) {
      auto findings = domain::ParseVulnerabilities(o->vulnerabilities);
      if (!findings.ok()) {
        return UsageError(absl::StrCat("--vulnerabilities ", findings.status().message()));
      }
      for (const auto& [severity, count] : *findings) {
        (*req.mutable_vulnerabilities())[std::string(domain::SeverityName(severity))] = count;
      }
    }
    req.set_space(o->space);
    if (o->latest) {
      // Looked up first: a Release published in between is not the one reported on.
      absl::StatusOr<int> newest = NewestRelease(env, o->space);
      if (!newest.ok()) return kExitFailed;  // printed
      o->release = *newest;
    }
    req.set_release(o->release);
    req.set_bundle_digest(o->digest);
    req.set_commit(o->commit);
    req.set_sync(o->sync);
    req.set_health(o->health);
    req.set_operation(o->operation);
    req.set_message(o->message);
    cub::v1::Release r;
    if (!CallCubd(env, &ReleaseService::Stub::SetReleaseStatus, req, &r)) return kExitFailed;
    std::string line = absl::StrCat("Release ", r.release_num(), " of ", r.space_slug(), " is ",
                                    r.live_status().sync(), "/", r.live_status().health());
    if (!o->vulnerabilities.empty()) {
      absl::StrAppend(&line, "; findings ", FindingsText(r.vulnerabilities()), " recorded by ",
                      r.scanned_by());
    }
    return env.printer().Confirm(r, line);
  });
}

void AddReleaseHistory(CLI::App* group, Env& env) {
  auto space = std::make_shared<std::string>();
  CLI::App* cmd =
      group->add_subcommand("history", "The Space's 16 most recent deployments and how each ended");
  AddSpaceOption(cmd, space.get(), "Space slug or ID");
  OnRun(cmd, env, [&env, space] {
    cub::v1::ReleaseHistoryRequest req;
    req.set_space(*space);
    cub::v1::ReleaseHistoryResponse resp;
    if (!CallCubd(env, &ReleaseService::Stub::ReleaseHistory, req, &resp)) return kExitFailed;
    return env.printer().List<cub::v1::Deployment>(
        resp.deployments(),
        {"RELEASE", "CHANGE-ORDER", "STARTED", "HEALTHY", "ENDED", "REASON", "SIGNED",
         "VULNERABILITIES"},
        [](const cub::v1::Deployment& d) -> std::vector<std::string> {
          return {std::to_string(d.release_num()),
                  d.change_order(),
                  d.started_at(),
                  d.healthy_at(),
                  d.ended_at(),
                  d.end_reason(),
                  d.record().empty() ? "no" : "yes",
                  FindingsText(d.vulnerabilities())};
        });
  });
}

void AddReleaseVerify(CLI::App* group, Env& env) {
  struct Opts {
    std::string space;
    int release = 0;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "verify", "Check a Release's signed provenance and that its stored bundle matches it");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
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

void AddReleaseGroup(CLI::App& app, Env& env) {
  CLI::App* group =
      app.add_subcommand("release", "Publish Releases, report their live status, roll back");
  AddReleasePublish(group, env);
  AddReleaseGet(group, env);
  AddReleaseList(group, env);
  AddReleaseSetStatus(group, env);
  AddReleaseHistory(group, env);
  AddReleaseVerify(group, env);
  AddReleaseApplicationsCommand(group, env);
}

}  // namespace

void AddReleaseCommands(CLI::App& app, Env& env) { AddReleaseGroup(app, env); }

}  // namespace cub::cli
