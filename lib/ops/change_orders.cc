#include "lib/ops/change_orders.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>
#include <map>
#include <set>
#include <variant>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "lib/domain/vocabulary.h"
#include "lib/functions/registry.h"
#include "lib/ops/access.h"
#include "lib/ops/attestation_gate.h"
#include "lib/ops/change_order_block.h"
#include "lib/ops/change_order_state.h"
#include "lib/ops/events.h"
#include "lib/ops/explain.h"
#include "lib/ops/functions.h"
#include "lib/ops/gates.h"
#include "lib/ops/input.h"
#include "lib/ops/page_token.h"
#include "lib/store/change_sets.h"
#include "lib/store/change_workflows.h"
#include "lib/store/engine_work.h"
#include "lib/store/events.h"
#include "lib/store/promotion.h"
#include "lib/store/queued_promotions.h"
#include "lib/store/releases.h"
#include "lib/store/schemas.h"
#include "lib/store/spaces.h"
#include "lib/store/tags.h"
#include "lib/util/json.h"
#include "lib/util/short_list.h"
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
                                           {"Blocked", FieldType::kBool, ""},
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
    if (n == "Blocked") return c_.blocked();
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

// The selection of Spaces as one where clause: WhereSpaceField, Component and SpaceFilter, each
// in parentheses, joined by AND; empty when none is given.
absl::StatusOr<std::string> ScopeSelection(store::Tx& tx, const Principal& p, const v1::Space& base,
                                           const std::string& where_field,
                                           const std::string& filter_ref,
                                           const std::string& component) {
  std::vector<std::string> clauses;
  if (!where_field.empty()) clauses.push_back(absl::StrCat("(", where_field, ")"));
  if (!component.empty()) {
    CUB_RETURN_IF_ERROR(ValidateSlug("component", component));
    clauses.push_back(absl::StrCat("(Component.Slug = '", component, "')"));
  }
  CUB_ASSIGN_OR_RETURN(auto filter_where, ResolveFilter(tx, p, filter_ref, base.slug(), "Space"));
  if (!filter_where.empty()) clauses.push_back(absl::StrCat("(", filter_where, ")"));
  return absl::StrJoin(clauses, " AND ");
}

// The Spaces chosen: those listed and those the selection matches or, with neither, wherever
// the base's Links reach.
absl::StatusOr<std::vector<v1::Space>> ChooseSpaces(
    store::Tx& tx, const Principal& p, const std::vector<std::string>& listed,
    const std::string& where_space,
    const std::map<std::string, std::set<std::string>>& downstream) {
  std::vector<v1::Space> chosen;
  if (listed.empty() && where_space.empty()) {
    std::vector<std::string> ids;
    for (const auto& [id, ups] : downstream) ids.push_back(id);
    return store::SpacesAmong(tx, ids, "");
  }
  for (const auto& ref : listed) {
    CUB_ASSIGN_OR_RETURN(auto s, ResolveSpace(tx, p, ref, Access::kRead));
    chosen.push_back(s);
  }
  if (!where_space.empty()) {
    auto matched = store::ListSpaces(tx, ToCaller(p), where_space, "");
    if (!matched.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("space selection: ", matched.status().message()));
    }
    chosen.insert(chosen.end(), matched->begin(), matched->end());
  }
  return chosen;
}

// Of the chosen Spaces (`slugs`, id -> slug, the base among them), those the change can reach
// by `update_type` Links, appended to `scope`. A Space named in `listed` that is not downstream
// of the base is refused, as is one whose upstream Space is left out of scope.
absl::Status KeepReachable(store::Tx& tx, const Principal& p, const v1::Space& base,
                           const std::string& update_type, const std::vector<std::string>& listed,
                           const std::map<std::string, std::string>& slugs,
                           const std::map<std::string, std::set<std::string>>& downstream,
                           Scope& scope) {
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
  return absl::OkStatus();
}

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
  CUB_ASSIGN_OR_RETURN(scope.where_space,
                       ScopeSelection(tx, p, base, where_field, filter_ref, component));
  CUB_ASSIGN_OR_RETURN(std::vector<v1::Space> chosen,
                       ChooseSpaces(tx, p, listed, scope.where_space, downstream));
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
  CUB_RETURN_IF_ERROR(KeepReachable(tx, p, base, update_type, listed, slugs, downstream, scope));
  return scope;
}

struct UnitRange {
  const store::PromotionUnit* unit;
  int64_t start = 0, end = 0;
};

// The revision `end_tag` marks in each Unit it marks (unit id -> revision); none without one.
absl::StatusOr<std::map<std::string, int64_t>> EndMarks(store::Tx& tx,
                                                        const std::optional<v1::Tag>& end_tag) {
  std::map<std::string, int64_t> end_marks;
  if (end_tag) {
    CUB_ASSIGN_OR_RETURN(auto marks, store::ListTagMarks(tx, end_tag->tag_id()));
    for (const auto& m : marks) {
      end_marks[m.unit_id()] = m.revision_num();
    }
  }
  return end_marks;
}

// The Links that follow Units of the base from the Spaces in scope, with those Spaces' slugs
// to name them by.
struct Followers {
  std::vector<store::PromotionLink> links;
  std::map<std::string, std::string> space_slugs;
};

absl::StatusOr<Followers> LoadFollowers(store::Tx& tx, const v1::Space& base,
                                        const std::vector<std::string>& scope,
                                        const std::string& update_type) {
  std::vector<std::string> followers_from(scope.begin() + 1, scope.end());
  Followers out;
  CUB_ASSIGN_OR_RETURN(out.links,
                       store::LoadLinksInto(tx, base.space_id(), followers_from, update_type));
  if (!out.links.empty()) {
    CUB_ASSIGN_OR_RETURN(auto spaces, store::SpacesAmong(tx, followers_from, ""));
    for (const auto& s : spaces) out.space_slugs[s.space_id()] = s.slug();
  }
  return out;
}

// Where the change starts in `u`: the merge cursor its followers (`links`, those into it)
// agree on; nullopt when none follows it. Refused when they disagree.
absl::StatusOr<std::optional<int64_t>> AgreedStart(
    const store::PromotionUnit& u, const std::vector<const store::PromotionLink*>& links,
    const std::map<std::string, std::string>& space_slugs) {
  std::map<int64_t, std::vector<std::string>> cursors;
  for (const auto* l : links) {
    auto slug = space_slugs.find(l->from_space_id);
    cursors[l->cursor].push_back(absl::StrCat(
        slug == space_slugs.end() ? std::string() : slug->second, " (link ", l->slug, ")"));
  }
  if (cursors.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [num, who] : cursors) {
      parts.push_back(absl::StrCat("revision ", num, " in ", ShortList(who)));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "unit '", u.slug, "': the Spaces that follow it have merged up to different revisions (",
        absl::StrJoin(parts, "; "),
        "), so the change has no single start; upgrade them to one revision first"));
  }
  if (cursors.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(cursors.begin()->first);
}

// Where the change starts and ends in each Unit of the base; SkippedUnits as JSON.
absl::StatusOr<std::vector<UnitRange>> FixRanges(store::Tx& tx, const v1::Space& base,
                                                 const std::vector<store::PromotionUnit>& units,
                                                 const std::vector<std::string>& scope,
                                                 const std::string& update_type,
                                                 const std::optional<v1::Tag>& end_tag,
                                                 std::string* skipped_json) {
  CUB_ASSIGN_OR_RETURN(auto end_marks, EndMarks(tx, end_tag));
  CUB_ASSIGN_OR_RETURN(Followers followers, LoadFollowers(tx, base, scope, update_type));
  std::map<std::string, std::vector<const store::PromotionLink*>> into;  // unit id -> Links
  for (const auto& l : followers.links) into[l.to_unit_id].push_back(&l);
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
    CUB_ASSIGN_OR_RETURN(std::optional<int64_t> start,
                         AgreedStart(u, into[u.id], followers.space_slugs));
    if (!start) {
      skip(u, "no Space in scope follows it");
      out.push_back({&u, end, end});
      continue;
    }
    if (*start > end) {
      return absl::FailedPreconditionError(
          absl::StrCat("unit '", u.slug, "': the Spaces that follow it have merged revision ",
                       *start, ", past the change's end at revision ", end));
    }
    if (*start == end)
      skip(u, absl::StrCat("the Spaces that follow it already have revision ", end));
    out.push_back({&u, *start, end});
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
  CUB_ASSIGN_OR_RETURN(auto end_marks, EndMarks(tx, end_tag));
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

// What attestation prerequisites the rollout waits for, from the explanation (lib/ops/explain.h):
// the entry gates of the next Stage and of Stages with a queued promotion, the release gates of
// Spaces that took the change but have not released it, and Final once the last Stage has it.
absl::Status FillPendingApprovals(store::Tx& tx, const ResolvedChangeOrder& rco,
                                  v1::ChangeOrder& view) {
  // Only attestations become pending requirements. A workflow none of whose gates names one
  // has none to list, and explaining it would read every Stage's members and evaluate every
  // other gate over them only to drop the findings (16 of the 30 ms of cubd's time for a
  // ChangeOrder blocked before a 10,000-Space Stage).
  if (!rco.workflow || !workflow::GatesOnAttestation(*rco.workflow)) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(Explanation e, Explain(tx, rco));
  FillPendingRequirements(e, view);
  return absl::OkStatus();
}

// The JSON columns (SkippedUnits, PromotionFailures, PromotionOverrides, the Workflow copy),
// read into `out` through the API's own JSON shape.
absl::Status ReadJsonColumns(const store::StoredChangeOrder& c, v1::ChangeOrder& out) {
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
  return absl::OkStatus();
}

// The columns shown as stored, ResolvedSpaceIDs among those in scope, and Completed from the
// recorded Stage.
void CopyRecordedFields(const store::StoredChangeOrder& c, v1::ChangeOrder& out) {
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
  for (const auto& id : ResolvedInScope(c)) out.add_resolved_space_ids(id);
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
  for (const auto& id : c.restored_space_ids) out.add_restored_space_ids(id);
  out.set_blocked(!c.blocked_at.empty());
  out.set_blocked_at(c.blocked_at);
  out.set_blocked_by(c.blocked_by);
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

namespace {

// The view of `rco` as read, in State `state` (derived from its lists or, for a Basic list,
// from counts in their place).
absl::StatusOr<v1::ChangeOrder> ViewInState(const ResolvedChangeOrder& rco,
                                            domain::ChangeOrderState state) {
  v1::ChangeOrder out;
  CUB_RETURN_IF_ERROR(ReadJsonColumns(rco.co, out));
  CopyRecordedFields(rco.co, out);
  out.set_state(std::string(domain::ChangeOrderStateName(state)));
  return out;
}

}  // namespace

absl::StatusOr<v1::ChangeOrder> ChangeOrderView(const ResolvedChangeOrder& rco) {
  return ViewInState(rco, DeriveChangeOrderState(rco.co));
}

absl::StatusOr<v1::ChangeOrder> ChangeOrderViewWithApprovals(store::Tx& tx,
                                                             const ResolvedChangeOrder& rco) {
  CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderView(rco));
  CUB_RETURN_IF_ERROR(FillPendingApprovals(tx, rco, view));
  return view;
}

absl::StatusOr<std::string> AdvanceStage(store::Tx& tx, ResolvedChangeOrder& rco) {
  CUB_ASSIGN_OR_RETURN(auto fresh, store::FindChangeOrder(tx, rco.co.space_id, rco.co.id));
  if (!fresh) return absl::InternalError("change order vanished");
  rco.co = *std::move(fresh);
  if (!rco.workflow || rco.workflow->stages.empty()) return rco.co.stage;
  CUB_ASSIGN_OR_RETURN(auto members, StageMemberNames(tx, rco));
  std::set<std::string> resolved(rco.co.resolved_space_ids.begin(),
                                 rco.co.resolved_space_ids.end());
  const auto& stages = rco.workflow->stages;
  int reached = -1;
  for (size_t i = 0; i < stages.size(); ++i) {
    bool all = std::all_of(members[i].begin(), members[i].end(), [&](const store::SpaceName& s) {
      return resolved.count(s.space_id) > 0;
    });
    if (!all) break;
    reached = static_cast<int>(i);
  }
  std::string stage = reached >= 0 ? stages[reached].name : "";
  if (reached == static_cast<int>(stages.size()) - 1) {
    GateContext ctx{&rco, resolved, absl::Now()};
    CUB_ASSIGN_OR_RETURN(auto last, GatedSpaces(tx, members.back(), resolved, *rco.workflow,
                                                rco.workflow->final.prerequisites));
    CUB_ASSIGN_OR_RETURN(auto failures, GateFailures(tx, ctx, rco.workflow->final.prerequisites,
                                                     last, "not completed"));
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

namespace {

// What kind of ChangeOrder a create request asks for, checked before anything is read.
struct CreateKind {
  domain::UpdateType type = domain::UpdateType::kUpgradeUnit;
  std::string update_type;    // its name
  bool invoke = false;        // runs a function in each Space in scope
  bool from_sources = false;  // copies what the Links in scope lead to
};

// The request's fields that go together (or not) for its update type.
absl::StatusOr<CreateKind> CheckCreateRequest(const v1::CreateChangeOrderRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("change order", req.slug()));
  CUB_RETURN_IF_ERROR(PriorRevisionsField(req.prior_revisions()).status());
  CUB_ASSIGN_OR_RETURN(std::optional<domain::UpdateType> type, UpdateTypeField(req.update_type()));
  CreateKind kind;
  if (type) kind.type = *type;
  kind.update_type = std::string(domain::UpdateTypeName(kind.type));
  kind.invoke = kind.type == domain::UpdateType::kInvoke;
  kind.from_sources = domain::CopiesFromSources(kind.type);
  if (kind.invoke != !req.invocation().empty()) {
    return absl::InvalidArgumentError(kind.invoke ? "UpdateType Invoke needs Invocation SPACE/NAME"
                                                  : "Invocation goes with UpdateType Invoke");
  }
  if (!kind.invoke &&
      (!req.params().empty() || !req.where_unit().empty() || !req.unit_filter().empty())) {
    return absl::InvalidArgumentError("Params, WhereUnit and UnitFilter go with UpdateType Invoke");
  }
  if (kind.from_sources) {
    // The Spaces in scope are the targets; the sources are whatever their Links lead to.
    if (req.in_scope_spaces().empty() && req.where_space_field().empty() &&
        req.space_filter().empty() && req.component().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("a ", kind.update_type,
                       " change order needs its Spaces in scope: give Component,"
                       " InScopeSpaces, WhereSpaceField or SpaceFilter"));
    }
    if (!req.prior_revisions().empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("PriorRevisions does not apply to a ", kind.update_type, " change order"));
    }
  }
  return kind;
}

// A ChangeOrder of that name already in the base: refused, or answered as it is when the
// request allows that.
absl::StatusOr<v1::ChangeOrder> AnswerExisting(store::Tx& tx, const v1::Space& base,
                                               const v1::CreateChangeOrderRequest& req,
                                               store::StoredChangeOrder existing) {
  if (!req.allow_exists()) {
    return absl::AlreadyExistsError(absl::StrCat("change order '", req.slug(),
                                                 "' already exists in space '", base.slug(), "'"));
  }
  return ViewOf(tx, base, std::move(existing));
}

// The row as the request gives it, before anything is looked up.
store::StoredChangeOrder RowFromRequest(const Principal& p, const v1::Space& base,
                                        const v1::CreateChangeOrderRequest& req,
                                        const CreateKind& kind) {
  store::StoredChangeOrder co;
  co.space_id = base.space_id();
  co.slug = req.slug();
  co.description = req.description();
  co.update_type = kind.update_type;
  co.prior_revisions =
      req.prior_revisions().empty()
          ? std::string(domain::PriorRevisionsName(domain::PriorRevisions::kInclude))
          : req.prior_revisions();
  co.created_by = p.user_id;
  return co;
}

// Copies the governing workflow (SPACE/WORKFLOW) into `co`, so editing it later does not change
// the rules. A ChangeOrder that starts in no Space cannot pass a gate on its first Stage.
absl::Status CopyWorkflow(store::Tx& tx, const Principal& p, const std::string& ref,
                          const CreateKind& kind, store::StoredChangeOrder& co) {
  if (ref.empty()) return absl::OkStatus();
  SpacedRef r = SplitRef(ref, "");
  if (r.space.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ChangeWorkflow '", ref, "': name it as SPACE/WORKFLOW"));
  }
  CUB_ASSIGN_OR_RETURN(auto wf_space, ResolveSpace(tx, p, r.space, Access::kRead));
  CUB_ASSIGN_OR_RETURN(auto wf, store::FindWorkflow(tx, wf_space.space_id(), r.name));
  if (!wf) {
    return absl::NotFoundError(
        absl::StrCat("changeworkflow '", r.name, "' not found in space '", wf_space.slug(), "'"));
  }
  co.change_workflow = absl::StrCat(wf_space.slug(), "/", wf->slug);
  co.workflow_json = wf->definition_json;
  if (!kind.invoke && !kind.from_sources) return absl::OkStatus();
  auto w = workflow::ParseWorkflow(wf->definition_json);
  if (w.ok() && !w->stages.empty() && !w->stages[0].prerequisites.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workflow '", co.change_workflow, "' gates its first stage '",
                     w->stages[0].name, "', but an ", kind.update_type,
                     " change order is in no Space before it is promoted into one:"
                     " use a workflow whose first stage has no prerequisites"));
  }
  return absl::OkStatus();
}

// For an Invoke ChangeOrder: the set function its Invocation runs, with the Params bound, and
// the Units it runs on (WhereUnit and UnitFilter), fixed in `co`.
absl::Status BindInvokeFunction(store::Tx& tx, const Principal& p, const v1::Space& base,
                                const v1::CreateChangeOrderRequest& req,
                                store::StoredChangeOrder& co) {
  CUB_ASSIGN_OR_RETURN(auto inv, ResolveInvocation(tx, p, base.slug(), req.invocation()));
  CUB_ASSIGN_OR_RETURN(auto words, BindInvocation(inv, req.params()));
  CUB_ASSIGN_OR_RETURN(auto args, functions::Registry::Default().Parse(inv.function_name(), words));
  if (args.spec().kind != functions::FunctionKind::kSet) {
    return absl::InvalidArgumentError(
        absl::StrCat("invocation '", req.invocation(), "' runs ", inv.function_name(),
                     ", which does not change data: an Invoke change order needs a set function"));
  }
  co.invocation = absl::StrCat(SplitRef(req.invocation(), base.slug()).space, "/", inv.slug());
  co.function_name = inv.function_name();
  co.function_args = std::move(words);
  std::vector<std::string> clauses;
  if (!req.where_unit().empty()) clauses.push_back(absl::StrCat("(", req.where_unit(), ")"));
  CUB_ASSIGN_OR_RETURN(auto filter, ResolveFilter(tx, p, req.unit_filter(), base.slug(), "Unit"));
  if (!filter.empty()) clauses.push_back(absl::StrCat("(", filter, ")"));
  co.where_unit = absl::StrJoin(clauses, " AND ");
  if (!co.where_unit.empty()) {
    if (auto sql = where::CompileToSql(co.where_unit, store::UnitSchema()); !sql.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("WhereUnit: ", sql.status().message()));
    }
  }
  return absl::OkStatus();
}

// The Spaces in scope, fixed in `co` with the selection that chose them.
absl::Status FixScope(store::Tx& tx, const Principal& p, const v1::Space& base,
                      const v1::CreateChangeOrderRequest& req, store::StoredChangeOrder& co) {
  CUB_ASSIGN_OR_RETURN(auto scope,
                       EvaluateScope(tx, p, base, co.update_type,
                                     {req.in_scope_spaces().begin(), req.in_scope_spaces().end()},
                                     req.where_space_field(), req.space_filter(), req.component()));
  co.in_scope_spaces.assign(req.in_scope_spaces().begin(), req.in_scope_spaces().end());
  co.where_space = scope.where_space;
  co.in_scope_space_ids = scope.space_ids;
  return absl::OkStatus();
}

// The ChangeOrder's own Tags in the base: NAME-co-start, NAME-co-end and NAME-co-publish.
absl::Status CreateMarkTags(store::Tx& tx, const v1::Space& base, store::StoredChangeOrder& co) {
  CUB_ASSIGN_OR_RETURN(auto start,
                       NewChangeOrderTag(tx, base, co.slug, "-co-start",
                                         "Where change order " + co.slug + " starts in each unit"));
  CUB_ASSIGN_OR_RETURN(auto end,
                       NewChangeOrderTag(tx, base, co.slug, "-co-end",
                                         "Where change order " + co.slug + " ends in each unit"));
  CUB_ASSIGN_OR_RETURN(auto publish,
                       NewChangeOrderTag(tx, base, co.slug, "-co-publish",
                                         "What a release of change order " + co.slug + " bundles"));
  co.start_tag_id = start.tag_id();
  co.end_tag_id = end.tag_id();
  co.publish_tag_id = publish.tag_id();
  return absl::OkStatus();
}

// The marks of each Unit of the base: start and end of its range, and the publish Tag at the
// end. Units left out are recorded as SkippedUnits in `co`.
absl::StatusOr<store::PromotionWrites> BaseUnitMarks(store::Tx& tx, const v1::Space& base,
                                                     const std::optional<v1::Tag>& end_tag,
                                                     store::StoredChangeOrder& co) {
  CUB_ASSIGN_OR_RETURN(
      std::vector<store::PromotionUnit> units,
      store::LoadPromotionUnits(
          tx, {base.space_id()}, {base.space_id()},
          store::PromotionTags{co.start_tag_id, co.end_tag_id, co.publish_tag_id}));
  CUB_ASSIGN_OR_RETURN(std::vector<UnitRange> ranges,
                       FixRanges(tx, base, units, co.in_scope_space_ids, co.update_type, end_tag,
                                 &co.skipped_units_json));
  store::PromotionWrites marks;
  for (const auto& r : ranges) {
    marks.marks.push_back({co.start_tag_id, r.unit->id, r.start});
    marks.marks.push_back({co.end_tag_id, r.unit->id, r.end});
    marks.marks.push_back({co.publish_tag_id, r.unit->id, r.end});
  }
  return marks;
}

// Marks where the change starts and ends. An Invoke change is made in no Space yet, and one
// from sources in the sources (MarkSources): nothing of the base is marked.
absl::Status MarkRanges(store::Tx& tx, const v1::Space& base, const CreateKind& kind,
                        const std::optional<v1::Tag>& end_tag, store::StoredChangeOrder& co) {
  if (kind.from_sources) {
    CUB_ASSIGN_OR_RETURN(co.skipped_units_json, MarkSources(tx, co, end_tag));
  }
  store::PromotionWrites marks;
  if (!kind.invoke && !kind.from_sources) {
    CUB_ASSIGN_OR_RETURN(marks, BaseUnitMarks(tx, base, end_tag, co));
  }
  return store::WritePromotion(tx, marks);
}

// Inserts the row and answers with the ChangeOrder as read back, its Stage advanced to where
// the change already is.
absl::StatusOr<v1::ChangeOrder> InsertAndAnswer(store::Tx& tx, const v1::Space& base,
                                                const store::StoredChangeOrder& co) {
  CUB_ASSIGN_OR_RETURN(auto stored, store::InsertChangeOrder(tx, co));
  CUB_ASSIGN_OR_RETURN(auto rco, Resolved(base, std::move(stored)));
  CUB_RETURN_IF_ERROR(AdvanceStage(tx, rco));
  // Its first Stage may be Automatic.
  CUB_RETURN_IF_ERROR(store::Wake(tx, {rco.co.id}));
  return ChangeOrderView(rco);
}

}  // namespace

absl::StatusOr<v1::ChangeOrder> CreateChangeOrder(store::ConnectionPool& db, const Principal& p,
                                                  const v1::CreateChangeOrderRequest& req) {
  CUB_ASSIGN_OR_RETURN(const CreateKind kind, CheckCreateRequest(req));
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeOrder> {
    CUB_ASSIGN_OR_RETURN(auto base, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindChangeOrder(tx, base.space_id(), req.slug()));
    if (existing) return AnswerExisting(tx, base, req, *std::move(existing));
    store::StoredChangeOrder co = RowFromRequest(p, base, req, kind);
    CUB_RETURN_IF_ERROR(CopyWorkflow(tx, p, req.change_workflow(), kind, co));
    if (kind.invoke) CUB_RETURN_IF_ERROR(BindInvokeFunction(tx, p, base, req, co));
    CUB_RETURN_IF_ERROR(FixScope(tx, p, base, req, co));
    CUB_ASSIGN_OR_RETURN(auto end_tag, ResolveEndTag(tx, p, base, req.end_tag()));
    CUB_RETURN_IF_ERROR(CreateMarkTags(tx, base, co));
    CUB_RETURN_IF_ERROR(MarkRanges(tx, base, kind, end_tag, co));
    return InsertAndAnswer(tx, base, co);
  });
}

absl::StatusOr<v1::ChangeOrder> GetChangeOrder(store::ConnectionPool& db, const Principal& p,
                                               const v1::GetChangeOrderRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeOrder> {
    CUB_ASSIGN_OR_RETURN(auto rco,
                         ResolveChangeOrder(tx, p, req.change_order(), req.space(), false));
    CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderViewWithApprovals(tx, rco));
    CUB_ASSIGN_OR_RETURN(*view.mutable_engine(), store::EngineStateOf(tx, rco.co.id));
    return view;
  });
}

namespace {

// Where a list reads from: the base Spaces resolved so far by ID (the one named by Space, if
// any), and whether pending approvals are read.
struct ListContext {
  const Principal& p;
  std::string space_id;  // empty: every Space the caller can see
  std::map<std::string, v1::Space> bases;
  bool approvals = false;

  // The base of a listed ChangeOrder: the resolved one, or its ID and slug as listed.
  v1::Space BaseOf(const store::StoredChangeOrder& co) const {
    if (auto it = bases.find(co.space_id); it != bases.end()) return it->second;
    v1::Space base;
    base.set_space_id(co.space_id);
    base.set_slug(co.space_slug);
    return base;
  }
};

// A ChangeOrder of a list batch, read in full or without its Space ID lists (Basic).
using ListedRow = std::variant<store::StoredChangeOrder, store::StoredChangeOrderBasic>;

const store::StoredChangeOrder& RecordOf(const ListedRow& row) {
  if (const auto* basic = std::get_if<store::StoredChangeOrderBasic>(&row)) return basic->co;
  return std::get<store::StoredChangeOrder>(row);
}

// One keyset batch, read in full or (`full` false) without the Space ID lists.
absl::StatusOr<std::vector<ListedRow>> ReadBatch(store::Tx& tx, const ListContext& ctx,
                                                 const store::Keyset& batch, bool full) {
  std::vector<ListedRow> out;
  if (full) {
    CUB_ASSIGN_OR_RETURN(auto listed,
                         store::ListChangeOrders(tx, ToCaller(ctx.p), ctx.space_id, batch));
    for (auto& co : listed) out.emplace_back(std::move(co));
  } else {
    CUB_ASSIGN_OR_RETURN(auto listed,
                         store::ListChangeOrderBasics(tx, ToCaller(ctx.p), ctx.space_id, batch));
    for (auto& b : listed) out.emplace_back(std::move(b));
  }
  return out;
}

// The view of a ChangeOrder read without its Space ID lists (a Basic list): what ChangeOrderView
// answers for the whole one, less the lists, with State derived from the counts read in their
// place. An Invoke ChangeOrder is read again in full: its resolved Spaces are rechecked against
// its Unit selection at a full read, which the counts do not do.
absl::StatusOr<std::optional<v1::ChangeOrder>> BasicViewOf(store::Tx& tx, const v1::Space& base,
                                                           store::StoredChangeOrderBasic b) {
  if (domain::ParseUpdateType(b.co.update_type) == domain::UpdateType::kInvoke) {
    CUB_ASSIGN_OR_RETURN(auto full, store::FindChangeOrder(tx, b.co.space_id, b.co.id));
    if (!full) return std::nullopt;  // deleted since the list read it
    return ViewOf(tx, base, *std::move(full));
  }
  CUB_ASSIGN_OR_RETURN(auto rco, Resolved(base, std::move(b.co)));
  return ViewInState(rco, DeriveChangeOrderState(rco.co.aborted_reason, b.counts));
}

// The view of a listed ChangeOrder; nullopt for an Invoke one deleted since the list read it.
absl::StatusOr<std::optional<v1::ChangeOrder>> ListedViewOf(store::Tx& tx, const ListContext& ctx,
                                                            ListedRow row) {
  const v1::Space base = ctx.BaseOf(RecordOf(row));
  if (auto* basic = std::get_if<store::StoredChangeOrderBasic>(&row)) {
    return BasicViewOf(tx, base, std::move(*basic));
  }
  return ViewOf(tx, base, std::get<store::StoredChangeOrder>(std::move(row)), ctx.approvals);
}

// Whether `expr` names a Space ID list, which a Basic read leaves out. (NeedsApprovalFrom,
// explained from the whole ChangeOrder, asks for a full read through ListContext::approvals.)
bool NamesSpaceIdList(const where::Expr& expr) {
  for (const std::string& field : where::FieldsUsed(expr)) {
    if (field == "InScopeSpaceIDs" || field == "ResolvedSpaceIDs" || field == "ReleasedSpaceIDs") {
      return true;
    }
  }
  return false;
}

// One page of ListChangeOrders. Where is matched against the ChangeOrders' views (some of its
// fields are computed, not columns), so rows are read from SQL in keyset batches of the page's
// size until the page is full or the list ends; the next token is the key of the page's last
// match, which a later page starts after. A Basic list is read without the Space ID lists
// unless Where names a field only a full read answers: either way Where sees what it would see
// in a Full list.
absl::StatusOr<v1::ListChangeOrdersResponse> ChangeOrderPage(store::Tx& tx, const Principal& p,
                                                             const v1::ListChangeOrdersRequest& req,
                                                             const PageStart& page) {
  v1::ListChangeOrdersResponse out;
  std::optional<where::Matcher> matcher;
  bool full_read = req.view() != "Basic";
  if (!req.options().where().empty()) {
    CUB_ASSIGN_OR_RETURN(auto expr, where::Parse(req.options().where()));
    CUB_ASSIGN_OR_RETURN(auto m, where::Matcher::Create(*expr, ChangeOrderSchema()));
    matcher = std::move(m);
    full_read = full_read || NamesSpaceIdList(*expr);
  }
  ListContext ctx{p};
  if (!req.space().empty() && req.space() != "*") {
    CUB_ASSIGN_OR_RETURN(auto base, ResolveSpace(tx, p, req.space(), Access::kRead));
    ctx.space_id = base.space_id();
    ctx.bases[ctx.space_id] = base;
  }
  // Pending approvals cost a few queries each, so they are read only when asked about.
  ctx.approvals = absl::StrContains(req.options().where(), "NeedsApprovalFrom");
  full_read = full_read || ctx.approvals;
  store::Keyset batch{page.after, page.limit + 1};
  std::vector<std::string> last_key;
  while (true) {
    CUB_ASSIGN_OR_RETURN(auto listed, ReadBatch(tx, ctx, batch, full_read));
    const bool exhausted = listed.size() < static_cast<size_t>(batch.limit);
    if (!listed.empty()) {
      batch.after = {RecordOf(listed.back()).space_slug, RecordOf(listed.back()).slug};
    }
    for (auto& row : listed) {
      if (out.change_orders_size() == page.limit) {
        out.set_next_page_token(NextPageToken(page, last_key));
        return out;
      }
      std::vector<std::string> key = {RecordOf(row).space_slug, RecordOf(row).slug};
      CUB_ASSIGN_OR_RETURN(auto view, ListedViewOf(tx, ctx, std::move(row)));
      if (!view) continue;
      if (matcher) {
        CUB_ASSIGN_OR_RETURN(auto match, matcher->Matches(ChangeOrderRecord(*view)));
        if (!match) continue;
      }
      *out.add_change_orders() = *std::move(view);
      last_key = std::move(key);
    }
    if (exhausted) return out;
  }
}

}  // namespace

absl::StatusOr<v1::ListChangeOrdersResponse> ListChangeOrders(
    store::ConnectionPool& db, const Principal& p, const v1::ListChangeOrdersRequest& req) {
  if (req.view() != "" && req.view() != "Full" && req.view() != "Basic") {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown View '", req.view().substr(0, 40), "'; use Basic or Full"));
  }
  CUB_ASSIGN_OR_RETURN(PageStart page, ReadPageStart(req, req.limit(), req.page_token(), 2));
  CUB_ASSIGN_OR_RETURN(auto out,
                       store::InReadTransaction(
                           db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListChangeOrdersResponse> {
                             return ChangeOrderPage(tx, p, req, page);
                           }));
  // A Basic list selects as a Full one does: the lists of one read in full (Where named one of
  // them) are cleared after Where has matched the whole view.
  if (req.view() == "Basic") {
    for (v1::ChangeOrder& co : *out.mutable_change_orders()) {
      co.clear_in_scope_space_ids();
      co.clear_resolved_space_ids();
      co.clear_released_space_ids();
      co.clear_restored_space_ids();
    }
  }
  return out;
}

namespace {

// An aborted ChangeOrder is promoted nowhere: its queued promotions are withdrawn, each
// recorded as a Withdrawn event.
absl::Status WithdrawQueuedOnAbort(store::Tx& tx, const Principal& p,
                                   const ResolvedChangeOrder& rco) {
  CUB_ASSIGN_OR_RETURN(auto queued, store::QueuedPromotionsOf(tx, rco.co.id));
  for (const auto& q : queued) {
    CUB_RETURN_IF_ERROR(store::DeleteQueuedPromotion(tx, rco.co.id, q.view.stage()).status());
    CUB_RETURN_IF_ERROR(store::AppendEvent(
        tx, ChangeOrderEvent(rco, p, "Withdrawn", q.view.stage(),
                             absl::StrCat("queued promotion into stage '", q.view.stage(),
                                          "' withdrawn: the change order was aborted"))));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::ChangeOrder> UpdateChangeOrder(store::ConnectionPool& db, const Principal& p,
                                                  const v1::UpdateChangeOrderRequest& req) {
  return store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::ChangeOrder> {
    v1::ChangeOrder out;
    CUB_ASSIGN_OR_RETURN(auto rco,
                         ResolveChangeOrder(tx, p, req.change_order(), req.space(), true));
    if (auto w = ResolveSpace(tx, p, rco.base.slug(), Access::kWrite); !w.ok()) {
      return w.status();
    }
    CUB_RETURN_IF_ERROR(CheckBlockRequest(rco, req));
    // A block holds its content in every Space of the server, so it is the base's admins' call.
    if (req.block() || req.unblock()) {
      if (auto a = ResolveSpace(tx, p, rco.base.slug(), Access::kAdmin); !a.ok()) {
        return absl::PermissionDeniedError(
            absl::StrCat(req.block() ? "Block" : "Unblock",
                         " needs the admin role on the base: ", a.status().message()));
      }
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
    CUB_RETURN_IF_ERROR(ApplyBlockRequest(tx, p, rco, req));
    if (auto stage = AdvanceStage(tx, rco); !stage.ok()) return stage.status();
    if (c.aborted_reason && !c.aborted_reason->empty()) {
      CUB_RETURN_IF_ERROR(WithdrawQueuedOnAbort(tx, p, rco));
    }
    CUB_RETURN_IF_ERROR(store::Wake(tx, {rco.co.id}));
    CUB_ASSIGN_OR_RETURN(auto view, ChangeOrderView(rco));
    out = std::move(view);
    return out;
  });
}

}  // namespace cub::ops
