#include "lib/ops/functions.h"

#include <map>
#include <set>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/config/json.h"
#include "lib/config/yaml.h"
#include "lib/functions/registry.h"
#include "lib/functions/template.h"
#include "lib/ops/access.h"
#include "lib/ops/change_sets.h"
#include "lib/ops/input.h"
#include "lib/ops/resolve.h"
#include "lib/ops/validation.h"
#include "lib/store/invocations.h"
#include "lib/store/units.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

using functions::FunctionKind;

v1::FunctionSpec ToProto(const functions::FunctionSpec& f) {
  v1::FunctionSpec out;
  out.set_name(f.name);
  out.set_kind(functions::FunctionKindName(f.kind));
  out.set_toolchain_type(f.toolchain);
  out.set_description(f.description);
  out.set_signature(f.Signature());
  for (const auto& param : f.parameters) {
    v1::FunctionParameter* pp = out.add_parameters();
    pp->set_name(param.name);
    pp->set_type(param.type);
    pp->set_required(param.required);
    pp->set_description(param.description);
  }
  return out;
}

// Runs the function over one Unit's head; for a set that changed something (and not a dry
// run), writes the new revision.
absl::Status RunOnUnit(store::Tx& tx, const Principal& p, const v1::Space& space,
                       const v1::Unit& unit, const functions::Arguments& args,
                       const v1::InvokeFunctionRequest& req, v1::FunctionUnitResult* out) {
  const functions::Registry& registry = functions::Registry::Default();
  out->set_unit_id(unit.unit_id());
  out->set_unit_slug(unit.slug());
  std::string data;
  if (unit.head_revision_num() > 0) {
    CUB_ASSIGN_OR_RETURN(auto head,
                         store::FindRevision(tx, unit.unit_id(), unit.head_revision_num()));
    if (!head) return absl::InternalError("head revision missing");
    data = head->data();
  }
  auto unit_error = [&unit](const absl::Status& s) {
    return absl::Status(s.code(), absl::StrCat("unit '", unit.slug(), "': ", s.message()));
  };
  if (args.spec().kind == FunctionKind::kVet) {
    auto vet = registry.VetYaml(args, data);
    if (!vet.ok()) return unit_error(vet.status());
    out->set_passed(vet->passed);
    for (const auto& e : vet->errors) out->add_errors(e);
    return absl::OkStatus();
  }
  auto docs = config::ParseYaml(data);
  if (!docs.ok()) return unit_error(docs.status());
  if (args.spec().kind == FunctionKind::kGet) {
    auto got = registry.Get(args, *docs);
    if (!got.ok()) return unit_error(got.status());
    for (const auto& v : got->values) {
      v1::FunctionValue* fv = out->add_values();
      fv->set_resource(v.resource);
      fv->set_path(v.path);
      fv->set_value(v.value);
    }
    return absl::OkStatus();
  }
  auto set = registry.Set(args, *std::move(docs));
  if (!set.ok()) return unit_error(set.status());
  out->set_matched(static_cast<int32_t>(set->matched));
  for (const auto& m : set->mutations) {
    v1::Mutation* pm = out->add_mutations();
    pm->set_path(absl::StrCat(m.resource, ": ", m.path));
    pm->set_kind(m.old_value.empty() ? "Add" : "Replace");
    pm->set_old_value(m.old_value);
    pm->set_new_value(m.new_value);
  }
  if (!set->changed || req.dry_run()) return absl::OkStatus();
  CUB_ASSIGN_OR_RETURN(auto change_set, ChangeSetForWrite(tx, p, space, unit, req.change_set()));
  store::NewRevision rev;
  rev.data = config::EmitYaml(set->docs);
  rev.data_hash = absl::StrCat("sha256:", Sha256Hex(config::CanonicalJson(set->docs)));
  rev.author_id = p.user_id;
  rev.description =
      req.change_desc().empty() ? absl::StrCat(args.spec().name, " (function)") : req.change_desc();
  rev.change_set_id = change_set;
  CUB_RETURN_IF_ERROR(RunValidators(tx, space, unit.toolchain_type(), &rev));
  CUB_ASSIGN_OR_RETURN(auto written, store::AppendRevision(tx, unit.unit_id(), rev));
  out->set_revision_num(static_cast<int32_t>(written.revision_num()));
  return absl::OkStatus();
}

absl::Status CheckParamValue(const v1::InvocationParameter& param, const std::string& value) {
  int64_t n;
  if (param.type() == "int" && !absl::SimpleAtoi(value, &n)) {
    return absl::InvalidArgumentError(
        absl::StrCat("parameter '", param.name(), "' is an int; got '", value, "'"));
  }
  if (param.type() == "bool" && value != "true" && value != "false") {
    return absl::InvalidArgumentError(absl::StrCat(
        "parameter '", param.name(), "' is a bool (true or false); got '", value, "'"));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::string>> BindInvocation(
    const v1::Invocation& inv, const google::protobuf::Map<std::string, std::string>& params) {
  std::map<std::string, std::string> values(params.begin(), params.end());
  for (const auto& [name, value] : values) {
    bool declared = false;
    for (const auto& param : inv.parameters()) {
      if (param.name() != name) continue;
      declared = true;
      CUB_RETURN_IF_ERROR(CheckParamValue(param, value));
    }
    if (!declared) {
      return absl::InvalidArgumentError(
          absl::StrCat("invocation '", inv.slug(), "' has no parameter '", name, "'"));
    }
  }
  for (const auto& param : inv.parameters()) {
    if (param.required() && values.count(param.name()) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("invocation '", inv.slug(), "' needs parameter '", param.name(), "' (",
                       param.type(), "): pass Params ", param.name(), "=VALUE"));
    }
  }
  std::vector<std::string> args;
  for (const auto& a : inv.arguments()) {
    CUB_ASSIGN_OR_RETURN(auto expanded, functions::ExpandTemplate(a, values));
    args.push_back(std::move(expanded));
  }
  return args;
}

absl::StatusOr<v1::Invocation> ResolveInvocation(store::Tx& tx, const Principal& p,
                                                 const std::string& default_space,
                                                 const std::string& ref) {
  std::string space_ref = default_space, name = ref;
  if (auto slash = ref.find('/'); slash != std::string::npos) {
    space_ref = ref.substr(0, slash);
    name = ref.substr(slash + 1);
  }
  CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, space_ref, Access::kRead));
  CUB_ASSIGN_OR_RETURN(auto inv, store::FindInvocation(tx, space.space_id(), name));
  if (!inv) {
    return absl::NotFoundError(
        absl::StrCat("invocation '", name, "' not found in space '", space.slug(), "'"));
  }
  return *inv;
}

absl::StatusOr<v1::Invocation> CreateInvocation(store::ConnectionPool& db, const Principal& p,
                                                const v1::CreateInvocationRequest& req) {
  CUB_RETURN_IF_ERROR(ValidateSlug("invocation", req.slug()));
  const functions::FunctionSpec* spec = functions::Registry::Default().Find(req.function());
  if (spec == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("no function named '", req.function(), "'; see the ListFunctions method"));
  }
  if (spec->toolchain != req.toolchain_type()) {
    return absl::InvalidArgumentError(absl::StrCat(req.function(), " works on ", spec->toolchain,
                                                   ", not ", req.toolchain_type()));
  }
  std::set<std::string> declared;
  for (const auto& param : req.parameters()) {
    CUB_RETURN_IF_ERROR(ValidateSlug("parameter", param.name()));
    if (param.type() != "string" && param.type() != "int" && param.type() != "bool") {
      return absl::InvalidArgumentError(absl::StrCat("parameter '", param.name(), "' has type '",
                                                     param.type(), "': use string, int or bool"));
    }
    if (!declared.insert(param.name()).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("parameter '", param.name(), "' is declared twice"));
    }
  }
  std::map<std::string, std::string> samples;
  for (const auto& a : req.arguments()) {
    CUB_ASSIGN_OR_RETURN(auto names, functions::TemplateParams(a));
    for (const auto& n : names) {
      if (declared.count(n) == 0) {
        return absl::InvalidArgumentError(absl::StrCat("argument '", a, "' uses parameter '", n,
                                                       "', which is not declared (Parameters ", n,
                                                       ":string:true)"));
      }
    }
  }
  v1::Invocation inv;
  inv.set_slug(req.slug());
  inv.set_toolchain_type(req.toolchain_type());
  inv.set_function_name(req.function());
  *inv.mutable_arguments() = req.arguments();
  *inv.mutable_parameters() = req.parameters();
  v1::Invocation out;
  absl::Status st = store::WithTransaction(db, [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kWrite));
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindInvocation(tx, space.space_id(), req.slug()));
    if (existing) {
      return absl::AlreadyExistsError(absl::StrCat(
          "invocation '", req.slug(), "' already exists in space '", space.slug(), "'"));
    }
    inv.set_space_id(space.space_id());
    CUB_ASSIGN_OR_RETURN(auto saved, store::InsertInvocation(tx, inv, p.user_id));
    out = saved;
    return absl::OkStatus();
  });
  if (!st.ok()) return AlreadyExistsAs(st, absl::StrCat("invocation '", req.slug(), "'"));
  return out;
}

absl::StatusOr<v1::Invocation> GetInvocation(store::ConnectionPool& db, const Principal& p,
                                             const v1::GetInvocationRequest& req) {
  return store::InReadTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::Invocation> {
    v1::Invocation out;
    CUB_ASSIGN_OR_RETURN(auto inv, ResolveInvocation(tx, p, req.space(), req.invocation()));
    out = inv;
    return out;
  });
}

absl::StatusOr<v1::ListInvocationsResponse> ListInvocations(store::ConnectionPool& db,
                                                            const Principal& p,
                                                            const v1::ListInvocationsRequest& req) {
  return store::InReadTransaction(
      db, [&](store::Tx& tx) -> absl::StatusOr<v1::ListInvocationsResponse> {
        v1::ListInvocationsResponse out;
        CUB_ASSIGN_OR_RETURN(auto space, ResolveSpace(tx, p, req.space(), Access::kRead));
        CUB_ASSIGN_OR_RETURN(auto invocations, store::ListInvocations(tx, space.space_id()));
        for (auto& inv : invocations) {
          *out.add_invocations() = std::move(inv);
        }
        return out;
      });
}

absl::StatusOr<v1::ListFunctionsResponse> ListFunctions(const v1::ListFunctionsRequest& req) {
  v1::ListFunctionsResponse out;
  for (const auto* f : functions::Registry::Default().List(req.toolchain_type())) {
    *out.add_functions() = ToProto(*f);
  }
  return out;
}

absl::StatusOr<v1::InvokeFunctionResponse> InvokeFunction(store::ConnectionPool& db,
                                                          const Principal& p,
                                                          const v1::InvokeFunctionRequest& req) {
  const functions::Registry& registry = functions::Registry::Default();
  std::string function = req.function();
  std::vector<std::string> words(req.arguments().begin(), req.arguments().end());
  if (!req.invocation().empty()) {
    if (!function.empty() || !words.empty()) {
      return absl::InvalidArgumentError("give either an invocation or a function, not both");
    }
    absl::Status st = store::WithReadTransaction(db, [&](store::Tx& tx) -> absl::Status {
      CUB_ASSIGN_OR_RETURN(auto inv, ResolveInvocation(tx, p, req.space(), req.invocation()));
      CUB_ASSIGN_OR_RETURN(auto bound, BindInvocation(inv, req.params()));
      function = inv.function_name();
      words = std::move(bound);
      return absl::OkStatus();
    });
    if (!st.ok()) return st;
  } else if (!req.params().empty()) {
    return absl::InvalidArgumentError("Params goes with Invocation");
  }
  CUB_ASSIGN_OR_RETURN(auto args, registry.Parse(function, words));
  const std::string kind = functions::FunctionKindName(args.spec().kind);
  if (!req.kind().empty() && req.kind() != kind) {
    return absl::InvalidArgumentError(absl::StrCat(
        function, " is a ", kind, " function; run it with InvokeFunction, giving Kind ", kind));
  }
  if (!req.unit().empty() && !req.where().empty()) {
    return absl::InvalidArgumentError("select Units with a unit or with Where, not both");
  }
  const bool writes = args.spec().kind == FunctionKind::kSet && !req.dry_run();
  v1::InvokeFunctionResponse out;
  auto run = [&](store::Tx& tx) -> absl::Status {
    CUB_ASSIGN_OR_RETURN(auto space,
                         ResolveSpace(tx, p, req.space(), writes ? Access::kWrite : Access::kRead));
    std::vector<v1::Unit> units;
    if (!req.unit().empty()) {
      CUB_ASSIGN_OR_RETURN(auto unit, ResolveUnit(tx, space, req.unit()));
      units.push_back(unit);
    } else {
      store::UnitQuery q;
      q.space_id = space.space_id();
      q.where = req.where();
      CUB_ASSIGN_OR_RETURN(auto listed, store::ListUnits(tx, ToCaller(p), q));
      units = std::move(listed);
    }
    if (units.empty()) {
      return absl::NotFoundError(
          absl::StrCat("no unit of space '", space.slug(), "' matches the selection"));
    }
    for (auto& unit : units) {
      if (unit.toolchain_type() != args.spec().toolchain) continue;
      if (writes) {
        // Edit the head as it is once no one else can write it, so no write is lost.
        CUB_RETURN_IF_ERROR(store::LockUnit(tx, unit.unit_id()));
        CUB_ASSIGN_OR_RETURN(auto fresh, store::FindUnit(tx, space.space_id(), unit.unit_id()));
        if (!fresh) return absl::NotFoundError(absl::StrCat("unit '", unit.slug(), "' vanished"));
        unit = *fresh;
      }
      CUB_RETURN_IF_ERROR(RunOnUnit(tx, p, space, unit, args, req, out.add_units()));
    }
    if (!writes) return absl::OkStatus();
    std::vector<std::string> written;
    for (const auto& u : out.units()) {
      if (u.revision_num() > 0) written.push_back(u.unit_id());
    }
    // Units that follow the ones written through AutoUpdate Links take the new revisions.
    return FollowAutoUpdates(tx, p, std::move(written));
  };
  CUB_RETURN_IF_ERROR(writes ? store::WithTransaction(db, run)
                             : store::WithReadTransaction(db, run));
  return out;
}

}  // namespace cub::ops
