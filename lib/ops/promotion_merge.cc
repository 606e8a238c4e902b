#include "lib/ops/promotion_merge.h"

#include <memory>
#include <optional>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/diff.h"
#include "lib/config/merge.h"
#include "lib/config/protection.h"
#include "lib/config/yaml.h"
#include "lib/ops/upgrade.h"
#include "lib/ops/validation.h"
#include "lib/store/errors.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"
#include "lib/util/uuid.h"

namespace cub::ops {
namespace {

using RevisionKey = RevisionMap::key_type;

// The documents of a revision's data; empty data is no documents. (A default-constructed
// StatusOr is not that: it holds an UNKNOWN error with no message.)
absl::StatusOr<std::vector<config::Node>> ParseOrEmpty(const std::string& data) {
  if (data.empty()) return std::vector<config::Node>();
  return config::ParseYaml(data);
}

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

// The state of one Unit as its revisions are replayed: text, and the parsed form when needed.
struct Current {
  std::string data;
  std::string hash;
  std::optional<std::vector<config::Node>> docs;
};

// Runs UnitJobs over the loaded revisions (a UnitJob's own and the shared upstream cache).
class JobRunner {
 public:
  JobRunner(store::Tx& tx, const PlanOptions& opts, UpstreamCache& cache, const RevisionMap& data,
            const PromotionFacts& facts)
      : tx_(tx), opts_(opts), cache_(cache), data_(data), facts_(facts), validators_(tx) {}

  // Runs `job` in `space`, appending rows to `w` and the outcome to `report`.
  absl::Status Run(const UnitJob& job, const v1::Space& space, store::PromotionWrites& w,
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
      CUB_RETURN_IF_ERROR(Clone(job, space, unit_id, w, cur, head));
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
      SetAction(report, job.target ? PromotionAction::kUpgraded : PromotionAction::kAdded);
    } else {
      SetAction(report, PromotionAction::kAlreadyHadChange);
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

  // The clone of `job.upstream` a UnitJob without a target adds, with its Link back, and its first
  // revision (the upstream's at the change's start) unless the Unit is new in the change.
  absl::Status Clone(const UnitJob& job, const v1::Space& space, const std::string& unit_id,
                     store::PromotionWrites& w, Current& cur, int64_t& head) {
    const store::PromotionUnit& up = *job.upstream;
    const auto& co = opts_.rco->co;
    w.units.push_back({unit_id, space.space_id(), up.slug, up.toolchain_type, up.labels_json,
                       up.annotations_json, up.id});
    w.links.push_back({space.space_id(), absl::StrCat(up.slug, "-upstream"), unit_id, up.id,
                       opts_.rco->co.update_type, job.end});
    if (job.start == 0) return absl::OkStatus();
    CUB_ASSIGN_OR_RETURN(auto d, cache_.Data(up.id, job.start));
    cur.data = (d)->data;
    cur.hash = (d)->data_hash;
    head = 1;
    return AddRevision(w, space, unit_id, up.toolchain_type, head, cur, up, job.start,
                       absl::StrCat("Cloned from ", UpSlug(up), " revision ", job.start,
                                    " for change order ", co.slug),
                       "[]", "");
  }

  void Mark(store::PromotionWrites& w, const std::string& unit_id, int64_t start, int64_t end) {
    const auto& co = opts_.rco->co;
    w.marks.push_back({co.start_tag_id, unit_id, start});
    w.marks.push_back({co.end_tag_id, unit_id, end});
    if (opts_.only_unit_id.empty()) w.marks.push_back({co.publish_tag_id, unit_id, end});
  }

 private:
  std::string UpSlug(const store::PromotionUnit& up) const {
    return absl::StrCat(facts_.SlugOf(up.space_id), "/", up.slug);
  }

  absl::StatusOr<std::vector<v1::Mutation>> Mutations(const std::string& before,
                                                      const Current& after) {
    CUB_ASSIGN_OR_RETURN(auto a, ParseOrEmpty(before));
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
  absl::Status Replay(const UnitJob& job, const v1::Space& space, const std::string& unit_id,
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
          auto parsed = ParseOrEmpty(cur.data);
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
      CUB_RETURN_IF_ERROR(AddRevision(w, space, unit_id, toolchain, head, cur, up, i, description,
                                      conflicts, change_order_id));
    }
    return absl::OkStatus();
  }

  // Appends revision `num` of the Unit, vetted by the Space's validators: what they find is
  // recorded on it; a validator that cannot be run fails the Unit.
  absl::Status AddRevision(store::PromotionWrites& w, const v1::Space& space,
                           const std::string& unit_id, const std::string& toolchain, int64_t num,
                           const Current& cur, const store::PromotionUnit& up, int64_t up_num,
                           const std::string& description, const std::string& conflicts,
                           const std::string& change_order_id) {
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
      CUB_RETURN_IF_ERROR(validators_.Run(space, toolchain, &vet));
      r.validation_errors_json = JsonText(vet.validation_errors);
    }
    w.revisions.push_back(std::move(r));
    return absl::OkStatus();
  }

  store::Tx& tx_;
  const PlanOptions& opts_;
  UpstreamCache& cache_;
  const RevisionMap& data_;
  const PromotionFacts& facts_;
  Validators validators_;  // each validator read once for all the Units run
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

// The report of a refused UnitJob (prior revisions Error): the Unit, and the revisions it has not
// merged that precede the change, with their descriptions.
void RefusePrior(const UnitJob& job, const PromotionFacts& facts, const RevisionMap& data,
                 v1::PromotedUnit& r) {
  r.set_unit_id(job.target->id);
  r.set_unit(job.target->slug);
  SetAction(r, PromotionAction::kFailed);
  r.set_error(absl::StrCat(
      "link '", job.link->slug, "' has not merged revisions ", job.cursor + 1, "..", job.start,
      " of ", facts.SlugOf(job.upstream->space_id), "/", job.upstream->slug,
      ", which precede the change: ", RevisionList(data, job.upstream->id, job.cursor, job.start)));
}

}  // namespace

absl::Status MergeJobs(store::Tx& tx, const PlanOptions& opts, const PromotionFacts& facts,
                       const RevisionMap& data, std::vector<SpaceClassification>& spaces) {
  UpstreamCache cache(data);
  JobRunner runner(tx, opts, cache, data, facts);
  for (auto& c : spaces) {
    if (c.settled()) continue;
    for (const auto& job : c.jobs) {
      v1::PromotedUnit* r = c.plan.report.add_units();
      if (job.refuse_prior) {
        RefusePrior(job, facts, data, *r);
        continue;
      }
      r->set_unit(job.target ? job.target->slug : job.upstream->slug);
      absl::Status s = runner.Run(job, *c.space, c.plan.writes, *r);
      if (store::FailedInDatabase(s)) return s;  // the transaction is unusable now
      if (!s.ok()) {
        SetAction(*r, PromotionAction::kFailed);
        r->set_error(std::string(s.message()));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace cub::ops
