#include "lib/ops/invoke_plan.h"

#include <map>
#include <set>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/config/yaml.h"
#include "lib/functions/registry.h"
#include "lib/ops/validation.h"
#include "lib/store/errors.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

constexpr char kConfigHubYaml[] = "ConfigHub/YAML";

// What the load step reads for every target at once: the Units the Invocation's selection
// picks, the targets' Units with the ChangeOrder's marks, and the head revisions of the picked
// Units that do not carry the change yet.
struct InvokeFacts {
  std::set<std::string> selected;
  std::vector<store::PromotionUnit> units;
  std::map<std::string, std::vector<size_t>> by_space;  // indexes into `units`
  std::map<std::pair<std::string, int64_t>, store::RevisionData> data;
};

// One plan per target, with only the Space named.
std::vector<SpacePlan> EmptyPlans(const std::vector<v1::Space>& targets) {
  std::vector<SpacePlan> plans(targets.size());
  for (size_t i = 0; i < targets.size(); ++i) {
    plans[i].report.set_space_id(targets[i].space_id());
    plans[i].report.set_space(targets[i].slug());
  }
  return plans;
}

// Every plan Failed with `error`: the Invocation cannot run anywhere.
std::vector<SpacePlan> FailAll(std::vector<SpacePlan> plans, const absl::Status& error) {
  for (auto& plan : plans) {
    if (!plan.report.status().empty()) continue;
    SetStatus(plan.report, PromotionStatus::kFailed);
    plan.report.set_error(std::string(error.message()));
  }
  return plans;
}

// The load step, after the selection has been read: the Units (the targets' locked unless a
// dry run) and the head revisions the Invocation runs on.
absl::StatusOr<InvokeFacts> LoadFacts(store::Tx& tx, const PlanOptions& opts,
                                      const std::vector<std::string>& ids,
                                      std::set<std::string> selected) {
  const auto& co = opts.rco->co;
  InvokeFacts facts;
  facts.selected = std::move(selected);
  CUB_ASSIGN_OR_RETURN(
      facts.units, store::LoadPromotionUnits(
                       tx, ids, opts.lock ? ids : std::vector<std::string>{},
                       store::PromotionTags{co.start_tag_id, co.end_tag_id, co.publish_tag_id}));
  std::vector<store::RevisionSpan> spans;
  for (size_t i = 0; i < facts.units.size(); ++i) {
    const store::PromotionUnit& u = facts.units[i];
    facts.by_space[u.space_id].push_back(i);
    if (facts.selected.count(u.id) && !u.end_mark && u.head > 0) {
      spans.push_back({u.id, u.head, u.head});
    }
  }
  CUB_ASSIGN_OR_RETURN(facts.data, store::LoadRevisionData(tx, spans));
  return facts;
}

// Runs the Invocation over the loaded facts, one target Space at a time.
class Invoker {
 public:
  Invoker(store::Tx& tx, const PlanOptions& opts, const functions::Arguments& args,
          const InvokeFacts& facts)
      : tx_(tx), opts_(opts), co_(opts.rco->co), args_(args), facts_(facts), validators_(tx) {}

  // The per-Space step: every Unit of `space` but ConfigHub/YAML ones and empty ones gets a
  // report Unit; the Space fails, writing nothing, if the Invocation fails on any of them. A
  // failure in the database (the transaction is then unusable) is returned instead.
  absl::Status PlanSpace(const v1::Space& space, SpacePlan& plan) {
    if (opts_.resolved.count(space.space_id())) {
      SetStatus(plan.report, PromotionStatus::kAlreadyPromoted);
      return absl::OkStatus();
    }
    bool failed = false;
    auto it = facts_.by_space.find(space.space_id());
    if (it != facts_.by_space.end()) {
      for (size_t i : it->second) {
        const store::PromotionUnit& u = facts_.units[i];
        if (u.toolchain_type == kConfigHubYaml || u.head == 0) continue;
        v1::PromotedUnit* r = plan.report.add_units();
        r->set_unit_id(u.id);
        r->set_unit(u.slug);
        if (Settle(u, plan.writes, *r)) continue;
        absl::Status s = Invoke(space, u, plan.writes, *r);
        if (store::FailedInDatabase(s)) return s;  // the transaction is unusable now
        if (!s.ok()) {
          SetAction(*r, PromotionAction::kFailed);
          r->set_error(std::string(s.message()));
          failed = true;
        }
      }
    }
    Finalize(failed, plan);
    return absl::OkStatus();
  }

 private:
  // The selection step for one Unit: true when it is settled without running the Invocation
  // (it carries the change already, or the selection does not pick it).
  bool Settle(const store::PromotionUnit& u, store::PromotionWrites& w, v1::PromotedUnit& r) {
    if (u.end_mark) {
      SetAction(r, PromotionAction::kAlreadyHadChange);
      r.set_end_revision_num(static_cast<int32_t>(*u.end_mark));
      if (!u.publish_mark) w.marks.push_back({co_.publish_tag_id, u.id, *u.end_mark});
      return true;
    }
    r.set_start_revision_num(static_cast<int32_t>(u.head));
    r.set_end_revision_num(static_cast<int32_t>(u.head));
    if (facts_.selected.count(u.id)) return false;
    SetAction(r, PromotionAction::kUnchanged);
    Mark(w, u.id, u.head, u.head);
    return true;
  }

  // The invocation step for one Unit: runs the Invocation on its head and, if that changes
  // it, adds the next revision. A non-OK Status is the Unit's failure.
  absl::Status Invoke(const v1::Space& space, const store::PromotionUnit& u,
                      store::PromotionWrites& w, v1::PromotedUnit& r) {
    auto head = facts_.data.find({u.id, u.head});
    if (head == facts_.data.end()) return absl::InternalError("head revision not loaded");
    auto docs = config::ParseYaml(head->second.data);
    if (!docs.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("its head does not parse: ", docs.status().message()));
    }
    CUB_ASSIGN_OR_RETURN(auto set, functions::Registry::Default().Set(args_, *std::move(docs)));
    if (opts_.mutations) {
      for (const auto& m : set.mutations) {
        v1::Mutation* pm = r.add_mutations();
        pm->set_path(absl::StrCat(m.resource, ": ", m.path));
        pm->set_kind(m.old_value.empty() ? "Add" : "Replace");
        pm->set_old_value(m.old_value);
        pm->set_new_value(m.new_value);
      }
    }
    if (!set.changed) {
      SetAction(r, PromotionAction::kAlreadyHadChange);
      Mark(w, u.id, u.head, u.head);
      return absl::OkStatus();
    }
    CUB_RETURN_IF_ERROR(AddRevision(space, u, set.docs, w));
    w.heads.push_back({u.id, u.head + 1});
    Mark(w, u.id, u.head, u.head + 1);
    SetAction(r, PromotionAction::kInvoked);
    r.set_end_revision_num(static_cast<int32_t>(u.head + 1));
    r.set_revisions_written(1);
    return absl::OkStatus();
  }

  // Appends the Unit's next revision, `docs`, vetted by the Space's validators: what they find
  // is recorded on it; a validator that cannot be run fails the Unit.
  absl::Status AddRevision(const v1::Space& space, const store::PromotionUnit& u,
                           const std::vector<config::Node>& docs, store::PromotionWrites& w) {
    store::PromotionWrites::Revision rev;
    rev.unit_id = u.id;
    rev.space_id = space.space_id();
    rev.num = u.head + 1;
    rev.data = config::EmitYaml(docs);
    rev.data_hash = absl::StrCat("sha256:", Sha256Hex(config::CanonicalJson(docs)));
    rev.author_id = opts_.principal->user_id;
    rev.description = absl::StrCat("Change order ", co_.slug, ": ", co_.invocation);
    rev.change_order_id = co_.id;
    if (space.validating_invocations_size() > 0) {
      store::NewRevision vet;
      vet.data = rev.data;
      CUB_RETURN_IF_ERROR(validators_.Run(space, u.toolchain_type, &vet));
      rev.validation_errors_json = JsonText(vet.validation_errors);
    }
    w.revisions.push_back(std::move(rev));
    return absl::OkStatus();
  }

  void Mark(store::PromotionWrites& w, const std::string& unit, int64_t start, int64_t end) {
    w.marks.push_back({co_.start_tag_id, unit, start});
    w.marks.push_back({co_.end_tag_id, unit, end});
    w.marks.push_back({co_.publish_tag_id, unit, end});
  }

  // The finalize step: a Space the Invocation failed on anywhere writes nothing.
  static void Finalize(bool failed, SpacePlan& plan) {
    if (!failed) {
      SetStatus(plan.report, PromotionStatus::kPromoted);
      return;
    }
    SetStatus(plan.report, PromotionStatus::kFailed);
    plan.report.set_error("the invocation failed on some of its units");
    plan.writes = store::PromotionWrites();
  }

  store::Tx& tx_;
  const PlanOptions& opts_;
  const store::StoredChangeOrder& co_;
  const functions::Arguments& args_;
  const InvokeFacts& facts_;
  Validators validators_;  // each validator read once for all the Units invoked
};

}  // namespace

absl::StatusOr<std::vector<SpacePlan>> PlanInvoke(store::Tx& tx, const PlanOptions& opts,
                                                  const std::vector<v1::Space>& targets) {
  const auto& co = opts.rco->co;
  std::vector<SpacePlan> plans = EmptyPlans(targets);
  std::vector<std::string> ids;
  for (const auto& t : targets) ids.push_back(t.space_id());
  auto args = functions::Registry::Default().Parse(co.function_name, co.function_args);
  if (!args.ok()) return FailAll(std::move(plans), args.status());
  auto selected = store::UnitsMatching(tx, ids, co.where_unit);
  if (store::FailedInDatabase(selected.status())) return selected.status();
  if (!selected.ok()) return FailAll(std::move(plans), selected.status());
  CUB_ASSIGN_OR_RETURN(InvokeFacts facts, LoadFacts(tx, opts, ids, *std::move(selected)));
  Invoker invoker(tx, opts, *args, facts);
  for (size_t t = 0; t < targets.size(); ++t) {
    CUB_RETURN_IF_ERROR(invoker.PlanSpace(targets[t], plans[t]));
  }
  return plans;
}

}  // namespace cub::ops
