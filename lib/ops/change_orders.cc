#include "lib/ops/change_orders.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/domain/vocabulary.h"
#include "lib/functions/registry.h"
#include "lib/ops/access.h"
#include "lib/ops/attestation_gate.h"
#include "lib/ops/functions.h"
#include "lib/ops/gates.h"
#include "lib/ops/input.h"
#include "lib/store/change_sets.h"
#include "lib/store/change_workflows.h"
#include "lib/store/promotion.h"
#include "lib/store/releases.h"
#include "lib/store/schemas.h"
#include "lib/store/spaces.h"
#include "lib/store/tags.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"
#include "lib/where/where.h"
#include "lib/workflow/parse.h"

namespace cub::ops {
namespace {

constexpr char kConfigHubYaml[] = "ConfigHub/YAML";

// The fields `cub changeorder list --where` can name; all are evaluated in memory, since
// most are derived at read.
const where::Schema& ChangeOrderSchema() {
  using where::FieldType;
  static const auto* s =
      new where::Schema("ChangeOrder", {
                                           {"ChangeOrderID", FieldType::kUuid, ""},
                                           {"SpaceID", FieldType::kUuid, ""},
                                           {"Slug", FieldType::kString, ""},
                                           {"Description", FieldType::kString, ""},
                                           {"ChangeWorkflow", FieldType::kString, ""},
                                           {"UpdateType", FieldType::kString, ""},
                                           {"PriorRevisions", FieldType::kString, ""},
                                           {"State", FieldType::kString, ""},
                                           {"Stage", FieldType::kString, ""},
                                           {"Completed", FieldType::kBool, ""},
                                           {"AbortedReason", FieldType::kString, ""},
                                           {"InScopeSpaceIDs", FieldType::kStringList, ""},
                                           {"ResolvedSpaceIDs", FieldType::kStringList, ""},
                                           {"ReleasedSpaceIDs", FieldType::kStringList, ""},
                                           {"NeedsApprovalFrom", FieldType::kStringList, ""},
                                           {"CreatedAt", FieldType::kTime, ""},
                                           {"UpdatedAt", FieldType::kTime, ""},
                                       });
  return *s;
}

class ChangeOrderRecord : public where::Record {
 public:
  explicit ChangeOrderRecord(const v1::ChangeOrder& c) : c_(c) {}
  where::Value Get(const where::FieldDef& f) const override {
    auto list = [](const auto& r) { return std::vector<std::string>(r.begin(), r.end()); };
    const std::string& n = f.name;
    if (n == "ChangeOrderID") return c_.change_order_id();
    if (n == "SpaceID") return c_.space_id();
    if (n == "Slug") return c_.slug();
    if (n == "Description") return c_.description();
    if (n == "ChangeWorkflow") return c_.change_workflow();
    if (n == "UpdateType") return c_.update_type();
    if (n == "PriorRevisions") return c_.prior_revisions();
    if (n == "State") return c_.state();
    if (n == "Stage") return c_.stage();
    if (n == "Completed") return c_.completed();
    if (n == "AbortedReason") return c_.aborted_reason();
    if (n == "InScopeSpaceIDs") return list(c_.in_scope_space_ids());
    if (n == "ResolvedSpaceIDs") return list(c_.resolved_space_ids());
    if (n == "ReleasedSpaceIDs") return list(c_.released_space_ids());
    if (n == "NeedsApprovalFrom") return list(c_.needs_approval_from());
    if (n == "CreatedAt") return c_.created_at();
    if (n == "UpdatedAt") return c_.updated_at();
    return std::monostate{};
  }

 private:
  const v1::ChangeOrder& c_;
};

absl::StatusOr<ResolvedChangeOrder> Resolved(const v1::Space& base, store::StoredChangeOrder co) {
  ResolvedChangeOrder out{base, std::move(co), std::nullopt};
  auto update_type = domain::ParseUpdateType(out.co.update_type);
  auto prior = domain::ParsePriorRevisions(out.co.prior_revisions);
  if (!update_type || !prior) {
    return absl::InternalError(absl::StrCat("change order '", out.co.slug, "': update type '",
                                            out.co.update_type, "' or prior revisions '",
                                            out.co.prior_revisions, "' does not read back"));
  }
  out.update_type = *update_type;
  out.prior_revisions = *prior;
  if (!out.co.workflow_json.empty()) {
    auto w = workflow::ParseWorkflow(out.co.workflow_json);
    if (!w.ok()) {
      return absl::InternalError(
          absl::StrCat("change order '", out.co.slug,
                       "': its workflow copy does not read back: ", w.status().message()));
    }
    out.workflow = *std::move(w);
  }
  return out;
}

// The Spaces a ChangeOrder is headed for, as fixed at creation (or --refresh-spaces).
struct Scope {
  std::vector<std::string> space_ids;  // the base first
  std::string where_space;             // the selection, if one was given
};

absl::StatusOr<Scope> EvaluateScope(store::Tx& tx, const Principal& p, const v1::Space& base,
                                    const std::string& update_type,
                                    const std::vector<std::string>& listed,
                                    const std::string& where_field, const std::string& filter_ref,
                                    const std::string& component) {
  // An Invoke ChangeOrder runs in each Space on its own: nothing is merged between them, so
  // they need not be downstream of the base, and the base is in scope only if selected.
  const auto type = domain::ParseUpdateType(update_type);
  const bool invoke =
      type && (*type == domain::UpdateType::kInvoke || domain::CopiesFromSources(*type));
  CUB_ASSIGN_OR_RETURN(
      auto downstream,
      store::DownstreamSpaces(
          tx, base.space_id(),
          invoke ? std::string(domain::UpdateTypeName(domain::UpdateType::kUpgradeUnit))
                 : update_type));
  Scope scope;
  if (!invoke) scope.space_ids.push_back(base.space_id());
  std::vector<std::string> clauses;
  if (!where_field.empty()) clauses.push_back(absl::StrCat("(", where_field, ")"));
  if (!component.empty()) {
    CUB_RETURN_IF_ERROR(ValidateSlug("component", component));
    clauses.push_back(absl::StrCat("(Component.Slug = '", component, "')"));
  }
  CUB_ASSIGN_OR_RETURN(auto filter_where, ResolveFilter(tx, p, filter_ref, base.slug(), "Space"));
  if (!filter_where.empty()) clauses.push_back(absl::StrCat("(", filter_where, ")"));
  scope.where_space = absl::StrJoin(clauses, " AND ");

  std::vector<v1::Space> chosen;
  if (listed.empty() && scope.where_space.empty()) {
    // No selection: wherever the base's Links reach.
    std::vector<std::string> ids;
    for (const auto& [id, ups] : downstream) ids.push_back(id);
    CUB_ASSIGN_OR_RETURN(auto spaces, store::SpacesAmong(tx, ids, ""));
    chosen = std::move(spaces);
  } else {
    for (const auto& ref : listed) {
      CUB_ASSIGN_OR_RETURN(auto s, ResolveSpace(tx, p, ref, Access::kRead));
      chosen.push_back(s);
    }
    if (!scope.where_space.empty()) {
      auto matched = store::ListSpaces(tx, ToCaller(p), scope.where_space, "");
      if (!matched.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("space selection: ", matched.status().message()));
      }
      chosen.insert(chosen.end(), matched->begin(), matched->end());
    }
  }
  std::map<std::string, std::string> slugs;  // id -> slug of what was chosen
  for (const auto& s : chosen) slugs[s.space_id()] = s.slug();
  if (invoke) {
    for (const auto& [id, slug] : slugs) {
      // Selected by default (wherever Links reach), the base itself is not a target.
      if (id != base.space_id() || !listed.empty() || !scope.where_space.empty()) {
        scope.space_ids.push_back(id);
      }
    }
    return scope;
  }
  slugs[base.space_id()] = base.slug();
  for (const auto& [id, slug] : slugs) {
    if (id == base.space_id()) continue;
    auto it = downstream.find(id);
    if (it == downstream.end()) {
      // A selection may match Spaces that have nothing to do with the base; only a Space
      // named explicitly is an error.
      if (std::find(listed.begin(), listed.end(), slug) != listed.end() ||
          std::find(listed.begin(), listed.end(), id) != listed.end()) {
        return absl::InvalidArgumentError(absl::StrCat("space '", slug, "' is not downstream of '",
                                                       base.slug(), "' by ", update_type,
                                                       " Links, so the change cannot reach it"));
      }
      continue;
    }
    for (const auto& up : it->second) {
      if (!slugs.count(up)) {
        // Named only to a caller who may see it.
        auto up_space = ResolveSpace(tx, p, up, Access::kRead);
        const std::string up_name =
            up_space.ok() ? absl::StrCat("'", up_space->slug(), "'") : "a Space you cannot see";
        return absl::InvalidArgumentError(absl::StrCat(
            "space '", slug, "' is in scope but ", up_name,
            ", which it takes the change from, is not: a change moves hop by hop along Links,"
            " so every Space between the base and one in scope must be in scope too"));
      }
    }
    scope.space_ids.push_back(id);
  }
  return scope;
}

struct UnitRange {
  const store::PromotionUnit* unit;
  int64_t start = 0, end = 0;
};

// Where the change starts and ends in each Unit of the base; SkippedUnits as JSON.
absl::StatusOr<std::vector<UnitRange>> FixRanges(store::Tx& tx, const v1::Space& base,
                                                 const std::vector<store::PromotionUnit>& units,
                                                 const std::vector<std::string>& scope,
                                                 const std::string& update_type,
                                                 const std::optional<v1::Tag>& end_tag,
                                                 std::string* skipped_json) {
  std::map<std::string, int64_t> end_marks;
  if (end_tag) {
    CUB_ASSIGN_OR_RETURN(auto marks, store::ListTagMarks(tx, end_tag->tag_id()));
    for (const auto& m : marks) {
      end_marks[m.unit_id()] = m.revision_num();
    }
  }
  std::vector<std::string> followers_from(scope.begin() + 1, scope.end());
  std::map<std::string, std::vector<const store::PromotionLink*>> followers;
  CUB_ASSIGN_OR_RETURN(auto links,
                       store::LoadLinksInto(tx, base.space_id(), followers_from, update_type));
  for (const auto& l : links) followers[l.to_unit_id].push_back(&l);
  std::map<std::string, std::string> space_slugs;
  if (!links.empty()) {
    CUB_ASSIGN_OR_RETURN(auto spaces, store::SpacesAmong(tx, followers_from, ""));
    for (const auto& s : spaces) space_slugs[s.space_id()] = s.slug();
  }

  std::vector<UnitRange> out;
  Json skipped = Json::array();
  auto skip = [&](const store::PromotionUnit& u, const std::string& reason) {
    skipped.push_back({{"UnitID", u.id}, {"Unit", u.slug}, {"Reason", reason}});
  };
  for (const auto& u : units) {
    if (u.toolchain_type == kConfigHubYaml) {
      skip(u, "ConfigHub/YAML units are not carried by change orders");
      continue;
    }
    if (u.head == 0) {
      skip(u, "it has no revisions");
      continue;
    }
    int64_t end = u.head;
    if (end_tag) {
      auto it = end_marks.find(u.id);
      if (it == end_marks.end()) {
        skip(u, absl::StrCat("the end tag '", end_tag->slug(), "' marks no revision of it"));
        continue;
      }
      end = it->second;
    } else if (!u.change_set_id.empty()) {
      CUB_ASSIGN_OR_RETURN(auto cs, store::FindChangeSetByID(tx, u.change_set_id));
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", u.slug, "' is in change set '", cs ? cs->slug() : u.change_set_id,
                       "', which is still open: close it and pass its end tag with EndTag"));
    }
    std::map<int64_t, std::vector<std::string>> cursors;
    for (const auto* l : followers[u.id]) {
      cursors[l->cursor].push_back(
          absl::StrCat(space_slugs[l->from_space_id], " (link ", l->slug, ")"));
    }
    if (cursors.size() > 1) {
      std::vector<std::string> parts;
      for (const auto& [num, who] : cursors) {
        parts.push_back(absl::StrCat("revision ", num, " in ", absl::StrJoin(who, ", ")));
      }
      return absl::FailedPreconditionError(absl::StrCat(
          "unit '", u.slug, "': the Spaces that follow it have merged up to different revisions (",
          absl::StrJoin(parts, "; "),
          "), so the change has no single start; upgrade them to one revision first"));
    }
    if (cursors.empty()) {
      skip(u, "no Space in scope follows it");
      out.push_back({&u, end, end});
      continue;
    }
    int64_t start = cursors.begin()->first;
    if (start > end) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", u.slug, "': the Spaces that follow it have merged revision ",
                       start, ", past the change's end at revision ", end));
    }
    if (start == end)
      skip(u, absl::StrCat("the Spaces that follow it already have revision ", end));
    out.push_back({&u, start, end});
  }
  *skipped_json = JsonText(skipped);
  return out;
}

// For a ChangeOrder that follows value-writing Links: the Units those Links lead to from the
// Spaces in scope, outside it, are its sources. Each is marked: the end Tag at its head (or
// where --end-tag marks it), the start Tag at the oldest revision a Link in scope has taken.
// Refused when such a Link is AutoUpdate, or has already resolved past the end. Returns the
// sources as SkippedUnits JSON: the change is made there, and is never promoted into them.
absl::StatusOr<std::string> MarkSources(store::Tx& tx, const store::StoredChangeOrder& co,
                                        const std::optional<v1::Tag>& end_tag) {
  std::set<std::string> scope(co.in_scope_space_ids.begin(), co.in_scope_space_ids.end());
  CUB_ASSIGN_OR_RETURN(std::vector<store::PromotionLink> links,
                       store::LoadLinksFrom(tx, co.in_scope_space_ids, co.update_type));
  std::map<std::string, int64_t> oldest;  // source unit -> oldest cursor
  std::vector<std::string> source_spaces;
  for (const auto& l : links) {
    if (scope.count(l.to_space_id)) continue;  // a Space in scope is a target, never a source
    if (l.auto_update) {
      return absl::FailedPreconditionError(absl::StrCat(
          "link '", l.slug,
          "' is AutoUpdate: it takes every new source revision at once, ahead"
          " of any gate; turn AutoUpdate off to roll changes out with a change order"));
    }
    auto it = oldest.find(l.to_unit_id);
    oldest[l.to_unit_id] = it == oldest.end() ? l.cursor : std::min(it->second, l.cursor);
    source_spaces.push_back(l.to_space_id);
  }
  if (oldest.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "no ", co.update_type,
        " Link leads from the Spaces in scope to a Unit outside them: there is nothing for this"
        " change order to roll out"));
  }
  std::map<std::string, int64_t> end_marks;
  if (end_tag) {
    CUB_ASSIGN_OR_RETURN(auto marks, store::ListTagMarks(tx, end_tag->tag_id()));
    for (const auto& m : marks) {
      end_marks[m.unit_id()] = m.revision_num();
    }
  }
  CUB_ASSIGN_OR_RETURN(
      std::vector<store::PromotionUnit> units,
      store::LoadPromotionUnits(
          tx, source_spaces, {},
          store::PromotionTags{co.start_tag_id, co.end_tag_id, co.publish_tag_id}));
  std::map<std::string, const store::PromotionUnit*> sources;
  for (const auto& u : units) sources[u.id] = &u;
  store::PromotionWrites marks;
  Json skipped = Json::array();
  for (const auto& [unit_id, start] : oldest) {
    auto found = sources.find(unit_id);
    if (found == sources.end()) continue;
    const store::PromotionUnit& unit = *found->second;
    int64_t end = unit.head;
    if (end_tag) {
      auto it = end_marks.find(unit_id);
      if (it == end_marks.end()) {
        return absl::FailedPreconditionError(absl::StrCat("the end tag '", end_tag->slug(),
                                                          "' marks no revision of source unit '",
                                                          unit.slug, "'"));
      }
      end = it->second;
    }
    for (const auto& l : links) {
      if (l.to_unit_id == unit_id && l.cursor > end) {
        return absl::FailedPreconditionError(
            absl::StrCat("link '", l.slug, "' has already resolved revision ", l.cursor,
                         " of source unit '", unit.slug, "', past the change's end at revision ",
                         end, ": resolving it to the end would take it back"));
      }
    }
    marks.marks.push_back({co.start_tag_id, unit_id, start});
    marks.marks.push_back({co.end_tag_id, unit_id, end});
    marks.marks.push_back({co.publish_tag_id, unit_id, end});
    skipped.push_back({{"UnitID", unit_id},
                       {"Unit", unit.slug},
                       {"Reason", absl::StrCat("a source: the change is its revisions ", start + 1,
                                               "..", end, ", taken by the Links in scope")}});
  }
  CUB_RETURN_IF_ERROR(store::WritePromotion(tx, marks));
  return JsonText(skipped);
}

absl::StatusOr<std::optional<v1::Tag>> ResolveEndTag(store::Tx& tx, const Principal& p,
                                                     const v1::Space& base,
                                                     const std::string& ref) {
  if (ref.empty()) return std::optional<v1::Tag>();
  SpacedRef r = SplitRef(ref, base.slug());
  CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, r.space, Access::kRead));
  CUB_ASSIGN_OR_RETURN(auto tag, store::FindTag(tx, space.space_id(), r.name));
  if (!tag) {
    return absl::NotFoundError(
        absl::StrCat("tag '", r.name, "' not found in space '", space.slug(), "'"));
  }
  // A ChangeSet's end Tag is placed when it closes: ending at one still open is refused.
  constexpr std::string_view kEnd = "-end";
  if (r.name.size() > kEnd.size() &&
      r.name.compare(r.name.size() - kEnd.size(), kEnd.size(), kEnd) == 0) {
    CUB_ASSIGN_OR_RETURN(
        auto cs,
        store::FindChangeSet(tx, space.space_id(), r.name.substr(0, r.name.size() - kEnd.size())));
    if (cs && cs->end_tag_id() == tag->tag_id() &&
        domain::ParseChangeSetState(cs->state()) == domain::ChangeSetState::kOpen) {
      return absl::FailedPreconditionError(
          absl::StrCat("change set '", cs->slug(),
                       "' is still open, so its change is not finished:"
                       " close it before naming its end tag"));
    }
  }
  return std::optional<v1::Tag>(*tag);
}

absl::StatusOr<v1::Tag> NewChangeOrderTag(store::Tx& tx, const v1::Space& base,
                                          const std::string& slug, const std::string& suffix,
                                          const std::string& what) {
  std::string name = absl::StrCat(slug, suffix);
  CUB_ASSIGN_OR_RETURN(auto taken, store::FindTag(tx, base.space_id(), name));
  if (taken) {
    return absl::AlreadyExistsError(absl::StrCat("tag '", name, "' already exists in space '",
                                                 base.slug(),
                                                 "'; a change order needs it for its own marks"));
  }
  return store::InsertTag(tx, store::NewTag{base.space_id(), name, what, {}});
}

// What attestation prerequisites the rollout waits for: the entry gates of each Stage whose
// Stage before has taken the change, the release gates of Spaces that took it but have not
// released it, and Final once the last Stage has it.
absl::Status FillPendingApprovals(store::Tx& tx, const ResolvedChangeOrder& rco,
                                  v1::ChangeOrder& view) {
  if (!rco.workflow) return absl::OkStatus();
  const auto& w = *rco.workflow;
  CUB_ASSIGN_OR_RETURN(auto members, StageMembers(tx, rco));
  std::set<std::string> resolved(rco.co.resolved_space_ids.begin(),
                                 rco.co.resolved_space_ids.end());
  resolved.insert(rco.base.space_id());
  auto taken = [&](const std::vector<v1::Space>& spaces) {
    return std::all_of(spaces.begin(), spaces.end(),
                       [&](const v1::Space& s) { return resolved.count(s.space_id()) > 0; });
  };
  std::set<std::string> needs;
  auto check = [&](const std::string& stage, const std::string& kind,
                   const std::vector<std::string>& names,
                   const std::vector<v1::Space>& over) -> absl::Status {
    for (const auto& name : names) {
      const auto* a = workflow::FindAttestationPrerequisite(w, name);
      if (!a || over.empty()) continue;
      CUB_ASSIGN_OR_RETURN(auto outcomes, EvaluateAttestation(tx, rco, *a, over, absl::Now()));
      for (size_t i = 0; i < outcomes.size(); ++i) {
        const auto& o = outcomes[i];
        if (o.held) continue;
        v1::PendingRequirement* p = view.add_pending_requirements();
        p->set_stage(stage);
        p->set_kind(kind);
        p->set_prerequisite(name);
        p->set_space_id(over[i].space_id());
        p->set_space(over[i].slug());
        p->set_message(o.message);
        for (const auto& u : o.needs_from) {
          p->add_needs_approval_from(u);
          needs.insert(u);
        }
      }
    }
    return absl::OkStatus();
  };
  for (size_t k = 0; k < w.stages.size(); ++k) {
    const std::vector<v1::Space> before =
        k == 0 ? std::vector<v1::Space>{rco.base} : members[k - 1];
    if (taken(before) && !taken(members[k])) {
      CUB_RETURN_IF_ERROR(check(w.stages[k].name, "Entry", w.stages[k].prerequisites, before));
    }
    std::vector<v1::Space> unreleased;
    for (const auto& s : members[k]) {
      if (!resolved.count(s.space_id())) continue;
      CUB_ASSIGN_OR_RETURN(bool released,
                           store::ChangeOrderReleasedIn(tx, s.space_id(), rco.co.id));
      if (!released) unreleased.push_back(s);
    }
    CUB_RETURN_IF_ERROR(
        check(w.stages[k].name, "Release", w.stages[k].release_prerequisites, unreleased));
  }
  if (!w.stages.empty() && taken(members.back()) && rco.co.stage != "Completed") {
    CUB_RETURN_IF_ERROR(
        check(w.stages.back().name, "Final", w.final.prerequisites, members.back()));
  }
  for (const auto& u : needs) view.add_needs_approval_from(u);
  return absl::OkStatus();
}

absl::StatusOr<v1::ChangeOrder> ViewOf(store::Tx& tx, const v1::Space& base,
                                       store::StoredChangeOrder co, bool approvals = false) {
  CUB_ASSIGN_OR_RETURN(auto rco, Resolved(base, std::move(co)));
  auto view = ChangeOrderView(rco);
  if (!view.ok() || !approvals) return view;
  CUB_RETURN_IF_ERROR(FillPendingApprovals(tx, rco, *view));
  return view;
}

}  // namespace

absl::StatusOr<ResolvedChangeOrder> ResolveChangeOrder(store::Tx& tx, const Principal& p,
                                                       const std::string& ref,
                                                       const std::string& default_space,
                                                       bool for_update) {
  if (ref.empty()) return absl::InvalidArgumentError("a change order is required (BASE/NAME)");
  SpacedRef r = SplitRef(ref, default_space);
  if (r.space.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("change order '", ref, "': name it as BASE-SPACE/NAME"));
  }
  CUB_ASSIGN_OR_RETURN(auto base, ResolveSpace(tx, p, r.space, Access::kRead));
  CUB_ASSIGN_OR_RETURN(auto co, store::FindChangeOrder(tx, base.space_id(), r.name, for_update));
  if (!co) {
    return absl::NotFoundError(
        absl::StrCat("change order '", r.name, "' not found in space '", base.slug(), "'"));
  }
  return Resolved(base, *std::move(co));
}

absl::StatusOr<v1::ChangeOrder> ChangeOrderView(const ResolvedChangeOrder& rco) {
  const store::StoredChangeOrder& c = rco.co;
  v1::ChangeOrder out;
  // The JSON columns are read through the API's own JSON shape.
  Json columns = Json::object();
  std::string problem;  // why the first column that does not read does not
  auto column = [&](const char* field, const std::string& text) {
    absl::StatusOr<Json> value = ParseJson(text);
    if (value.ok()) {
      columns[field] = *std::move(value);
    } else if (problem.empty()) {
      problem = absl::StrCat(field, ": ", value.status().message());
    }
  };
  column("SkippedUnits", c.skipped_units_json);
  column("PromotionFailures", c.promotion_failures_json);
  column("PromotionOverrides", c.promotion_overrides_json);
  if (!c.workflow_json.empty()) column("Workflow", c.workflow_json);
  if (problem.empty()) {
    auto st = google::protobuf::util::JsonStringToMessage(JsonText(columns), &out);
    if (!st.ok()) problem = st.ToString();
  }
  if (!problem.empty()) {
    return absl::InternalError(
        absl::StrCat("change order '", c.slug, "' does not read back: ", problem));
  }
  out.set_change_order_id(c.id);
  out.set_space_id(c.space_id);
  out.set_space_slug(c.space_slug);
  out.set_slug(c.slug);
  out.set_description(c.description);
  out.set_change_workflow(c.change_workflow);
  out.set_update_type(c.update_type);
  out.set_prior_revisions(c.prior_revisions);
  out.set_where_space(c.where_space);
  for (const auto& id : c.in_scope_space_ids) out.add_in_scope_space_ids(id);
  std::set<std::string> resolved(c.resolved_space_ids.begin(), c.resolved_space_ids.end());
  for (const auto& id : c.in_scope_space_ids) {
    if (resolved.count(id)) out.add_resolved_space_ids(id);
  }
  out.set_stage(c.stage);
  out.set_completed(c.stage == "Completed");
  out.set_aborted_reason(c.aborted_reason);
  out.set_start_tag(c.start_tag);
  out.set_end_tag(c.end_tag);
  out.set_publish_tag(c.publish_tag);
  out.set_created_by(c.created_by);
  out.set_created_at(c.created_at);
  out.set_updated_at(c.updated_at);
  out.set_version(static_cast<int32_t>(c.version));
  out.set_changed_unit_count(static_cast<int32_t>(c.changed_unit_count));
  out.set_invocation(c.invocation);
  out.set_function_name(c.function_name);
  for (const auto& a : c.function_args) out.add_function_args(a);
  out.set_where_unit(c.where_unit);
  for (const auto& id : c.released_space_ids) out.add_released_space_ids(id);
  // Released: every in-scope Space with a release Target released it (a Space without one has
  // nothing to release and does not hold it back); with no Target anywhere, Resolved is as far
  // as State goes.
  const bool all_resolved = out.resolved_space_ids_size() == out.in_scope_space_ids_size();
  for (const auto& id : c.restored_space_ids) out.add_restored_space_ids(id);
  using domain::ChangeOrderState;
  ChangeOrderState state;
  if (!c.aborted_reason.empty()) {
    // Restored once every Space that took the change (beyond its base) was demoted;
    // RestoreReleased once every one that had released it released the restored revisions.
    auto contains = [](const std::vector<std::string>& v, const std::string& x) {
      return std::find(v.begin(), v.end(), x) != v.end();
    };
    bool restored = false, rereleased = true, any_released = false;
    for (const auto& id : out.resolved_space_ids()) {
      if (id == c.space_id) continue;
      restored = true;
      if (!contains(c.restored_space_ids, id)) {
        restored = false;
        break;
      }
    }
    for (const auto& id : c.released_space_ids) {
      if (id == c.space_id) continue;
      any_released = true;
      rereleased &= contains(c.restore_released_space_ids, id);
    }
    state = !restored                    ? ChangeOrderState::kAborted
            : any_released && rereleased ? ChangeOrderState::kRestoreReleased
                                         : ChangeOrderState::kRestored;
  } else if (std::none_of(out.resolved_space_ids().begin(), out.resolved_space_ids().end(),
                          [&](const std::string& id) { return id != c.space_id; })) {
    state = ChangeOrderState::kNew;  // nowhere beyond its base yet
  } else if (all_resolved && !c.target_space_ids.empty() &&
             c.released_space_ids.size() == c.target_space_ids.size()) {
    state = ChangeOrderState::kReleased;
  } else if (all_resolved) {
    state = ChangeOrderState::kResolved;
  } else {
    state = ChangeOrderState::kInProgress;
  }
  out.set_state(std::string(domain::ChangeOrderStateName(state)));
  return out;
}

absl::StatusOr<std::string> AdvanceStage(store::Tx& tx, ResolvedChangeOrder& rco) {
  CUB_ASSIGN_OR_RETURN(auto fresh, store::FindChangeOrder(tx, rco.co.space_id, rco.co.id));
  if (!fresh) return absl::InternalError("change order vanished");
  rco.co = *std::move(fresh);
  if (!rco.workflow || rco.workflow->stages.empty()) return rco.co.stage;
  CUB_ASSIGN_OR_RETURN(auto members, StageMembers(tx, rco));
  std::set<std::string> resolved(rco.co.resolved_space_ids.begin(),
                                 rco.co.resolved_space_ids.end());
  const auto& stages = rco.workflow->stages;
  int reached = -1;
  for (size_t i = 0; i < stages.size(); ++i) {
    bool all = std::all_of(members[i].begin(), members[i].end(),
                           [&](const v1::Space& s) { return resolved.count(s.space_id()) > 0; });
    if (!all) break;
    reached = static_cast<int>(i);
  }
  std::string stage = reached >= 0 ? stages[reached].name : "";
  if (reached == static_cast<int>(stages.size()) - 1) {
    GateContext ctx{&rco, resolved, absl::Now()};
    CUB_ASSIGN_OR_RETURN(auto failures, GateFailures(tx, ctx, rco.workflow->final.prerequisites,
                                                     members.back(), "not completed"));
    if (failures.empty()) stage = "Completed";
  }
  auto rank = [&](const std::string& name) -> int {
    if (name == "Completed") return static_cast<int>(stages.size());
    for (size_t i = 0; i < stages.size(); ++i) {
      if (stages[i].name == name) return static_cast<int>(i);
    }
    return -1;
  };
  if (rank(stage) > rank(rco.co.stage)) {
    store::ChangeOrderChanges c;
    c.stage = stage;
    CUB_RETURN_IF_ERROR(store::UpdateChangeOrder(tx, rco.co.id, c));
    rco.co.stage = stage;
  }
  return rco.co.stage;
}

absl::StatusOr<v1::ChangeOrder> CreateChangeOrder(store::ConnectionPool& db, const Principal& p,
                                                  const v1::CreateChangeOrderRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("change order", req.slug()));
  CUB_RETURN_IF_ERROR(PriorRevisionsField(req.prior_revisions()).status());
  CUB_ASSIGN_OR_RETURN(std::optional<domain::UpdateType> type, UpdateTypeField(req.update_type()));
  if (!type) type = domain::UpdateType::kUpgradeUnit;
  const std::string update_type(domain::UpdateTypeName(*type));
  const bool invoke = *type == domain::UpdateType::kInvoke;
  if (invoke != !req.invocation().empty()) {
    return absl::InvalidArgumentError(invoke ? "UpdateType Invoke needs Invocation SPACE/NAME"
                                             : "Invocation goes with UpdateType Invoke");
  }
  if (!invoke &&
      (!req.params().empty() || !req.where_unit().empty() || !req.unit_filter().empty())) {
    return absl::InvalidArgumentError("Params, WhereUnit and UnitFilter go with UpdateType Invoke");
  }
  const bool from_sources = domain::CopiesFromSources(*type);
  if (from_sources) {
    // The Spaces in scope are the targets; the sources are whatever their Links lead to.
    if (req.in_scope_spaces().empty() && req.where_space_field().empty() &&
        req.space_filter().empty() && req.component().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("a ", update_type,
                       " change order needs its Spaces in scope: give Component,"
                       " InScopeSpaces, WhereSpaceField or SpaceFilter"));
    }
    if (!req.prior_revisions().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PriorRevisions does not apply to a ", update_type, " change order"));
    }
  }
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeOrder> {
    v1::ChangeOrder out;
    CUB_ASSIGN_OR_RETURN(auto base, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindChangeOrder(tx, base.space_id(), req.slug()));
    if (existing) {
      if (!req.allow_exists()) {
        return absl::AlreadyExistsError(absl::StrCat(
            "change order '", req.slug(), "' already exists in space '", base.slug(), "'"));
      }
      CUB_ASSIGN_OR_RETURN(auto view, ViewOf(tx, base, *std::move(existing)));
      out = std::move(view);
      return out;
    }
    store::StoredChangeOrder co;
    co.space_id = base.space_id();
    co.slug = req.slug();
    co.description = req.description();
    co.update_type = update_type;
    co.prior_revisions =
        req.prior_revisions().empty()
            ? std::string(domain::PriorRevisionsName(domain::PriorRevisions::kInclude))
            : req.prior_revisions();
    co.created_by = p.user_id;
    if (!req.change_workflow().empty()) {
      SpacedRef r = SplitRef(req.change_workflow(), "");
      if (r.space.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("ChangeWorkflow '", req.change_workflow(),
                                                       "': name it as SPACE/WORKFLOW"));
      }
      CUB_ASSIGN_OR_RETURN(auto wf_space, ResolveSpace(tx, p, r.space, Access::kRead));
      CUB_ASSIGN_OR_RETURN(auto wf, store::FindWorkflow(tx, wf_space.space_id(), r.name));
      if (!wf) {
        return absl::NotFoundError(absl::StrCat("changeworkflow '", r.name,
                                                "' not found in space '", wf_space.slug(), "'"));
      }
      co.change_workflow = absl::StrCat(wf_space.slug(), "/", wf->slug);
      co.workflow_json = wf->definition_json;
      if (invoke || from_sources) {
        auto w = workflow::ParseWorkflow(wf->definition_json);
        if (w.ok() && !w->stages.empty() && !w->stages[0].prerequisites.empty()) {
          return absl::InvalidArgumentError(
              absl::StrCat("workflow '", co.change_workflow, "' gates its first stage '",
                           w->stages[0].name, "', but an ", update_type,
                           " change order is in no Space before it is promoted into one:"
                           " use a workflow whose first stage has no prerequisites"));
        }
      }
    }
    if (invoke) {
      CUB_ASSIGN_OR_RETURN(auto inv, ResolveInvocation(tx, p, base.slug(), req.invocation()));
      CUB_ASSIGN_OR_RETURN(auto words, BindInvocation(inv, req.params()));
      CUB_ASSIGN_OR_RETURN(auto args,
                           functions::Registry::Default().Parse(inv.function_name(), words));
      if (args.spec().kind != functions::FunctionKind::kSet) {
        return absl::InvalidArgumentError(absl::StrCat(
            "invocation '", req.invocation(), "' runs ", inv.function_name(),
            ", which does not change data: an Invoke change order needs a set function"));
      }
      co.invocation = absl::StrCat(SplitRef(req.invocation(), base.slug()).space, "/", inv.slug());
      co.function_name = inv.function_name();
      co.function_args = std::move(words);
      std::vector<std::string> clauses;
      if (!req.where_unit().empty()) clauses.push_back(absl::StrCat("(", req.where_unit(), ")"));
      CUB_ASSIGN_OR_RETURN(auto filter,
                           ResolveFilter(tx, p, req.unit_filter(), base.slug(), "Unit"));
      if (!filter.empty()) clauses.push_back(absl::StrCat("(", filter, ")"));
      co.where_unit = absl::StrJoin(clauses, " AND ");
      if (!co.where_unit.empty()) {
        if (auto sql = where::CompileToSql(co.where_unit, store::UnitSchema()); !sql.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("WhereUnit: ", sql.status().message()));
        }
      }
    }
    CUB_ASSIGN_OR_RETURN(
        auto scope, EvaluateScope(tx, p, base, update_type,
                                  {req.in_scope_spaces().begin(), req.in_scope_spaces().end()},
                                  req.where_space_field(), req.space_filter(), req.component()));
    co.in_scope_spaces.assign(req.in_scope_spaces().begin(), req.in_scope_spaces().end());
    co.where_space = scope.where_space;
    co.in_scope_space_ids = scope.space_ids;
    CUB_ASSIGN_OR_RETURN(auto end_tag, ResolveEndTag(tx, p, base, req.end_tag()));

    CUB_ASSIGN_OR_RETURN(
        auto start, NewChangeOrderTag(tx, base, co.slug, "-co-start",
                                      "Where change order " + co.slug + " starts in each unit"));
    CUB_ASSIGN_OR_RETURN(auto end,
                         NewChangeOrderTag(tx, base, co.slug, "-co-end",
                                           "Where change order " + co.slug + " ends in each unit"));
    CUB_ASSIGN_OR_RETURN(
        auto publish, NewChangeOrderTag(tx, base, co.slug, "-co-publish",
                                        "What a release of change order " + co.slug + " bundles"));
    co.start_tag_id = start.tag_id();
    co.end_tag_id = end.tag_id();
    co.publish_tag_id = publish.tag_id();

    if (from_sources) {
      CUB_ASSIGN_OR_RETURN(auto skipped, MarkSources(tx, co, end_tag));
      co.skipped_units_json = skipped;
    }
    // An Invoke change is made in no Space yet, and one from sources in the sources: nothing
    // of the base is marked.
    CUB_ASSIGN_OR_RETURN(
        auto units,
        invoke || from_sources
            ? absl::StatusOr<std::vector<store::PromotionUnit>>(std::vector<store::PromotionUnit>{})
            : store::LoadPromotionUnits(
                  tx, {base.space_id()}, {base.space_id()},
                  store::PromotionTags{co.start_tag_id, co.end_tag_id, co.publish_tag_id}));
    CUB_ASSIGN_OR_RETURN(
        auto ranges, invoke || from_sources
                         ? absl::StatusOr<std::vector<UnitRange>>(std::vector<UnitRange>{})
                         : FixRanges(tx, base, units, co.in_scope_space_ids, update_type, end_tag,
                                     &co.skipped_units_json));
    store::PromotionWrites marks;
    for (const auto& r : ranges) {
      marks.marks.push_back({co.start_tag_id, r.unit->id, r.start});
      marks.marks.push_back({co.end_tag_id, r.unit->id, r.end});
      marks.marks.push_back({co.publish_tag_id, r.unit->id, r.end});
    }
    CUB_RETURN_IF_ERROR(store::WritePromotion(tx, marks));
    CUB_ASSIGN_OR_RETURN(auto stored, store::InsertChangeOrder(tx, co));
    CUB_ASSIGN_OR_RETURN(auto rco, Resolved(base, std::move(stored)));
    if (auto stage = AdvanceStage(tx, rco); !stage.ok()) return stage.status();
    CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderView(rco));
    out = std::move(view);
    return out;
  });
}

absl::StatusOr<v1::ChangeOrder> GetChangeOrder(store::ConnectionPool& db, const Principal& p,
                                               const v1::GetChangeOrderRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeOrder> {
    v1::ChangeOrder out;
    CUB_ASSIGN_OR_RETURN(auto rco,
                         ResolveChangeOrder(tx, p, req.change_order(), req.space(), false));
    CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderView(rco));
    CUB_RETURN_IF_ERROR(FillPendingApprovals(tx, rco, view));
    out = std::move(view);
    return out;
  });
}

absl::StatusOr<v1::ListChangeOrdersResponse> ListChangeOrders(
    store::ConnectionPool& db, const Principal& p, const v1::ListChangeOrdersRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListChangeOrdersResponse> {
        v1::ListChangeOrdersResponse out;
        std::optional<where::Matcher> matcher;
        if (!req.options().where().empty()) {
          CUB_ASSIGN_OR_RETURN(auto expr, where::Parse(req.options().where()));
          CUB_ASSIGN_OR_RETURN(auto m, where::Matcher::Create(*expr, ChangeOrderSchema()));
          matcher = std::move(m);
        }
        std::string space_id;
        std::map<std::string, v1::Space> bases;
        if (!req.space().empty() && req.space() != "*") {
          CUB_ASSIGN_OR_RETURN(auto base, ResolveSpace(tx, p, req.space(), Access::kRead));
          space_id = base.space_id();
          bases[space_id] = base;
        }
        CUB_ASSIGN_OR_RETURN(auto listed, store::ListChangeOrders(tx, ToCaller(p), space_id));
        for (auto& co : listed) {
          v1::Space base;
          base.set_space_id(co.space_id);
          base.set_slug(co.space_slug);
          // Pending approvals cost a few queries each, so they are read only when asked about.
          const bool approvals = absl::StrContains(req.options().where(), "NeedsApprovalFrom");
          CUB_ASSIGN_OR_RETURN(auto view,
                               ViewOf(tx, bases.count(co.space_id) ? bases[co.space_id] : base,
                                      std::move(co), approvals));
          if (matcher) {
            CUB_ASSIGN_OR_RETURN(auto match, matcher->Matches(ChangeOrderRecord(view)));
            if (!match) continue;
          }
          *out.add_change_orders() = std::move(view);
        }
        return out;
      });
}

absl::StatusOr<v1::ChangeOrder> UpdateChangeOrder(store::ConnectionPool& db, const Principal& p,
                                                  const v1::UpdateChangeOrderRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeOrder> {
    v1::ChangeOrder out;
    CUB_ASSIGN_OR_RETURN(auto rco,
                         ResolveChangeOrder(tx, p, req.change_order(), req.space(), true));
    if (auto w = ResolveSpace(tx, p, rco.base.slug(), Access::kWrite); !w.ok()) {
      return w.status();
    }
    store::ChangeOrderChanges c;
    if (req.has_description()) c.description = req.description();
    if (req.has_aborted_reason()) {
      if (req.aborted_reason().empty() && !rco.co.restored_space_ids.empty()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "change order '", rco.co.slug, "' has been demoted in ",
            rco.co.restored_space_ids.size(),
            " space(s): its abort cannot be cleared; promote a new change order instead"));
      }
      c.aborted_reason = req.aborted_reason();
    }
    if (req.refresh_spaces()) {
      std::vector<std::string> listed = rco.co.in_scope_spaces;
      CUB_ASSIGN_OR_RETURN(auto scope, EvaluateScope(tx, p, rco.base, rco.co.update_type, listed,
                                                     rco.co.where_space, "", ""));
      c.in_scope_space_ids = scope.space_ids;
    }
    CUB_RETURN_IF_ERROR(store::UpdateChangeOrder(tx, rco.co.id, c));
    if (auto stage = AdvanceStage(tx, rco); !stage.ok()) return stage.status();
    CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderView(rco));
    out = std::move(view);
    return out;
  });
}

}  // namespace cub::ops
