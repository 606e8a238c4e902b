#include "lib/ops/promotion_classify.h"

#include <algorithm>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cub::ops {
namespace {

constexpr char kConfigHubYaml[] = "ConfigHub/YAML";

void Fail(SpacePlan& plan, const std::string& error) {
  SetStatus(plan.report, PromotionStatus::kFailed);
  plan.report.set_error(error);
}

// Classifies one target Space, in the order its report lists Units: the target's own Units
// (as the store lists them), then the source's Units it lacks.
class SpaceClassifier {
 public:
  SpaceClassifier(const PlanOptions& opts, const PromotionFacts& facts, const v1::Space& space,
                  SpaceClassification& out)
      : opts_(opts),
        co_(opts.rco->co),
        facts_(facts),
        space_(space),
        out_(out),
        single_(!opts.only_unit_id.empty()),
        upgrade_(opts.rco->update_type == domain::UpdateType::kUpgradeUnit) {}

  void Run() {
    if (!single_ && opts_.resolved.count(space_.space_id())) {
      SetStatus(out_.plan.report, PromotionStatus::kAlreadyPromoted);
      return;
    }
    if (!CheckSources()) return;
    for (const auto* d : facts_.UnitsOf(space_.space_id())) {
      if (single_ && d->id != opts_.only_unit_id) continue;
      ClassifyUnit(*d);
    }
    if (single_ && out_.plan.report.units_size() == 0 && out_.jobs.empty()) {
      const store::PromotionUnit* only = facts_.Unit(opts_.only_unit_id);
      store::PromotionUnit missing;
      missing.id = opts_.only_unit_id;
      UnitError(only ? *only : missing,
                absl::StrCat("it follows no ", co_.update_type, " link to a unit of the change"));
    }
    if (upgrade_ && !single_) AddClones();
    if (!single_) MarkUntouched();
  }

 private:
  // The Spaces this one takes the change from; false (the Space failed) if there is none it
  // can take it from now.
  bool CheckSources() {
    auto links = facts_.links_by_space.find(space_.space_id());
    if (links != facts_.links_by_space.end()) {
      for (const auto* l : links->second) sources_.insert(l->to_space_id);
    }
    if (upgrade_ && !space_.upstream_space_id().empty()) {
      sources_.insert(space_.upstream_space_id());
    }
    if (sources_.empty()) {
      Fail(out_.plan, absl::StrCat("no ", co_.update_type, " Links lead from '", space_.slug(),
                                   "' to a Space the change is in"));
      return false;
    }
    if (upgrade_ && sources_.size() > 1 && !single_) {
      std::vector<std::string> names;
      for (const auto& s : sources_) names.push_back(facts_.SlugOf(s));
      Fail(out_.plan, absl::StrCat("'", space_.slug(), "' takes changes from several Spaces (",
                                   absl::StrJoin(names, ", "),
                                   "); upgrade its Units one by one with cub unit update --upgrade"
                                   " --change-order"));
      return false;
    }
    if (single_) return true;
    bool blocked = false;
    for (const auto& s : sources_) {
      if (opts_.resolved.count(s)) continue;
      // With several, the report names the last.
      Fail(out_.plan, absl::StrCat("'", space_.slug(), "' takes the change from '",
                                   facts_.SlugOf(s), "', which has not taken change order '",
                                   co_.slug, "' yet: promote it there first"));
      blocked = true;
    }
    return !blocked;
  }

  // A Unit of the target: settled here, or left as a UnitJob.
  void ClassifyUnit(const store::PromotionUnit& d) {
    auto lit = facts_.links_from_unit.find(d.id);
    if (lit == facts_.links_from_unit.end()) return;
    if (lit->second.size() > 1) {
      UnitError(d, absl::StrCat("it follows ", lit->second.size(), " ", co_.update_type,
                                " links; upgrade it with cub unit update --upgrade"
                                " --merge-source"));
      return;
    }
    const store::PromotionLink* l = lit->second[0];
    linked_upstream_.insert(l->to_unit_id);
    const store::PromotionUnit* up = facts_.Unit(l->to_unit_id);
    if (!up) return;
    if (!up->start_mark || !up->end_mark) {
      if (single_) {
        UnitError(d, absl::StrCat("its upstream unit ", facts_.SlugOf(up->space_id), "/", up->slug,
                                  " has not taken change order '", co_.slug, "'"));
      }
      return;  // outside the change: marked unchanged (MarkUntouched)
    }
    planned_.insert(d.id);
    if (d.end_mark) {
      v1::PromotedUnit* r = AddUnit(d, PromotionAction::kAlreadyHadChange);
      r->set_start_revision_num(static_cast<int32_t>(d.start_mark.value_or(*d.end_mark)));
      r->set_end_revision_num(static_cast<int32_t>(*d.end_mark));
      if (!d.publish_mark && !single_) {
        out_.plan.writes.marks.push_back({co_.publish_tag_id, d.id, *d.end_mark});
      }
      return;
    }
    ClassifyBehind(UnitJob{&d, l, up, l->cursor, *up->start_mark, *up->end_mark});
  }

  // A Unit whose upstream carries the change and which does not: where its Link's merge cursor
  // stands against the change's range decides.
  void ClassifyBehind(UnitJob job) {
    const store::PromotionUnit& d = *job.target;
    const store::PromotionUnit& up = *job.upstream;
    bool had_it = false;
    if (job.cursor > job.start) {
      if (job.cursor != job.end) {
        UnitError(d, absl::StrCat("it has already merged revisions ", job.start + 1, "..",
                                  job.cursor, " of ", facts_.SlugOf(up.space_id), "/", up.slug,
                                  ", past the start of change order '", co_.slug, "' (revision ",
                                  job.start, "), so it holds part of what comes after the start"));
        return;
      }
      // Merged exactly to the change's end by hand: it has the change already.
      job.start = job.end = job.cursor;
      had_it = true;
    } else if (job.cursor < job.start) {
      const domain::PriorRevisions mode = opts_.prior_revisions;
      if (mode == domain::PriorRevisions::kError) {
        job.refuse_prior = true;
        out_.jobs.push_back(job);
        return;
      }
      job.merge_prior =
          mode == domain::PriorRevisions::kInclude || mode == domain::PriorRevisions::kAll;
      if (!job.merge_prior) job.cursor = job.start;
    }
    if (job.start != job.end || job.merge_prior) {
      out_.jobs.push_back(job);
      return;
    }
    // The change does not change this Unit: mark it where it is.
    MarkWhereItIs(d);
    if (job.link->cursor < job.end) out_.plan.writes.cursors.push_back({job.link->id, job.end});
    v1::PromotedUnit* r = AddUnit(d, had_it ? PromotionAction::kAlreadyHadChange : PromotionAction::kUnchanged);
    r->set_start_revision_num(static_cast<int32_t>(d.head));
    r->set_end_revision_num(static_cast<int32_t>(d.head));
  }

  // Units of the source the target lacks: cloned if the change changes them.
  void AddClones() {
    for (const auto* up : facts_.UnitsOf(*sources_.begin())) {
      if (linked_upstream_.count(up->id) || up->toolchain_type == kConfigHubYaml) continue;
      if (!up->start_mark || !up->end_mark) {
        if (up->head > 0) {
          v1::PromotedUnit* r = out_.plan.report.add_units();
          r->set_unit(up->slug);
          SetAction(*r, PromotionAction::kOutsideChange);
          r->set_error(
              "created upstream after the change order was fixed; a promotion without"
              " ChangeOrder adds it");
        }
        continue;
      }
      if (*up->start_mark == *up->end_mark && opts_.prior_revisions != domain::PriorRevisions::kAll) continue;
      if (*up->end_mark == 0) continue;
      out_.jobs.push_back(
          UnitJob{nullptr, nullptr, up, *up->start_mark, *up->start_mark, *up->end_mark});
    }
  }

  // Every other Unit of the target is one the change does not change.
  void MarkUntouched() {
    for (const auto* d : facts_.UnitsOf(space_.space_id())) {
      if (planned_.count(d->id) || reported_.count(d->id) || d->end_mark || d->head == 0 ||
          d->toolchain_type == kConfigHubYaml) {
        continue;
      }
      MarkWhereItIs(*d);
    }
  }

  void MarkWhereItIs(const store::PromotionUnit& d) {
    out_.plan.writes.marks.push_back({co_.start_tag_id, d.id, d.head});
    out_.plan.writes.marks.push_back({co_.end_tag_id, d.id, d.head});
    if (!single_) out_.plan.writes.marks.push_back({co_.publish_tag_id, d.id, d.head});
  }

  v1::PromotedUnit* AddUnit(const store::PromotionUnit& u, PromotionAction action) {
    reported_.insert(u.id);
    v1::PromotedUnit* r = out_.plan.report.add_units();
    r->set_unit_id(u.id);
    r->set_unit(u.slug);
    SetAction(*r, action);
    return r;
  }

  void UnitError(const store::PromotionUnit& u, const std::string& error) {
    AddUnit(u, PromotionAction::kFailed)->set_error(error);
  }

  const PlanOptions& opts_;
  const store::StoredChangeOrder& co_;
  const PromotionFacts& facts_;
  const v1::Space& space_;
  SpaceClassification& out_;
  const bool single_;   // only opts.only_unit_id
  const bool upgrade_;  // an UpgradeUnit change: the Space's upstream is a source too
  std::set<std::string> sources_;
  std::set<std::string> linked_upstream_;  // upstream Units some Unit of the target follows
  std::set<std::string> planned_;          // target Units whose upstream carries the change
  std::set<std::string> reported_;         // target Units in the report already
};

}  // namespace

void PromotionFacts::Index() {
  unit_by_id.clear();
  units_by_space.clear();
  links_from_unit.clear();
  links_by_space.clear();
  for (const auto& u : units) {
    unit_by_id[u.id] = &u;
    units_by_space[u.space_id].push_back(&u);
  }
  for (const auto& l : links) {
    links_from_unit[l.from_unit_id].push_back(&l);
    if (const auto* from = Unit(l.from_unit_id)) links_by_space[from->space_id].push_back(&l);
  }
}

std::string PromotionFacts::SlugOf(const std::string& space_id) const {
  auto it = spaces.find(space_id);
  return it == spaces.end() ? space_id : it->second.slug();
}

const std::vector<const store::PromotionUnit*>& PromotionFacts::UnitsOf(
    const std::string& space_id) const {
  static const std::vector<const store::PromotionUnit*> kNone;
  auto it = units_by_space.find(space_id);
  return it == units_by_space.end() ? kNone : it->second;
}

const store::PromotionUnit* PromotionFacts::Unit(const std::string& unit_id) const {
  auto it = unit_by_id.find(unit_id);
  return it == unit_by_id.end() ? nullptr : it->second;
}

SpaceClassification ClassifySpace(const PlanOptions& opts, const PromotionFacts& facts,
                                  const v1::Space& space) {
  SpaceClassification out;
  out.space = &space;
  out.plan.report.set_space_id(space.space_id());
  out.plan.report.set_space(space.slug());
  SpaceClassifier(opts, facts, space, out).Run();
  return out;
}

std::vector<store::RevisionSpan> RevisionSpans(const std::vector<SpaceClassification>& spaces) {
  std::vector<store::RevisionSpan> spans;
  std::map<std::string, std::pair<int64_t, int64_t>> upstream;  // unit -> lo..hi
  for (const auto& c : spaces) {
    for (const auto& job : c.jobs) {
      if (job.refuse_prior) {
        spans.push_back({job.upstream->id, job.cursor + 1, job.start});
        continue;
      }
      if (job.target) spans.push_back({job.target->id, job.target->head, job.target->head});
      int64_t lo = job.merge_prior ? job.cursor : job.start;
      auto [it, first] = upstream.try_emplace(job.upstream->id, lo, job.end);
      if (!first) {
        it->second.first = std::min(it->second.first, lo);
        it->second.second = std::max(it->second.second, job.end);
      }
    }
  }
  for (const auto& [unit, span] : upstream) {
    spans.push_back({unit, std::max<int64_t>(span.first, 1), span.second});
  }
  return spans;
}

void FinalizeSpace(SpacePlan& plan) {
  for (const auto& u : plan.report.units()) {
    if (ActionOf(u) == PromotionAction::kFailed) {
      SetStatus(plan.report, PromotionStatus::kFailed);
      plan.report.set_error("some of its units cannot take the change");
      plan.writes = store::PromotionWrites();
      return;
    }
  }
  SetStatus(plan.report, PromotionStatus::kPromoted);
}

}  // namespace cub::ops
