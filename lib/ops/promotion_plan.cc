#include "lib/ops/promotion_plan.h"

#include <map>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/diff.h"
#include "lib/config/merge.h"
#include "lib/config/protection.h"
#include "lib/config/yaml.h"
#include "lib/ops/upgrade.h"
#include "lib/ops/validation.h"
#include "lib/store/spaces.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"
#include "lib/util/uuid.h"

namespace cub::ops {
namespace {

constexpr char kConfigHubYaml[] = "ConfigHub/YAML";

using RevisionKey = std::pair<std::string, int64_t>;
using RevisionMap = std::map<RevisionKey, store::RevisionData>;

// Upstream revisions parsed once, and the Change between consecutive ones computed once, for
// however many targets merge them.
class UpstreamCache {
 public:
  explicit UpstreamCache(const RevisionMap& data) : data_(data) {}

  // Revision `num` of the Unit (nullptr for revision 0, the Unit before it existed).
  absl::StatusOr<const store::RevisionData*> Data(const std::string& unit, int64_t num) const {
    if (num == 0) return nullptr;
    auto it = data_.find({unit, num});
    if (it == data_.end()) {
      return absl::InternalError(absl::StrCat("revision ", num, " of unit ", unit, " not loaded"));
    }
    return &it->second;
  }

  absl::StatusOr<const std::vector<config::Node>*> Docs(const std::string& unit, int64_t num) {
    auto key = std::make_pair(unit, num);
    if (auto it = docs_.find(key); it != docs_.end()) return &it->second;
    std::vector<config::Node> docs;
    if (num > 0) {
      CUB_ASSIGN_OR_RETURN(auto d, Data(unit, num));
      auto parsed = config::ParseYaml((d)->data);
      if (!parsed.ok()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "upstream revision ", num, " does not parse: ", parsed.status().message()));
      }
      docs = *std::move(parsed);
    }
    return &docs_.emplace(key, std::move(docs)).first->second;
  }

  absl::StatusOr<const config::Change*> Step(const std::string& unit, int64_t from, int64_t to) {
    auto key = std::make_tuple(unit, from, to);
    if (auto it = steps_.find(key); it != steps_.end()) return it->second.get();
    CUB_ASSIGN_OR_RETURN(auto a, Docs(unit, from));
    CUB_ASSIGN_OR_RETURN(auto b, Docs(unit, to));
    auto change = std::make_unique<config::Change>(config::ComputeChange(*a, *b));
    return steps_.emplace(key, std::move(change)).first->second.get();
  }

 private:
  const RevisionMap& data_;
  std::map<RevisionKey, std::vector<config::Node>> docs_;
  std::map<std::tuple<std::string, int64_t, int64_t>, std::unique_ptr<config::Change>> steps_;
};

// What one Unit of a target is to do.
struct Job {
  const store::PromotionUnit* target = nullptr;  // null: clone `upstream` into the Space
  const store::PromotionLink* link = nullptr;    // the Link it follows (null for a clone)
  const store::PromotionUnit* upstream = nullptr;
  int64_t cursor = 0, start = 0, end = 0;
  bool merge_prior = false;  // merge cursor..start first, outside the change
};

// The state of one Unit as its revisions are replayed: text, and the parsed form when needed.
struct Current {
  std::string data;
  std::string hash;
  std::optional<std::vector<config::Node>> docs;
};

class Planner {
 public:
  Planner(store::Tx& tx, const PlanOptions& opts, UpstreamCache& cache, const RevisionMap& data,
          const std::map<std::string, v1::Space>& spaces)
      : tx_(tx), opts_(opts), cache_(cache), data_(data), spaces_(spaces) {}

  // Runs `job` in `space`, appending rows to `w` and the outcome to `report`.
  absl::Status Run(const Job& job, const v1::Space& space, store::PromotionWrites& w,
                   v1::PromotedUnit& report) {
    const store::PromotionUnit& up = *job.upstream;
    const auto& co = opts_.rco->co;
    std::string unit_id = job.target ? job.target->id : NewUuid();
    const std::string& toolchain = job.target ? job.target->toolchain_type : up.toolchain_type;
    int64_t head = job.target ? job.target->head : 0;
    Current cur;
    if (job.target) {
      if (head > 0) {
        auto it = data_.find({unit_id, head});
        if (it == data_.end()) return absl::InternalError("head revision not loaded");
        cur.data = it->second.data;
        cur.hash = it->second.data_hash;
      }
    } else {
      w.units.push_back({unit_id, space.space_id(), up.slug, up.toolchain_type, up.labels_json,
                         up.annotations_json, up.id});
      w.links.push_back({space.space_id(), absl::StrCat(up.slug, "-upstream"), unit_id, up.id,
                         opts_.rco->co.update_type, job.end});
      if (job.start > 0) {
        CUB_ASSIGN_OR_RETURN(auto d, cache_.Data(up.id, job.start));
        cur.data = (d)->data;
        cur.hash = (d)->data_hash;
        head = 1;
        AddRevision(w, space, unit_id, toolchain, head, cur, up, job.start,
                    absl::StrCat("Cloned from ", UpSlug(up), " revision ", job.start,
                                 " for change order ", co.slug),
                    "[]", "");
      }
    }
    std::string before = cur.data;
    std::vector<std::string> protected_paths =
        job.target ? job.target->protected_paths : std::vector<std::string>{};
    CUB_ASSIGN_OR_RETURN(auto protection, config::Protection::Parse(protected_paths));
    if (job.merge_prior) {
      CUB_RETURN_IF_ERROR(Replay(job, space, unit_id, toolchain, job.cursor, job.start, "",
                                 protection, cur, head, w));
    }
    int64_t start_mark = head;
    CUB_RETURN_IF_ERROR(Replay(job, space, unit_id, toolchain, job.start, job.end, co.id,
                               protection, cur, head, w));
    if (head != start_mark || !job.target) {
      report.set_action(job.target ? "Upgraded" : "Added");
    } else {
      report.set_action("AlreadyHadChange");
    }
    if (job.link && job.end > job.link->cursor) w.cursors.push_back({job.link->id, job.end});
    if (head != (job.target ? job.target->head : 0)) w.heads.push_back({unit_id, head});
    Mark(w, unit_id, start_mark, head);
    report.set_unit_id(unit_id);
    report.set_start_revision_num(static_cast<int32_t>(start_mark));
    report.set_end_revision_num(static_cast<int32_t>(head));
    report.set_revisions_written(static_cast<int32_t>(head - (job.target ? job.target->head : 0)));
    if (opts_.mutations) {
      CUB_ASSIGN_OR_RETURN(auto m, Mutations(before, cur));
      for (auto& pm : m) *report.add_mutations() = std::move(pm);
    }
    return absl::OkStatus();
  }

  void Mark(store::PromotionWrites& w, const std::string& unit_id, int64_t start, int64_t end) {
    const auto& co = opts_.rco->co;
    w.marks.push_back({co.start_tag_id, unit_id, start});
    w.marks.push_back({co.end_tag_id, unit_id, end});
    if (opts_.only_unit_id.empty()) w.marks.push_back({co.publish_tag_id, unit_id, end});
  }

 private:
  std::string UpSlug(const store::PromotionUnit& up) const {
    auto it = spaces_.find(up.space_id);
    return absl::StrCat(it == spaces_.end() ? up.space_id : it->second.slug(), "/", up.slug);
  }

  absl::StatusOr<std::vector<v1::Mutation>> Mutations(const std::string& before,
                                                      const Current& after) {
    CUB_ASSIGN_OR_RETURN(auto a, before.empty() ? absl::StatusOr<std::vector<config::Node>>()
                                                : config::ParseYaml(before));
    std::vector<config::Node> b_docs;
    if (after.docs) {
      b_docs = *after.docs;
    } else if (!after.data.empty()) {
      CUB_ASSIGN_OR_RETURN(auto b, config::ParseYaml(after.data));
      b_docs = std::move(b);
    }
    std::vector<v1::Mutation> out;
    for (const auto& m : config::Diff(a, b_docs)) {
      v1::Mutation pm;
      pm.set_path(m.path);
      pm.set_kind(config::MutationKindName(m.kind));
      if (m.kind != config::MutationKind::kAdd)
        pm.set_old_value(config::EmitJson(m.old_value, false));
      if (m.kind != config::MutationKind::kRemove) {
        pm.set_new_value(config::EmitJson(m.new_value, false));
      }
      out.push_back(std::move(pm));
    }
    return out;
  }

  // Merges upstream revisions from+1..to into `cur`, one downstream revision per upstream
  // revision that changes something. Where `cur` is exactly the upstream's state before a step
  // (a variant with no edits of its own), the step's result is the upstream's next state, and
  // neither side is parsed.
  absl::Status Replay(const Job& job, const v1::Space& space, const std::string& unit_id,
                      const std::string& toolchain, int64_t from, int64_t to,
                      const std::string& change_order_id, const config::Protection& protection,
                      Current& cur, int64_t& head, store::PromotionWrites& w) {
    const store::PromotionUnit& up = *job.upstream;
    for (int64_t i = from + 1; i <= to; ++i) {
      CUB_ASSIGN_OR_RETURN(auto prev, cache_.Data(up.id, i - 1));
      CUB_ASSIGN_OR_RETURN(auto next, cache_.Data(up.id, i));
      std::string conflicts = "[]";
      bool same_as_upstream =
          protection.empty() && !cur.docs && (prev ? cur.data == (prev)->data : cur.data.empty());
      if (same_as_upstream) {
        if (cur.data == (next)->data) continue;
        cur.data = (next)->data;
        cur.hash = (next)->data_hash;
      } else {
        if (!cur.docs) {
          auto parsed = cur.data.empty() ? absl::StatusOr<std::vector<config::Node>>()
                                         : config::ParseYaml(cur.data);
          if (!parsed.ok()) {
            return absl::FailedPreconditionError(
                absl::StrCat("its head does not parse: ", parsed.status().message()));
          }
          cur.docs = *std::move(parsed);
        }
        CUB_ASSIGN_OR_RETURN(auto change, cache_.Step(up.id, i - 1, i));
        config::MergeResult merged = config::Apply(*change, std::move(*cur.docs), protection);
        cur.docs = std::move(merged.documents);
        if (!merged.changed && merged.conflicts.empty()) continue;
        cur.data = config::EmitYaml(*cur.docs);
        cur.hash = absl::StrCat("sha256:", Sha256Hex(config::CanonicalJson(*cur.docs)));
        conflicts = ConflictsJson(merged.conflicts);
      }
      ++head;
      std::string description =
          change_order_id.empty() ? absl::StrCat("Upgraded from ", UpSlug(up), " revision ", i,
                                                 " (before change order ", opts_.rco->co.slug, ")")
                                  : absl::StrCat("Change order ", opts_.rco->co.slug, ": from ",
                                                 UpSlug(up), " revision ", i);
      AddRevision(w, space, unit_id, toolchain, head, cur, up, i, description, conflicts,
                  change_order_id);
    }
    return absl::OkStatus();
  }

  void AddRevision(store::PromotionWrites& w, const v1::Space& space, const std::string& unit_id,
                   const std::string& toolchain, int64_t num, const Current& cur,
                   const store::PromotionUnit& up, int64_t up_num, const std::string& description,
                   const std::string& conflicts, const std::string& change_order_id) {
    store::PromotionWrites::Revision r;
    r.unit_id = unit_id;
    r.space_id = space.space_id();
    r.num = num;
    r.data = cur.data;
    r.data_hash = cur.hash;
    r.author_id = opts_.principal->user_id;
    r.description = description;
    r.upstream_unit_id = up.id;
    r.upstream_num = up_num;
    r.conflicts_json = conflicts;
    r.change_order_id = change_order_id;
    if (space.validating_invocations_size() > 0) {
      store::NewRevision vet;
      vet.data = cur.data;
      (void)RunValidators(tx_, space, toolchain, &vet);
      r.validation_errors_json = JsonText(vet.validation_errors);
    }
    w.revisions.push_back(std::move(r));
  }

  store::Tx& tx_;
  const PlanOptions& opts_;
  UpstreamCache& cache_;
  const RevisionMap& data_;
  const std::map<std::string, v1::Space>& spaces_;
};

std::string RevisionList(const RevisionMap& data, const std::string& unit, int64_t from,
                         int64_t to) {
  std::vector<std::string> parts;
  for (int64_t i = from + 1; i <= to; ++i) {
    auto it = data.find({unit, i});
    parts.push_back(it == data.end() ? absl::StrCat(i)
                                     : absl::StrCat(i, " (", it->second.description, ")"));
  }
  return absl::StrJoin(parts, ", ");
}

}  // namespace

std::vector<SpacePlan> PlanPromotion(store::Tx& tx, const PlanOptions& opts,
                                     const std::vector<v1::Space>& targets) {
  const auto& co = opts.rco->co;
  const bool upgrade = co.update_type == "UpgradeUnit";
  std::vector<SpacePlan> plans(targets.size());
  std::vector<std::string> target_ids;
  for (size_t i = 0; i < targets.size(); ++i) {
    plans[i].report.set_space_id(targets[i].space_id());
    plans[i].report.set_space(targets[i].slug());
    target_ids.push_back(targets[i].space_id());
  }
  auto fail = [](SpacePlan& plan, const std::string& error) {
    plan.report.set_status("Failed");
    plan.report.set_error(error);
  };

  // Links out of the targets, and the Spaces they take the change from.
  std::vector<store::PromotionLink> links = store::LoadLinksFrom(tx, target_ids, co.update_type);
  std::map<std::string, std::vector<const store::PromotionLink*>> links_by_space;
  std::set<std::string> source_ids;
  std::map<std::string, const store::PromotionUnit*> by_id;
  for (const auto& l : links) source_ids.insert(l.to_space_id);
  for (const auto& t : targets) {
    if (upgrade && !t.upstream_space_id().empty()) source_ids.insert(t.upstream_space_id());
  }
  std::vector<std::string> load_ids = target_ids;
  load_ids.insert(load_ids.end(), source_ids.begin(), source_ids.end());
  std::map<std::string, v1::Space> spaces;
  if (auto loaded = store::SpacesAmong(tx, {source_ids.begin(), source_ids.end()}, "");
      loaded.ok()) {
    for (const auto& s : *loaded) spaces[s.space_id()] = s;
  }
  for (const auto& t : targets) spaces[t.space_id()] = t;
  std::vector<store::PromotionUnit> units = store::LoadPromotionUnits(
      tx, load_ids, opts.lock ? target_ids : std::vector<std::string>{},
      store::PromotionTags{co.start_tag_id, co.end_tag_id, co.publish_tag_id});
  std::map<std::string, std::vector<const store::PromotionUnit*>> units_by_space;
  for (const auto& u : units) {
    by_id[u.id] = &u;
    units_by_space[u.space_id].push_back(&u);
  }
  std::map<std::string, std::vector<const store::PromotionLink*>> links_from_unit;
  for (const auto& l : links) {
    links_from_unit[l.from_unit_id].push_back(&l);
    if (by_id.count(l.from_unit_id)) links_by_space[by_id[l.from_unit_id]->space_id].push_back(&l);
  }

  // Pass 1: what each Unit of each target is to do, and which revisions that needs.
  std::vector<std::vector<Job>> jobs(targets.size());
  std::map<std::string, std::pair<int64_t, int64_t>> upstream_spans;  // unit -> lo..hi
  std::vector<store::RevisionSpan> spans;
  for (size_t t = 0; t < targets.size(); ++t) {
    SpacePlan& plan = plans[t];
    const v1::Space& space = targets[t];
    const bool single = !opts.only_unit_id.empty();
    if (!single && opts.resolved.count(space.space_id())) {
      plan.report.set_status("AlreadyPromoted");
      continue;
    }
    // The Space this one takes the change from.
    std::set<std::string> sources;
    for (const auto* l : links_by_space[space.space_id()]) sources.insert(l->to_space_id);
    if (upgrade && !space.upstream_space_id().empty()) sources.insert(space.upstream_space_id());
    if (sources.empty()) {
      fail(plan, absl::StrCat("no ", co.update_type, " Links lead from '", space.slug(),
                              "' to a Space the change is in"));
      continue;
    }
    if (upgrade && sources.size() > 1 && !single) {
      std::vector<std::string> names;
      for (const auto& s : sources) names.push_back(spaces.count(s) ? spaces[s].slug() : s);
      fail(plan, absl::StrCat("'", space.slug(), "' takes changes from several Spaces (",
                              absl::StrJoin(names, ", "),
                              "); upgrade its Units one by one with cub unit update --upgrade"
                              " --change-order"));
      continue;
    }
    bool blocked = false;
    for (const auto& s : single ? std::set<std::string>{} : sources) {
      if (!opts.resolved.count(s)) {
        fail(plan, absl::StrCat("'", space.slug(), "' takes the change from '",
                                spaces.count(s) ? spaces[s].slug() : s,
                                "', which has not taken change order '", co.slug,
                                "' yet: promote it there first"));
        blocked = true;
      }
    }
    if (blocked) continue;

    std::set<std::string> linked_upstream;  // upstream Units some Unit of the target follows
    std::set<std::string> planned;          // target Units with a job
    auto plan_unit_error = [&](const store::PromotionUnit& u, const std::string& error) {
      v1::PromotedUnit* r = plan.report.add_units();
      r->set_unit_id(u.id);
      r->set_unit(u.slug);
      r->set_action("Failed");
      r->set_error(error);
    };
    for (const auto* d : units_by_space[space.space_id()]) {
      if (single && d->id != opts.only_unit_id) continue;
      auto lit = links_from_unit.find(d->id);
      if (lit == links_from_unit.end()) continue;
      if (lit->second.size() > 1) {
        plan_unit_error(*d, absl::StrCat("it follows ", lit->second.size(), " ", co.update_type,
                                         " links; upgrade it with cub unit update --upgrade"
                                         " --merge-source"));
        continue;
      }
      const store::PromotionLink* l = lit->second[0];
      linked_upstream.insert(l->to_unit_id);
      auto uit = by_id.find(l->to_unit_id);
      if (uit == by_id.end()) continue;
      const store::PromotionUnit& up = *uit->second;
      if (!up.start_mark || !up.end_mark) {
        if (single) {
          plan_unit_error(*d, absl::StrCat("its upstream unit ", spaces[up.space_id].slug(), "/",
                                           up.slug, " has not taken change order '", co.slug, "'"));
        }
        continue;  // outside the change: marked unchanged below
      }
      planned.insert(d->id);
      if (d->end_mark) {
        v1::PromotedUnit* r = plan.report.add_units();
        r->set_unit_id(d->id);
        r->set_unit(d->slug);
        r->set_action("AlreadyHadChange");
        r->set_start_revision_num(static_cast<int32_t>(d->start_mark.value_or(*d->end_mark)));
        r->set_end_revision_num(static_cast<int32_t>(*d->end_mark));
        if (!d->publish_mark && !single) {
          plan.writes.marks.push_back({co.publish_tag_id, d->id, *d->end_mark});
        }
        continue;
      }
      Job job{d, l, &up, l->cursor, *up.start_mark, *up.end_mark, false};
      bool had_it = false;
      if (job.cursor > job.start) {
        if (job.cursor == job.end) {
          // Merged exactly to the change's end by hand: it has the change already.
          job.start = job.end = job.cursor;
          had_it = true;
        } else {
          plan_unit_error(
              *d, absl::StrCat("it has already merged revisions ", job.start + 1, "..", job.cursor,
                               " of ", spaces[up.space_id].slug(), "/", up.slug,
                               ", past the start of change order '", co.slug, "' (revision ",
                               job.start, "), so it holds part of what comes after the start"));
          continue;
        }
      } else if (job.cursor < job.start) {
        const std::string& mode = opts.prior_revisions;
        if (mode == "Error") {
          spans.push_back({up.id, job.cursor + 1, job.start});
          jobs[t].push_back(job);  // resolved into an error once descriptions are loaded
          jobs[t].back().merge_prior = true;
          jobs[t].back().target = nullptr;
          jobs[t].back().link = l;
          continue;
        }
        job.merge_prior = mode == "Include" || mode == "All";
        if (!job.merge_prior) job.cursor = job.start;
      }
      if (job.start == job.end && !job.merge_prior) {
        // The change does not change this Unit: mark it where it is.
        plan.writes.marks.push_back({co.start_tag_id, d->id, d->head});
        plan.writes.marks.push_back({co.end_tag_id, d->id, d->head});
        if (!single) plan.writes.marks.push_back({co.publish_tag_id, d->id, d->head});
        if (job.link->cursor < job.end) plan.writes.cursors.push_back({job.link->id, job.end});
        v1::PromotedUnit* r = plan.report.add_units();
        r->set_unit_id(d->id);
        r->set_unit(d->slug);
        r->set_action(had_it ? "AlreadyHadChange" : "Unchanged");
        r->set_start_revision_num(static_cast<int32_t>(d->head));
        r->set_end_revision_num(static_cast<int32_t>(d->head));
        continue;
      }
      jobs[t].push_back(job);
    }
    if (single && plan.report.units_size() == 0 && jobs[t].empty()) {
      plan_unit_error(*by_id[opts.only_unit_id], absl::StrCat("it follows no ", co.update_type,
                                                              " link to a unit of the change"));
    }
    // Units of the source the target lacks: cloned if the change changes them.
    if (upgrade && !single) {
      for (const auto* up : units_by_space[*sources.begin()]) {
        if (linked_upstream.count(up->id) || up->toolchain_type == kConfigHubYaml) continue;
        if (!up->start_mark || !up->end_mark) {
          if (up->head > 0) {
            v1::PromotedUnit* r = plan.report.add_units();
            r->set_unit(up->slug);
            r->set_action("OutsideChange");
            r->set_error(
                "created upstream after the change order was fixed; a promotion without"
                " --change-order adds it");
          }
          continue;
        }
        if (*up->start_mark == *up->end_mark && opts.prior_revisions != "All") continue;
        if (*up->end_mark == 0) continue;
        jobs[t].push_back(
            Job{nullptr, nullptr, up, *up->start_mark, *up->start_mark, *up->end_mark, false});
      }
    }
    // Every other Unit of the target is one the change does not change.
    for (const auto* d : units_by_space[space.space_id()]) {
      if (single || planned.count(d->id) || d->end_mark || d->head == 0 ||
          d->toolchain_type == kConfigHubYaml) {
        continue;
      }
      bool failed_unit = false;
      for (const auto& u : plan.report.units()) failed_unit |= u.unit_id() == d->id;
      if (failed_unit) continue;
      plan.writes.marks.push_back({co.start_tag_id, d->id, d->head});
      plan.writes.marks.push_back({co.end_tag_id, d->id, d->head});
      plan.writes.marks.push_back({co.publish_tag_id, d->id, d->head});
    }
    for (const auto& job : jobs[t]) {
      if (job.target) spans.push_back({job.target->id, job.target->head, job.target->head});
      auto& span = upstream_spans[job.upstream->id];
      int64_t lo = job.merge_prior ? job.cursor : job.start;
      if (span.second == 0) {
        span = {lo, job.end};
      } else {
        span.first = std::min(span.first, lo);
        span.second = std::max(span.second, job.end);
      }
    }
  }
  for (const auto& [unit, span] : upstream_spans) {
    spans.push_back({unit, std::max<int64_t>(span.first, 1), span.second});
  }
  RevisionMap data = store::LoadRevisionData(tx, spans);

  // Pass 2: merge, in memory, each Upstream revision parsed and diffed once.
  UpstreamCache cache(data);
  Planner planner(tx, opts, cache, data, spaces);
  for (size_t t = 0; t < targets.size(); ++t) {
    SpacePlan& plan = plans[t];
    if (!plan.report.status().empty()) continue;
    for (const auto& job : jobs[t]) {
      v1::PromotedUnit* r = plan.report.add_units();
      r->set_unit(job.upstream->slug);
      if (job.merge_prior && !job.target && job.link) {  // --prior-revisions Error
        const store::PromotionUnit* d = by_id[job.link->from_unit_id];
        r->set_unit_id(d->id);
        r->set_unit(d->slug);
        r->set_action("Failed");
        r->set_error(absl::StrCat("link '", job.link->slug, "' has not merged revisions ",
                                  job.cursor + 1, "..", job.start, " of ",
                                  spaces[job.upstream->space_id].slug(), "/", job.upstream->slug,
                                  ", which precede the change: ",
                                  RevisionList(data, job.upstream->id, job.cursor, job.start)));
        continue;
      }
      if (job.target) r->set_unit(job.target->slug);
      auto s = planner.Run(job, targets[t], plan.writes, *r);
      if (!s.ok()) {
        r->set_action("Failed");
        r->set_error(std::string(s.message()));
      }
    }
    bool any_failed = false;
    for (const auto& u : plan.report.units()) any_failed |= u.action() == "Failed";
    if (any_failed) {
      fail(plan, "some of its units cannot take the change");
      plan.writes = store::PromotionWrites();
    } else {
      plan.report.set_status("Promoted");
    }
  }
  return plans;
}

}  // namespace cub::ops
