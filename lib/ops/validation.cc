#include "lib/ops/validation.h"

#include "absl/strings/str_cat.h"
#include "lib/functions/registry.h"
#include "lib/ops/functions.h"
#include "lib/store/invocations.h"
#include "lib/store/spaces.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// The parsed vet call `inv` makes, refusing one that is not a vet or needs values.
absl::StatusOr<functions::Arguments> VetCall(const v1::Invocation& inv) {
  const functions::FunctionSpec* spec = functions::Registry::Default().Find(inv.function_name());
  if (spec == nullptr || spec->kind != functions::FunctionKind::kVet) {
    return absl::InvalidArgumentError(absl::StrCat("validator '", inv.slug(), "' runs ",
                                                   inv.function_name(),
                                                   ", which is not a vet function"));
  }
  auto words = BindInvocation(inv, {});
  if (!words.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("validator '", inv.slug(),
                     "' cannot run without parameter values: ", words.status().message()));
  }
  return functions::Registry::Default().Parse(inv.function_name(), *words);
}

}  // namespace

absl::Status CheckValidators(store::Tx& tx, const Principal& p,
                             const std::vector<std::string>& refs) {
  for (const auto& ref : refs) {
    if (ref.find('/') == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("validator '", ref, "': name it as SPACE/INVOCATION"));
    }
    CUB_ASSIGN_OR_RETURN(auto inv, ResolveInvocation(tx, p, "", ref));
    if (auto args = VetCall(inv); !args.ok()) return args.status();
  }
  return absl::OkStatus();
}

absl::Status RunValidators(store::Tx& tx, const v1::Space& space, const std::string& toolchain,
                           store::NewRevision* rev) {
  return Validators(tx).Run(space, toolchain, rev);
}

absl::StatusOr<const std::optional<v1::Invocation>*> Validators::Find(const std::string& ref) {
  if (auto it = loaded_.find(ref); it != loaded_.end()) return &it->second;
  auto slash = ref.find('/');
  CUB_ASSIGN_OR_RETURN(auto inv_space, store::FindSpace(tx_, ref.substr(0, slash)));
  std::optional<v1::Invocation> inv;
  if (inv_space) {
    CUB_ASSIGN_OR_RETURN(inv,
                         store::FindInvocation(tx_, inv_space->space_id(), ref.substr(slash + 1)));
  }
  return &(loaded_[ref] = std::move(inv));
}

absl::Status Validators::Run(const v1::Space& space, const std::string& toolchain,
                             store::NewRevision* rev) {
  rev->validation_errors.clear();
  for (const auto& ref : space.validating_invocations()) {
    CUB_ASSIGN_OR_RETURN(const std::optional<v1::Invocation>* inv, Find(ref));
    if (!*inv) {
      rev->validation_errors.push_back(absl::StrCat(ref, ": validator not found"));
      continue;
    }
    if ((*inv)->toolchain_type() != toolchain) continue;
    auto args = VetCall(**inv);
    if (!args.ok()) {
      rev->validation_errors.push_back(absl::StrCat(ref, ": ", args.status().message()));
      continue;
    }
    auto vet = functions::Registry::Default().VetYaml(*args, rev->data);
    if (!vet.ok()) {
      rev->validation_errors.push_back(absl::StrCat(ref, ": ", vet.status().message()));
      continue;
    }
    for (const auto& e : vet->errors) rev->validation_errors.push_back(absl::StrCat(ref, ": ", e));
  }
  return absl::OkStatus();
}

}  // namespace cub::ops
