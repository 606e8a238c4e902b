#include "lib/ops/invoke_plan.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "lib/config/yaml.h"
#include "lib/functions/registry.h"
#include "lib/ops/validation.h"
#include "lib/store/errors.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"

namespace cub::ops {
namespace {

constexpr char kConfigHubYaml[] = "ConfigHub/YAML";

}  // namespace

std::vector<SpacePlan> PlanInvoke(store::Tx& tx, const PlanOptions& opts,
                                  const std::vector<v1::Space>& targets) {
  const auto& co = opts.rco->co;
  std::vector<SpacePlan> plans(targets.size());
  std::vector<std::string> ids;
  for (size_t i = 0; i < targets.size(); ++i) {
    plans[i].report.set_space_id(targets[i].space_id());
    plans[i].report.set_space(targets[i].slug());
    ids.push_back(targets[i].space_id());
  }
  auto fail_all = [&](const std::string& error) {
    for (auto& plan : plans) {
      if (!plan.report.status().empty()) continue;
      SetStatus(plan.report, PromotionStatus::kFailed);
      plan.report.set_error(error);
    }
    return plans;
  };
  const functions::Registry& registry = functions::Registry::Default();
  auto args = registry.Parse(co.function_name, co.function_args);
  if (!args.ok()) return fail_all(std::string(args.status().message()));
  auto selected = store::UnitsMatching(tx, ids, co.where_unit);
  if (!selected.ok()) return fail_all(std::string(selected.status().message()));
  std::vector<store::PromotionUnit> units = store::ValueOrThrow(store::LoadPromotionUnits(
      tx, ids, opts.lock ? ids : std::vector<std::string>{},
      store::PromotionTags{co.start_tag_id, co.end_tag_id, co.publish_tag_id}));
  std::map<std::string, std::vector<const store::PromotionUnit*>> by_space;
  std::vector<store::RevisionSpan> spans;
  for (const auto& u : units) {
    by_space[u.space_id].push_back(&u);
    if (selected->count(u.id) && !u.end_mark && u.head > 0) spans.push_back({u.id, u.head, u.head});
  }
  auto data = store::ValueOrThrow(store::LoadRevisionData(tx, spans));

  for (size_t t = 0; t < targets.size(); ++t) {
    SpacePlan& plan = plans[t];
    const v1::Space& space = targets[t];
    if (opts.resolved.count(space.space_id())) {
      SetStatus(plan.report, PromotionStatus::kAlreadyPromoted);
      continue;
    }
    bool failed = false;
    auto mark = [&](const std::string& unit, int64_t start, int64_t end) {
      plan.writes.marks.push_back({co.start_tag_id, unit, start});
      plan.writes.marks.push_back({co.end_tag_id, unit, end});
      plan.writes.marks.push_back({co.publish_tag_id, unit, end});
    };
    for (const auto* u : by_space[space.space_id()]) {
      if (u->toolchain_type == kConfigHubYaml || u->head == 0) continue;
      v1::PromotedUnit* r = plan.report.add_units();
      r->set_unit_id(u->id);
      r->set_unit(u->slug);
      if (u->end_mark) {
        SetAction(*r, PromotionAction::kAlreadyHadChange);
        r->set_end_revision_num(static_cast<int32_t>(*u->end_mark));
        if (!u->publish_mark) plan.writes.marks.push_back({co.publish_tag_id, u->id, *u->end_mark});
        continue;
      }
      r->set_start_revision_num(static_cast<int32_t>(u->head));
      r->set_end_revision_num(static_cast<int32_t>(u->head));
      if (!selected->count(u->id)) {
        SetAction(*r, PromotionAction::kUnchanged);
        mark(u->id, u->head, u->head);
        continue;
      }
      const std::string& before = data.at({u->id, u->head}).data;
      auto docs = config::ParseYaml(before);
      if (!docs.ok()) {
        SetAction(*r, PromotionAction::kFailed);
        r->set_error(absl::StrCat("its head does not parse: ", docs.status().message()));
        failed = true;
        continue;
      }
      auto set = registry.Set(*args, *std::move(docs));
      if (!set.ok()) {
        SetAction(*r, PromotionAction::kFailed);
        r->set_error(std::string(set.status().message()));
        failed = true;
        continue;
      }
      if (opts.mutations) {
        for (const auto& m : set->mutations) {
          v1::Mutation* pm = r->add_mutations();
          pm->set_path(absl::StrCat(m.resource, ": ", m.path));
          pm->set_kind(m.old_value.empty() ? "Add" : "Replace");
          pm->set_old_value(m.old_value);
          pm->set_new_value(m.new_value);
        }
      }
      if (!set->changed) {
        SetAction(*r, PromotionAction::kAlreadyHadChange);
        mark(u->id, u->head, u->head);
        continue;
      }
      store::PromotionWrites::Revision rev;
      rev.unit_id = u->id;
      rev.space_id = space.space_id();
      rev.num = u->head + 1;
      rev.data = config::EmitYaml(set->docs);
      rev.data_hash = absl::StrCat("sha256:", Sha256Hex(config::CanonicalJson(set->docs)));
      rev.author_id = opts.principal->user_id;
      rev.description = absl::StrCat("Change order ", co.slug, ": ", co.invocation);
      rev.change_order_id = co.id;
      if (space.validating_invocations_size() > 0) {
        store::NewRevision vet;
        vet.data = rev.data;
        (void)RunValidators(tx, space, u->toolchain_type, &vet);
        rev.validation_errors_json = JsonText(vet.validation_errors);
      }
      plan.writes.revisions.push_back(std::move(rev));
      plan.writes.heads.push_back({u->id, u->head + 1});
      mark(u->id, u->head, u->head + 1);
      SetAction(*r, PromotionAction::kInvoked);
      r->set_end_revision_num(static_cast<int32_t>(u->head + 1));
      r->set_revisions_written(1);
    }
    if (failed) {
      SetStatus(plan.report, PromotionStatus::kFailed);
      plan.report.set_error("the invocation failed on some of its units");
      plan.writes = store::PromotionWrites();
    } else {
      SetStatus(plan.report, PromotionStatus::kPromoted);
    }
  }
  return plans;
}

}  // namespace cub::ops
