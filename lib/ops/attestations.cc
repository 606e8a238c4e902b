#include "lib/ops/attestations.h"

#include <map>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "lib/ops/access.h"
#include "lib/ops/change_orders.h"
#include "lib/ops/gates.h"
#include "lib/ops/input.h"
#include "lib/ops/page_token.h"
#include "lib/ops/units.h"
#include "lib/store/attestations.h"
#include "lib/store/engine_work.h"
#include "lib/store/errors.h"
#include "lib/store/spaces.h"
#include "lib/store/tags.h"
#include "lib/store/units.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

constexpr char kApproval[] = "Approval";

// The Spaces of `spaces` on which `p` may perform `access`, in order, checked in one query.
// Spaces `p` may not see are left out of what a ChangeOrder selects, so that their names are
// never reported to `p`.
absl::StatusOr<std::vector<v1::Space>> Allowed(store::Tx& tx, const Principal& p,
                                               std::vector<v1::Space> spaces, Access access) {
  CUB_ASSIGN_OR_RETURN(std::vector<bool> may, MayAccessEach(tx, p, spaces, access));
  std::vector<v1::Space> out;
  for (size_t i = 0; i < spaces.size(); ++i) {
    if (may[i]) out.push_back(std::move(spaces[i]));
  }
  return out;
}

// The ChangeOrder an approval is for. Approvers of a Stage need not see its base, so it is
// read on the server's account, but only for a caller who can see some Space of its scope;
// to any other caller the answer is exactly the one for a ChangeOrder that does not exist.
absl::StatusOr<ResolvedChangeOrder> ResolveForApproval(store::Tx& tx, const Principal& p,
                                                       const std::string& ref) {
  auto as_caller = ResolveChangeOrder(tx, p, ref, "", false);
  if (as_caller.ok() || !absl::IsNotFound(as_caller.status())) return as_caller;
  auto r = ResolveChangeOrder(tx, ServerPrincipal(), ref, "", false);
  if (store::FailedInDatabase(r.status())) return r.status();
  if (!r.ok()) return as_caller.status();
  for (const auto* ids : {&r->co.in_scope_space_ids, &r->co.resolved_space_ids}) {
    for (const std::string& id : *ids) {
      absl::Status seen = ResolveSpace(tx, p, id, Access::kRead).status();
      if (store::FailedInDatabase(seen)) return seen;
      if (seen.ok()) return r;
    }
  }
  return as_caller.status();
}

// Which Spaces an approval covers.
absl::StatusOr<std::vector<v1::Space>> SelectSpaces(store::Tx& tx, const Principal& p,
                                                    const v1::ApproveRequest& req,
                                                    const ResolvedChangeOrder* rco) {
  std::vector<v1::Space> out;
  std::set<std::string> seen;
  auto add = [&](const v1::Space& s) {
    if (seen.insert(s.space_id()).second) out.push_back(s);
  };
  for (const auto& ref : req.spaces()) {
    CUB_ASSIGN_OR_RETURN(auto s, ResolveSpace(tx, p, ref, Access::kRead));
    add(s);
  }
  if (!req.where_space().empty()) {
    auto matched = rco ? store::SpacesAmong(tx, rco->co.in_scope_space_ids, req.where_space())
                       : store::ListSpaces(tx, ToCaller(p), req.where_space(), "");
    if (!matched.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("WhereSpace: ", matched.status().message()));
    }
    if (rco) {
      CUB_ASSIGN_OR_RETURN(*matched, Allowed(tx, p, *std::move(matched), Access::kRead));
    }
    for (const auto& s : *matched) add(s);
  }
  if (rco && req.spaces_size() == 0 && req.where_space().empty()) {
    if (!req.stage().empty()) {
      CUB_ASSIGN_OR_RETURN(auto members, StageMembers(tx, *rco));
      bool found = false;
      for (size_t i = 0; rco->workflow && i < rco->workflow->stages.size(); ++i) {
        if (rco->workflow->stages[i].name != req.stage()) continue;
        found = true;
        CUB_ASSIGN_OR_RETURN(auto visible, Allowed(tx, p, members[i], Access::kRead));
        for (const auto& s : visible) add(s);
      }
      if (!found) {
        return absl::InvalidArgumentError(
            absl::StrCat("change order '", rco->co.slug, "' has no stage '", req.stage(), "'"));
      }
    } else {
      // Every Space beyond its base the change has reached, where the caller may vote.
      CUB_ASSIGN_OR_RETURN(auto spaces, store::SpacesAmong(tx, rco->co.resolved_space_ids, ""));
      CUB_ASSIGN_OR_RETURN(spaces, Allowed(tx, p, std::move(spaces), Access::kApprove));
      for (const auto& s : spaces) {
        if (s.space_id() != rco->base.space_id()) add(s);
      }
    }
  } else if (!req.stage().empty()) {
    return absl::InvalidArgumentError("Stage goes with ChangeOrder and no Spaces named");
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(
        "no Space selected: name Spaces, or give WhereSpace or ChangeOrder");
  }
  return out;
}

absl::StatusOr<int64_t> ExpiresInSeconds(const std::string& text) {
  if (text.empty()) return 0;
  absl::Duration d;
  if (!absl::ParseDuration(text, &d) || d <= absl::ZeroDuration() ||
      d == absl::InfiniteDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ExpiresIn '", text,
                     "' is not a duration: use a number with a unit h, m or s, such as"
                     " 72h"));
  }
  return std::max<int64_t>(1, absl::ToInt64Seconds(d));
}

// What one Approve call attests, the same in each Space it covers.
struct Vote {
  const Principal& p;
  const v1::ApproveRequest& req;
  std::string type;
  int64_t expires = 0;
  const ResolvedChangeOrder* rco = nullptr;  // with ChangeOrder
  std::string selector;                      // the revision of a Unit attested without a Tag
};

// The selector of the revisions a Vote attests, as a Revision names one.
std::string VoteSelector(const v1::ApproveRequest& req, const ResolvedChangeOrder* rco) {
  if (!req.revision().empty()) return req.revision();
  return rco ? absl::StrCat("ChangeOrder:", rco->base.slug(), "/", rco->co.slug)
             : "HeadRevisionNum";
}

void Skip(v1::ApproveResponse& out, const v1::Space& space, const std::string& unit,
          const std::string& reason) {
  v1::SkippedRevision* s = out.add_skipped();
  s->set_space(space.slug());
  s->set_unit(unit);
  s->set_reason(reason);
}

// The attestation of `space` before its revisions are added.
store::NewAttestation AttestationFor(const Vote& v, const v1::Space& space) {
  store::NewAttestation a;
  a.space_id = space.space_id();
  a.space_slug = space.slug();
  a.type = v.type;
  a.result = v.req.reject() ? "Fail" : "Pass";
  a.user_id = v.p.user_id;
  a.username = v.p.username;
  a.groups = v.p.groups;
  if (v.rco) {
    a.change_order_id = v.rco->co.id;
    a.change_order = absl::StrCat(v.rco->base.slug(), "/", v.rco->co.slug);
  }
  a.note = v.req.note();
  a.claims = ToMap(v.req.claims());
  a.expires_in_seconds = v.expires;
  return a;
}

// Whether the Vote attests what its ChangeOrder's release Tag marks (read directly: the voter
// may not see the base) rather than what a selector resolves to.
bool ByChangeOrderTag(const Vote& v) { return v.rco && v.req.revision().empty(); }

// Adds the revision of `unit` the Vote attests to `a`, or reports the Unit skipped. `marks`
// holds what the ChangeOrder's Tag marks (store::MarkedRevisions) when ByChangeOrderTag(v);
// otherwise the selector is resolved here, Unit by Unit.
absl::Status AttestUnit(store::Tx& tx, const Vote& v, const v1::Space& space, const v1::Unit& unit,
                        const std::map<std::string, store::MarkedRevision>& marks,
                        store::NewAttestation& a, v1::ApproveResponse& out) {
  if (unit.head_revision_num() == 0) {
    Skip(out, space, unit.slug(), "it has no revisions");
    return absl::OkStatus();
  }
  v1::AttestedRevision r;
  r.set_unit_id(unit.unit_id());
  r.set_unit(unit.slug());
  if (ByChangeOrderTag(v)) {
    auto mark = marks.find(unit.unit_id());
    if (mark == marks.end()) {
      Skip(out, space, unit.slug(),
           absl::StrCat("change order '", v.rco->co.slug, "' has not reached it"));
      return absl::OkStatus();
    }
    r.set_revision_num(static_cast<int32_t>(mark->second.revision_num));
    r.set_data_hash(mark->second.data_hash);
    a.revisions.push_back(std::move(r));
    return absl::OkStatus();
  }
  absl::StatusOr<int64_t> num = ResolveRevision(tx, v.p, space, unit, v.selector);
  if (!num.ok()) {
    if (absl::IsNotFound(num.status()) || absl::IsFailedPrecondition(num.status())) {
      Skip(out, space, unit.slug(), std::string(num.status().message()));
      return absl::OkStatus();
    }
    return num.status();
  }
  CUB_ASSIGN_OR_RETURN(auto rev, store::FindRevision(tx, unit.unit_id(), *num));
  if (!rev) return absl::InternalError("revision vanished");
  r.set_revision_num(static_cast<int32_t>(*num));
  r.set_data_hash(rev->data_hash());
  a.revisions.push_back(std::move(r));
  return absl::OkStatus();
}

// What a dry run reports for `a`, which it does not record.
v1::Attestation Preview(const store::NewAttestation& a) {
  v1::Attestation preview;
  preview.set_space_id(a.space_id);
  preview.set_space_slug(a.space_slug);
  preview.set_type(a.type);
  preview.set_result(a.result);
  preview.set_user_id(a.user_id);
  preview.set_user(a.username);
  preview.set_change_order(a.change_order);
  for (const auto& r : a.revisions) *preview.add_revisions() = r;
  return preview;
}

// Whether `v.p` may record `v.type` in `space`: an Approval needs the approver role; another
// type (a change record, a check) also the editor or the scanner role (or the reporter role,
// which may record scan findings too).
absl::Status MayAttest(store::Tx& tx, const Vote& v, const v1::Space& space) {
  absl::Status allowed = ResolveSpace(tx, v.p, space.slug(), Access::kApprove).status();
  if (allowed.ok() || v.type == kApproval || !absl::IsPermissionDenied(allowed)) return allowed;
  for (Access other : {Access::kWrite, Access::kScan}) {
    absl::Status st = ResolveSpace(tx, v.p, space.slug(), other).status();
    if (st.ok() || !absl::IsPermissionDenied(st)) return st;
  }
  return absl::PermissionDeniedError(absl::StrCat(
      "user '", v.p.username, "' may not record a ", v.type, " attestation in space '",
      space.slug(), "': that needs the approver, editor, scanner, reporter or admin role"));
}

// Whether `v.p` may record the Vote in every one of `spaces`; the first refusal otherwise. The
// approver role is checked for all of them in one query; only a Space without it is looked at
// again alone, for the other roles that may record other types and for the refusal's words.
absl::Status MayAttestAll(store::Tx& tx, const Vote& v, const std::vector<v1::Space>& spaces) {
  CUB_ASSIGN_OR_RETURN(std::vector<bool> may, MayAccessEach(tx, v.p, spaces, Access::kApprove));
  for (size_t i = 0; i < spaces.size(); ++i) {
    if (!may[i]) CUB_RETURN_IF_ERROR(MayAttest(tx, v, spaces[i]));
  }
  return absl::OkStatus();
}

// The Vote in each of `spaces`: one attestation per Space of the revisions it covers there, if
// any, in the order of `spaces`. Set-based for a vote on a ChangeOrder (what a Stage-wide approve
// is): a fixed number of queries whatever the number of Spaces and Units.
absl::Status ApproveSpaces(store::Tx& tx, const Vote& v, const std::vector<v1::Space>& spaces,
                           v1::ApproveResponse& out) {
  // Votes need the approver role; other attestations (a change record, a check) may also
  // come from whoever may change the Space, or from a check identity (the scanner role).
  CUB_RETURN_IF_ERROR(MayAttestAll(tx, v, spaces));
  std::vector<const v1::Space*> voting;
  store::UnitQuery q;
  q.where = v.req.where();
  for (const auto& space : spaces) {
    // Without --all, what a Release of the Space would publish: nothing, without a Target.
    if (!v.req.all() && !v.rco && space.release_target_id().empty()) {
      Skip(out, space, "", "the space has no release Target; pass All to approve its units");
      continue;
    }
    voting.push_back(&space);
    q.space_ids.push_back(space.space_id());
  }
  if (voting.empty()) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(auto units, store::ListUnits(tx, ToCaller(v.p), q));
  std::map<std::string, std::vector<const v1::Unit*>> units_of;
  std::vector<std::string> unit_ids;
  for (const auto& unit : units) {
    units_of[unit.space_id()].push_back(&unit);
    if (unit.head_revision_num() != 0) unit_ids.push_back(unit.unit_id());
  }
  std::map<std::string, store::MarkedRevision> marks;
  if (ByChangeOrderTag(v)) {
    CUB_ASSIGN_OR_RETURN(marks, store::MarkedRevisions(tx, v.rco->co.publish_tag_id, unit_ids));
  }
  std::vector<store::NewAttestation> records;
  for (const v1::Space* space : voting) {
    store::NewAttestation a = AttestationFor(v, *space);
    for (const v1::Unit* unit : units_of[space->space_id()]) {
      CUB_RETURN_IF_ERROR(AttestUnit(tx, v, *space, *unit, marks, a, out));
    }
    if (a.revisions.empty()) continue;
    if (v.req.dry_run()) {
      *out.add_attestations() = Preview(a);
    } else {
      records.push_back(std::move(a));
    }
  }
  if (records.empty()) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(auto stored, store::InsertAttestations(tx, records));
  for (auto& a : stored) *out.add_attestations() = std::move(a);
  // An approval may open a gate of the ChangeOrder it names, or of those in its Spaces.
  if (v.rco) return store::Wake(tx, {v.rco->co.id});
  std::vector<std::string> space_ids;
  for (const auto& a : records) space_ids.push_back(a.space_id);
  return store::WakeChangeOrdersInSpaces(tx, space_ids);
}

}  // namespace

absl::StatusOr<v1::ApproveResponse> Approve(store::ConnectionPool& db, const Principal& p,
                                            const v1::ApproveRequest& req) {
  const std::string type = req.type().empty() ? kApproval : req.type();
  CUB_RETURN_IF_ERROR(ValidateSlug("attestation type", type));
  if (type == kApproval && (p.service_account || p.admin)) {
    return absl::PermissionDeniedError(
        absl::StrCat("user '", p.username, "' is ",
                     p.service_account ? "a service account" : "the server administrator",
                     " and cannot vote: an approval needs a personal identity"));
  }
  CUB_RETURN_IF_ERROR(ValidateKeys("claim", req.claims()));
  CUB_ASSIGN_OR_RETURN(auto expires, ExpiresInSeconds(req.expires_in()));
  v1::ApproveResponse out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    out.Clear();
    out.set_dry_run(req.dry_run());
    std::optional<ResolvedChangeOrder> rco;
    if (!req.change_order().empty()) {
      // The vote is authorized Space by Space below.
      CUB_ASSIGN_OR_RETURN(auto r, ResolveForApproval(tx, p, req.change_order()));
      rco = std::move(r);
    }
    CUB_ASSIGN_OR_RETURN(auto spaces, SelectSpaces(tx, p, req, rco ? &*rco : nullptr));
    const Vote vote{
        p, req, type, expires, rco ? &*rco : nullptr, VoteSelector(req, rco ? &*rco : nullptr)};
    return ApproveSpaces(tx, vote, spaces, out);
  });
  if (!st.ok()) return st;
  return out;
}

absl::StatusOr<v1::Attestation> GetAttestation(store::ConnectionPool& db, const Principal& p,
                                               const v1::GetAttestationRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Attestation> {
    v1::Attestation out;
    CUB_ASSIGN_OR_RETURN(auto a, store::FindAttestation(tx, req.attestation()));
    // Readable where its Space is; an admin also reads those of deleted Spaces.
    bool visible = a && (p.admin || ResolveSpace(tx, p, a->space_id(), Access::kRead).ok());
    if (!visible) {
      return absl::NotFoundError(absl::StrCat("attestation '", req.attestation(), "' not found"));
    }
    out = *std::move(a);
    return out;
  });
}

absl::StatusOr<v1::ListAttestationsResponse> ListAttestations(
    store::ConnectionPool& db, const Principal& p, const v1::ListAttestationsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListAttestationsResponse> {
        v1::ListAttestationsResponse out;
        CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 1));
        std::string space_id;
        if (!req.space().empty()) {
          CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
          space_id = space.space_id();
        }
        CUB_ASSIGN_OR_RETURN(
            auto all, store::ListAttestations(tx, ToCaller(p), space_id, req.options().where(),
                                              {page.after, page.limit + 1}));
        out.set_next_page_token(FinishPage(page, all, [](const v1::Attestation& a) {
          return std::vector<std::string>{a.attestation_id()};
        }));
        for (auto& a : all) *out.add_attestations() = std::move(a);
        return out;
      });
}

absl::StatusOr<v1::Attestation> RevokeAttestation(store::ConnectionPool& db, const Principal& p,
                                                  const v1::RevokeAttestationRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Attestation> {
    v1::Attestation out;
    CUB_ASSIGN_OR_RETURN(auto a, store::FindAttestation(tx, req.attestation()));
    if (!a || !(p.admin || ResolveSpace(tx, p, a->space_id(), Access::kRead).ok())) {
      return absl::NotFoundError(absl::StrCat("attestation '", req.attestation(), "' not found"));
    }
    if (a->result() == "Revoke") {
      return absl::FailedPreconditionError("a revocation cannot itself be revoked");
    }
    if (!a->revoked_by_id().empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "attestation ", a->attestation_id(), " was already revoked by ", a->revoked_by_id()));
    }
    if (a->user_id() != p.user_id && !ResolveSpace(tx, p, a->space_id(), Access::kAdmin).ok()) {
      return absl::PermissionDeniedError(
          absl::StrCat("only ", a->user(), ", who recorded it, or an admin of space '",
                       a->space_slug(), "' may revoke attestation ", a->attestation_id()));
    }
    store::NewAttestation r;
    r.space_id = a->space_id();
    r.space_slug = a->space_slug();
    r.type = a->type();
    r.result = "Revoke";
    r.revokes_id = a->attestation_id();
    r.user_id = p.user_id;
    r.username = p.username;
    r.groups = p.groups;
    r.change_order_id = a->change_order_id();
    r.change_order = a->change_order();
    r.note = req.note();
    CUB_ASSIGN_OR_RETURN(out, store::InsertAttestation(tx, r));
    // A revoked approval closes gates only; the engine need not look, but a queued promotion's
    // reason is then out of date until it does.
    if (!r.change_order_id.empty()) CUB_RETURN_IF_ERROR(store::Wake(tx, {r.change_order_id}));
    return out;
  });
}

}  // namespace cub::ops
