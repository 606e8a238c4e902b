// `cub variant approve` and `cub attestation create|get|list|revoke`: recording approvals,
// rejections and other attested facts about revisions, and withdrawing them.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "cli/commands.h"
#include "cli/flag_names.h"
#include "cli/space_flag.h"
#include "cli/paged_list.h"
#include "cub/v1/attestation.grpc.pb.h"

namespace cub::cli {
namespace {

using cub::v1::AttestationService;

std::string RevisionsText(const cub::v1::Attestation& a) {
  std::vector<std::string> out;
  for (const auto& r : a.revisions()) out.push_back(absl::StrCat(r.unit(), "@", r.revision_num()));
  return absl::StrJoin(out, ",");
}

// Prints what Approve recorded (or would), and what it skipped.
int PrintApproval(Env& env, const cub::v1::ApproveResponse& resp, const std::string& verb) {
  const Printer printer = env.printer();
  if (!printer.table()) return printer.Document(resp);
  std::string text;
  for (const auto& a : resp.attestations()) {
    absl::StrAppend(&text, resp.dry_run() ? "Would record " : "Recorded ", a.type(), " ",
                    a.result(), " in ", a.space_slug(), " of ", RevisionsText(a),
                    a.attestation_id().empty() ? "" : absl::StrCat(" (", a.attestation_id(), ")"),
                    "\n");
  }
  for (const auto& s : resp.skipped()) {
    absl::StrAppend(&text, "Skipped ", s.space(), s.unit().empty() ? "" : "/" + s.unit(), ": ",
                    WithFlagNames(s.reason()), "\n");
  }
  if (resp.attestations_size() == 0) {
    absl::StrAppend(&text, "Nothing to ", verb, "\n");
  }
  return printer.Text(text);
}

void AddApprove(CLI::App* variant, Env& env) {
  struct Opts {
    std::vector<std::string> spaces, claims;
    std::string where_space, change_order, stage, where, revision, note, expires_in;
    bool all = false, reject = false, dry_run = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = variant->add_subcommand(
      "approve", "Approve (or --reject) revisions in Spaces, as yourself; needs the approver role");
  cmd->add_option("SPACE", o->spaces, "Spaces to approve in (or --where-space, --change-order)");
  cmd->add_option("--where-space", o->where_space, "Where expression selecting the Spaces");
  cmd->add_option("--change-order", o->change_order,
                  "Approve what this ChangeOrder (BASE/NAME) arrived at, in its Spaces");
  cmd->add_option("--stage", o->stage, "With --change-order: only this Stage's Spaces");
  cmd->add_flag("--all", o->all, "All Units, also of a Space with no release Target");
  cmd->add_option("--where", o->where, "Where expression narrowing the Units");
  cmd->add_option("--revision", o->revision,
                  "N, LastReleasedRevisionNum, Tag:T, ChangeSet:C or ChangeOrder:C (default: the"
                  " head, or the ChangeOrder's release Tag)");
  cmd->add_option("--note", o->note, "Why");
  AddKeyValueFlag(cmd, "--claim", &o->claims, "Anything worth keeping with it (repeatable)");
  cmd->add_option("--expires-in", o->expires_in, "How long it counts for, e.g. 72h");
  cmd->add_flag("--reject", o->reject, "Record a rejection, which blocks until revoked");
  cmd->add_flag("--dry-run", o->dry_run, "Show what would be approved; record nothing");
  OnRun(cmd, env, [&env, o] {
    if (!o->stage.empty() && o->change_order.empty()) {
      return UsageError("--stage goes with --change-order");
    }
    cub::v1::ApproveRequest req;
    for (const auto& s : o->spaces) req.add_spaces(s);
    req.set_where_space(o->where_space);
    req.set_change_order(o->change_order);
    req.set_stage(o->stage);
    req.set_all(o->all);
    req.set_where(o->where);
    req.set_revision(o->revision);
    req.set_note(o->note);
    PutKeyValues(o->claims, req.mutable_claims());
    req.set_expires_in(o->expires_in);
    req.set_reject(o->reject);
    req.set_dry_run(o->dry_run);
    cub::v1::ApproveResponse resp;
    if (!CallCubd(env, &AttestationService::Stub::Approve, req, &resp)) return kExitFailed;
    return PrintApproval(env, resp, "approve");
  });
}

void AddAttestationCreate(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, type, change_order, where, revision, note, expires_in, result;
    std::vector<std::string> claims;
    bool fail = false;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "create",
      "Attest to the revisions of a Space (e.g. --type ChangeRecord, or a check: --type LoadTest"
      " --result Pass)");
  AddSpaceOption(cmd, &o->space, "Space slug or ID");
  cmd->add_option("--type", o->type, "Attestation type (default Approval)");
  cmd->add_option("--change-order", o->change_order,
                  "What this ChangeOrder (BASE/NAME) arrived at in the Space");
  cmd->add_option("--where", o->where, "Where expression narrowing the Units");
  cmd->add_option("--revision", o->revision, "Revision selector (default: the head)");
  cmd->add_option("--note", o->note, "Why");
  AddKeyValueFlag(cmd, "--claim", &o->claims, "A fact to record, KEY=VALUE (repeatable)");
  cmd->add_option("--expires-in", o->expires_in, "How long it counts for, e.g. 72h");
  auto* fail = cmd->add_flag("--fail", o->fail, "Record a failing result instead of a passing one");
  cmd->add_option("--result", o->result,
                  "Pass (the default) or Fail: a check's outcome (Fail is --fail)")
      ->check(CLI::IsMember({"Pass", "Fail"}))
      ->excludes(fail);
  OnRun(cmd, env, [&env, o] {
    cub::v1::ApproveRequest req;
    req.add_spaces(o->space);
    req.set_type(o->type);
    req.set_change_order(o->change_order);
    req.set_all(true);
    req.set_where(o->where);
    req.set_revision(o->revision);
    req.set_note(o->note);
    PutKeyValues(o->claims, req.mutable_claims());
    req.set_expires_in(o->expires_in);
    req.set_reject(o->fail || o->result == "Fail");
    cub::v1::ApproveResponse resp;
    if (!CallCubd(env, &AttestationService::Stub::Approve, req, &resp)) return kExitFailed;
    return PrintApproval(env, resp, "attest");
  });
}

void AddAttestationGet(CLI::App* group, Env& env) {
  auto id = std::make_shared<std::string>();
  CLI::App* cmd = group->add_subcommand("get", "Show an Attestation");
  cmd->add_option("ID", *id, "Attestation ID")->required();
  OnRun(cmd, env, [&env, id] {
    cub::v1::GetAttestationRequest req;
    req.set_attestation(*id);
    cub::v1::Attestation a;
    if (!CallCubd(env, &AttestationService::Stub::GetAttestation, req, &a)) return kExitFailed;
    return env.printer().Fields(a);
  });
}

void AddAttestationList(CLI::App* group, Env& env) {
  struct Opts {
    std::string space, where;
    PageFlags page;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "list", "List Attestations, oldest first (kept after their Space is deleted)");
  cmd->add_option("--space", o->space, "Space slug or ID (default: every Space you can see)");
  cmd->add_option("--where", o->where,
                  "Where expression over Attestations (e.g. \"SpaceSlug = 'x'\")");
  AddPageFlags(cmd, &o->page, "Attestations");
  OnRun(cmd, env, [&env, o] {
    cub::v1::ListAttestationsRequest req;
    req.set_space(o->space);
    req.mutable_options()->set_where(o->where);
    return PrintPaged(env, o->page, req, &AttestationService::Stub::ListAttestations,
                      &cub::v1::ListAttestationsResponse::attestations,
                      {"ID", "SPACE", "TYPE", "RESULT", "USER", "REVISIONS", "REVOKED", "CREATED"},
                      [](const cub::v1::Attestation& a) -> std::vector<std::string> {
                        return {a.attestation_id(),
                                a.space_slug(),
                                a.type(),
                                a.result(),
                                a.user(),
                                RevisionsText(a),
                                a.revoked_by_id().empty() ? "" : "yes",
                                a.created_at()};
                      });
  });
}

void AddAttestationRevoke(CLI::App* group, Env& env) {
  struct Opts {
    std::string id, note;
  };
  auto o = std::make_shared<Opts>();
  CLI::App* cmd = group->add_subcommand(
      "revoke", "Withdraw an Attestation (recorded as a new one; nothing is deleted)");
  cmd->add_option("ID", o->id, "Attestation ID")->required();
  cmd->add_option("--note", o->note, "Why")->required();
  OnRun(cmd, env, [&env, o] {
    cub::v1::RevokeAttestationRequest req;
    req.set_attestation(o->id);
    req.set_note(o->note);
    cub::v1::Attestation a;
    if (!CallCubd(env, &AttestationService::Stub::RevokeAttestation, req, &a)) {
      return kExitFailed;
    }
    return env.printer().Confirm(
        a, absl::StrCat("Attestation ", o->id, " revoked by ", a.attestation_id()));
  });
}

void AddAttestationCommands(CLI::App& app, Env& env) {
  CLI::App* group = app.add_subcommand("attestation", "Record, show, list and revoke Attestations");
  AddAttestationCreate(group, env);
  AddAttestationGet(group, env);
  AddAttestationList(group, env);
  AddAttestationRevoke(group, env);
}

}  // namespace

void AddApprovalCommands(CLI::App& app, Env& env) {
  CLI::App* variant = app.get_subcommand("variant");
  AddApprove(variant, env);
  AddAttestationCommands(app, env);
}

}  // namespace cub::cli
