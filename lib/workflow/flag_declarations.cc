#include "lib/workflow/flag_declarations.h"

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/custom_gate.h"
#include "lib/workflow/flag_values.h"

namespace cub::workflow::internal {
namespace {

absl::Status DeletePrerequisites(const std::vector<std::string>& values, Workflow* w) {
  constexpr std::string_view kFlag = "--delete-prerequisite";
  std::vector<std::string> seen;
  for (const std::string& raw : values) {
    CUB_ASSIGN_OR_RETURN(NameValue nv, SplitNameValue(kFlag, raw, "prerequisite", false));
    if (nv.has_value) return FlagError(kFlag, raw, "give the prerequisite's name alone");
    CUB_RETURN_IF_ERROR(CheckOnce(kFlag, raw, nv.name, &seen));
    const std::string& name = nv.name;
    if (IsBuiltinPrerequisite(name)) {
      return FlagError(kFlag, raw, "built-in prerequisites are not declared, so cannot be deleted");
    }
    auto& customs = w->custom_prerequisites;
    auto& attestations = w->attestation_prerequisites;
    size_t before = customs.size() + attestations.size();
    customs.erase(std::remove_if(customs.begin(), customs.end(),
                                 [&](const CustomPrerequisite& c) { return c.name == name; }),
                  customs.end());
    attestations.erase(
        std::remove_if(attestations.begin(), attestations.end(),
                       [&](const AttestationPrerequisite& a) { return a.name == name; }),
        attestations.end());
    if (customs.size() + attestations.size() == before) {
      return FlagError(kFlag, raw, absl::StrCat("no declared prerequisite '", name, "'"));
    }
  }
  return absl::OkStatus();
}

CustomPrerequisite* MutableCustom(Workflow* w, const std::string& name) {
  for (CustomPrerequisite& c : w->custom_prerequisites) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

AttestationPrerequisite* MutableAttestation(Workflow* w, const std::string& name) {
  for (AttestationPrerequisite& a : w->attestation_prerequisites) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

absl::Status DeclareCustoms(const WorkflowFlags& flags, Workflow* w) {
  constexpr std::string_view kFlag = "--custom-prerequisite";
  std::vector<std::string> seen;
  for (const std::string& raw : flags.custom_prerequisites) {
    CUB_ASSIGN_OR_RETURN(NameValue nv, SplitNameValue(kFlag, raw, "prerequisite", true));
    CUB_RETURN_IF_ERROR(CheckOnce(kFlag, raw, nv.name, &seen));
    if (nv.value.substr(0, kCelPrefix.size()) != kCelPrefix) {
      return FlagError(kFlag, raw, "the expression must start with cel:, as NAME=cel:EXPR");
    }
    if (IsBuiltinPrerequisite(nv.name)) {
      return FlagError(kFlag, raw, absl::StrCat("'", nv.name, "' is a built-in prerequisite"));
    }
    if (FindAttestationPrerequisite(*w, nv.name) != nullptr) {
      return FlagError(kFlag, raw,
                       absl::StrCat("'", nv.name, "' is declared as an attestation prerequisite"));
    }
    if (CustomPrerequisite* c = MutableCustom(w, nv.name)) {
      c->expression = nv.value;
    } else {
      w->custom_prerequisites.push_back(CustomPrerequisite{nv.name, nv.value, ""});
    }
  }
  return absl::OkStatus();
}

absl::Status DeclareAttestations(const WorkflowFlags& flags, Workflow* w) {
  constexpr std::string_view kFlag = "--attestation-prerequisite";
  std::vector<std::string> seen;
  for (const std::string& raw : flags.attestation_prerequisites) {
    CUB_ASSIGN_OR_RETURN(NameValue nv, SplitNameValue(kFlag, raw, "prerequisite", false));
    if (nv.has_value) {
      return FlagError(kFlag, raw,
                       "give the name alone; set its fields with --attestation-prerequisite-count "
                       "NAME=N and the other --attestation-prerequisite-* flags");
    }
    CUB_RETURN_IF_ERROR(CheckOnce(kFlag, raw, nv.name, &seen));
    if (IsBuiltinPrerequisite(nv.name)) {
      return FlagError(kFlag, raw, absl::StrCat("'", nv.name, "' is a built-in prerequisite"));
    }
    if (FindCustomPrerequisite(*w, nv.name) != nullptr) {
      return FlagError(kFlag, raw,
                       absl::StrCat("'", nv.name, "' is declared as a custom prerequisite"));
    }
    if (MutableAttestation(w, nv.name) == nullptr) {
      AttestationPrerequisite a;
      a.name = nv.name;
      w->attestation_prerequisites.push_back(std::move(a));
    }
  }
  return absl::OkStatus();
}

// Applies one NAME=VALUE field flag to declared prerequisites of one kind: `find` looks the
// name up, `set` parses the value and sets the field (returning a refusal for a bad value).
template <typename T>
absl::Status ApplyField(std::string_view flag, const std::vector<std::string>& values,
                        bool value_required, std::string_view kind, std::string_view kind_flag,
                        const std::function<T*(const std::string&)>& find,
                        const std::function<absl::Status(const std::string& raw,
                                                         const NameValue& nv, T* target)>& set) {
  std::vector<std::string> seen;
  for (const std::string& raw : values) {
    CUB_ASSIGN_OR_RETURN(NameValue nv, SplitNameValue(flag, raw, "prerequisite", value_required));
    CUB_RETURN_IF_ERROR(CheckOnce(flag, raw, nv.name, &seen));
    T* target = find(nv.name);
    if (target == nullptr) {
      return FlagError(flag, raw,
                       absl::StrCat("no ", std::string(kind), " '", nv.name, "'; declare it with ",
                                    std::string(kind_flag), " ", nv.name,
                                    kind_flag == "--custom-prerequisite" ? "=cel:EXPR" : ""));
    }
    CUB_RETURN_IF_ERROR(set(raw, nv, target));
  }
  return absl::OkStatus();
}

absl::Status ApplyAttestationFields(const WorkflowFlags& flags, Workflow* w) {
  using A = AttestationPrerequisite;
  const std::function<A*(const std::string&)> find = [w](const std::string& n) {
    return MutableAttestation(w, n);
  };
  constexpr std::string_view kKind = "--attestation-prerequisite";
  auto field = [&](std::string_view flag, const std::vector<std::string>& values,
                   bool value_required,
                   std::function<absl::Status(const std::string&, const NameValue&, A*)> set) {
    return ApplyField<A>(flag, values, value_required, "attestation prerequisite", kKind, find,
                         set);
  };
  auto boolean = [&](std::string_view flag, const std::vector<std::string>& values,
                     bool A::*member) {
    return field(flag, values, false,
                 [flag, member](const std::string& raw, const NameValue& nv, A* a) -> absl::Status {
                   CUB_ASSIGN_OR_RETURN(bool b, ParseBool(flag, raw, nv));
                   a->*member = b;
                   return absl::OkStatus();
                 });
  };

  absl::Status s = field(
      "--attestation-prerequisite-type", flags.attestation_prerequisite_types, true,
      [](const std::string& raw, const NameValue& nv, A* a) -> absl::Status {
        CUB_ASSIGN_OR_RETURN(
            std::vector<std::string> t,
            ParseList("--attestation-prerequisite-type", raw, nv.value, "attestation type"));
        if (t.size() != 1) {
          return FlagError("--attestation-prerequisite-type", raw, "give one attestation type");
        }
        a->type = t.front();
        return absl::OkStatus();
      });
  if (s.ok()) {
    s = field("--attestation-prerequisite-count", flags.attestation_prerequisite_counts, true,
              [](const std::string& raw, const NameValue& nv, A* a) -> absl::Status {
                int n = 0;
                if (!absl::SimpleAtoi(nv.value, &n) || n < 1) {
                  return FlagError("--attestation-prerequisite-count", raw,
                                   "the count must be a whole number of at least 1");
                }
                a->count = n;
                return absl::OkStatus();
              });
  }
  if (s.ok()) {
    s = field(
        "--attestation-prerequisite-from-user-ids", flags.attestation_prerequisite_from_user_ids,
        true, [](const std::string& raw, const NameValue& nv, A* a) -> absl::Status {
          CUB_ASSIGN_OR_RETURN(
              std::vector<std::string> ids,
              ParseList("--attestation-prerequisite-from-user-ids", raw, nv.value, "user", true));
          a->from_user_ids = std::move(ids);
          return absl::OkStatus();
        });
  }
  if (s.ok()) {
    s = field("--attestation-prerequisite-from-groups", flags.attestation_prerequisite_from_groups,
              true, [](const std::string& raw, const NameValue& nv, A* a) -> absl::Status {
                CUB_ASSIGN_OR_RETURN(
                    std::vector<std::string> groups,
                    ParseList("--attestation-prerequisite-from-groups", raw, nv.value, "group"));
                a->from_groups = std::move(groups);
                return absl::OkStatus();
              });
  }
  if (s.ok()) {
    s = field("--attestation-prerequisite-max-age", flags.attestation_prerequisite_max_ages, true,
              [](const std::string& raw, const NameValue& nv, A* a) -> absl::Status {
                if (absl::StatusOr<absl::Duration> d = ParseMaxAge(nv.value); !d.ok()) {
                  return FlagError("--attestation-prerequisite-max-age", raw,
                                   std::string(d.status().message()));
                }
                a->max_age = nv.value;
                return absl::OkStatus();
              });
  }
  if (s.ok()) {
    s = boolean("--attestation-prerequisite-distinct-groups",
                flags.attestation_prerequisite_distinct_groups, &A::distinct_groups);
  }
  if (s.ok()) {
    s = boolean("--attestation-prerequisite-allow-authors",
                flags.attestation_prerequisite_allow_authors, &A::allow_authors);
  }
  if (s.ok()) {
    s = boolean("--attestation-prerequisite-ignore-fail",
                flags.attestation_prerequisite_ignore_fail, &A::ignore_fail);
  }
  if (s.ok()) {
    s = field("--attestation-prerequisite-description", flags.attestation_prerequisite_descriptions,
              true, [](const std::string&, const NameValue& nv, A* a) -> absl::Status {
                a->description = nv.value;
                return absl::OkStatus();
              });
  }
  return s;
}

}  // namespace

absl::Status ApplyDeclarationFlags(const WorkflowFlags& flags, Workflow* w) {
  absl::Status s = DeletePrerequisites(flags.delete_prerequisites, w);
  if (s.ok()) s = DeclareCustoms(flags, w);
  if (s.ok()) {
    const std::function<CustomPrerequisite*(const std::string&)> find = [w](const std::string& n) {
      return MutableCustom(w, n);
    };
    s = ApplyField<CustomPrerequisite>(
        "--custom-prerequisite-description", flags.custom_prerequisite_descriptions, true,
        "custom prerequisite", "--custom-prerequisite", find,
        [](const std::string&, const NameValue& nv, CustomPrerequisite* c) -> absl::Status {
          c->description = nv.value;
          return absl::OkStatus();
        });
  }
  if (s.ok()) s = DeclareAttestations(flags, w);
  if (s.ok()) s = ApplyAttestationFields(flags, w);
  return s;
}

}  // namespace cub::workflow::internal
