#include "lib/ops/block_gate.h"

#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/ops/promotion_report.h"
#include "lib/store/blocks.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// One Unit's content as checked, with the names its finding shows.
struct Candidate {
  store::PlannedContent content;
  std::string space_slug;
  std::string where;  // "Variant 'prod-eu'", "Space 'acme-base'"
};

std::string Where(const std::string& label, const std::string& slug) {
  return absl::StrCat(label, " '", slug, "'");
}

// The failing findings of `candidates`, one per Unit whose content is blocked, each opening
// with `prefix` ("unable to promote to stage 'prod'").
absl::StatusOr<GateReport> Findings(store::Tx& tx, const std::string& stage,
                                    const std::string& prefix,
                                    const std::vector<Candidate>& candidates, bool head_runs) {
  GateReport report;
  std::vector<store::PlannedContent> planned;
  planned.reserve(candidates.size());
  for (const auto& c : candidates) planned.push_back(c.content);
  CUB_ASSIGN_OR_RETURN(auto hits, store::FindBlockedContent(tx, planned, head_runs));
  for (const auto& h : hits) {
    const Candidate& c = candidates.at(h.index);
    GateFinding f;
    f.stage = stage;
    f.gate = h.change_order;
    f.kind = std::string(kGateBlock);
    f.space_id = c.content.space_id;
    f.space = c.space_slug;
    f.held = false;
    // The same words whether the new data or the upstream revision it merges matched: both
    // are the blocked content arriving; the evidence tells which.
    f.message =
        absl::StrCat(prefix, ": ", c.where, ", unit '", c.content.unit_slug,
                     "': its content is blocked by change order '", h.change_order,
                     "' (reason: ", h.reason, "); unblock it with cub changeorder update --space ",
                     h.base_slug, " ", h.slug, " --unblock");
    f.needs = absl::StrCat("change order '", h.change_order, "' unblocked");
    f.evidence_json = absl::StrCat(R"({"DataHash":")", h.data_hash, R"(","Matched":")",
                                   h.via_source ? "UpstreamRevision" : "NewData", R"("})");
    report.findings.push_back(std::move(f));
  }
  return report;
}

absl::Status Refusal(const GateReport& report) {
  if (report.ok()) return absl::OkStatus();
  return absl::FailedPreconditionError(absl::StrJoin(report.FailureMessages(), "; "));
}

}  // namespace

absl::StatusOr<GateReport> PromotionBlockFindings(store::Tx& tx, const ResolvedChangeOrder& rco,
                                                  const std::string& stage,
                                                  const std::vector<SpacePlan>& plans) {
  std::vector<Candidate> candidates;
  for (const auto& plan : plans) {
    if (StatusOf(plan.report) != PromotionStatus::kPromoted) continue;
    std::map<std::string, std::string> slug_of;  // unit ID -> slug
    for (const auto& u : plan.report.units()) slug_of[u.unit_id()] = u.unit();
    for (const auto& u : plan.writes.units) slug_of[u.id] = u.slug;
    // The last revision written to each Unit is the data it would have.
    std::map<std::string, const store::PromotionWrites::Revision*> last;
    for (const auto& r : plan.writes.revisions) {
      auto& l = last[r.unit_id];
      if (!l || r.num > l->num) l = &r;
    }
    const bool base = plan.report.space_id() == rco.base.space_id();
    for (const auto& [unit_id, r] : last) {
      Candidate c;
      c.content.space_id = plan.report.space_id();
      c.content.unit_slug = slug_of[unit_id];
      c.content.data_hash = r->data_hash;
      c.content.source_unit_id = r->upstream_unit_id;
      c.content.source_num = r->upstream_unit_id.empty() ? 0 : r->upstream_num;
      c.space_slug = plan.report.space();
      c.where = Where(base ? "Space" : "Variant", plan.report.space());
      candidates.push_back(std::move(c));
    }
  }
  if (candidates.empty()) return GateReport();
  std::string prefix = stage.empty() ? absl::StrCat("unable to promote change order '",
                                                    rco.base.slug(), "/", rco.co.slug, "'")
                                     : absl::StrCat("unable to promote to stage '", stage, "'");
  CUB_ASSIGN_OR_RETURN(GateReport report, Findings(tx, stage, prefix, candidates, true));
  // Each Space none of whose Units is blocked holds, with what was checked as its evidence.
  std::map<std::string, std::pair<std::string, int>> checked;  // space ID -> slug, Units
  for (const auto& c : candidates) {
    auto& e = checked[c.content.space_id];
    e.first = c.space_slug;
    ++e.second;
  }
  for (const auto& f : report.findings) checked.erase(f.space_id);
  for (const auto& [space_id, e] : checked) {
    GateFinding f;
    f.stage = stage;
    f.gate = std::string(kBlockedContentGate);
    f.kind = std::string(kGateBlock);
    f.space_id = space_id;
    f.space = e.first;
    f.held = true;
    f.evidence_json = absl::StrCat(R"({"UnitsChecked":)", e.second, "}");
    report.findings.push_back(std::move(f));
  }
  return report;
}

absl::Status CheckUpgradeBlocks(store::Tx& tx, const v1::Space& space, const std::string& unit_slug,
                                const std::string& new_hash, const std::string& prior_hash,
                                const std::string& source_unit_id, int64_t source_num) {
  if (new_hash == prior_hash) return absl::OkStatus();  // it runs this data already
  Candidate c;
  c.content = {space.space_id(), unit_slug, new_hash, source_unit_id, source_num};
  c.space_slug = space.slug();
  c.where = Where("Space", space.slug());
  // The head has the new data already (the upgrade wrote it): only a Release counts here.
  CUB_ASSIGN_OR_RETURN(
      auto report,
      Findings(tx, "", absl::StrCat("unable to upgrade unit '", unit_slug, "'"), {c}, false));
  return Refusal(report);
}

absl::Status CheckPublishBlocks(store::Tx& tx, const v1::Space& space,
                                const std::vector<v1::ReleaseUnit>& units) {
  std::vector<Candidate> candidates;
  for (const auto& u : units) {
    Candidate c;
    c.content.space_id = space.space_id();
    c.content.unit_slug = u.unit();
    c.content.data_hash = u.data_hash();
    c.space_slug = space.slug();
    c.where = Where("Space", space.slug());
    candidates.push_back(std::move(c));
  }
  if (candidates.empty()) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(
      auto report,
      Findings(tx, "", absl::StrCat("unable to publish a release of space '", space.slug(), "'"),
               candidates, false));
  return Refusal(report);
}

absl::StatusOr<GateReport> PublishBlockFindings(store::Tx& tx,
                                                const std::vector<PublishToCheck>& publishes) {
  std::vector<Candidate> candidates;
  for (const auto& p : publishes) {
    for (const auto& u : *p.units) {
      Candidate c;
      c.content.space_id = p.space->space_id();
      c.content.unit_slug = u.unit();
      c.content.data_hash = u.data_hash();
      c.space_slug = p.space->slug();
      c.where = Where("Space", p.space->slug());
      candidates.push_back(std::move(c));
    }
  }
  if (candidates.empty()) return GateReport();
  return Findings(tx, "", "unable to publish a release", candidates, false);
}

}  // namespace cub::ops
