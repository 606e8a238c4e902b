#include "lib/workflow/validate.h"

#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/domain/vocabulary.h"
#include "lib/where/sql.h"
#include "lib/workflow/custom_gate.h"
#include "lib/workflow/names.h"

namespace cub::workflow {
namespace {

const std::vector<std::string>& BuiltinNames() {
  static const auto* names = new std::vector<std::string>{
      std::string(kValidated), std::string(kReleased), std::string(kHealthy), std::string(kSoaked)};
  return *names;
}

// Collects problems; each Add is one "<where>: <what>".
class Report {
 public:
  void Add(const std::string& where, const std::string& what) {
    problems_.push_back(absl::StrCat(where, ": ", what));
  }
  std::vector<std::string> Take() { return std::move(problems_); }

 private:
  std::vector<std::string> problems_;
};

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

// The names a workflow declares, for resolving and suggesting.
struct Declared {
  std::vector<std::string> custom;
  std::vector<std::string> attestation;

  bool IsCustom(const std::string& n) const {
    for (const std::string& c : custom) {
      if (c == n) return true;
    }
    return false;
  }
  bool IsAttestation(const std::string& n) const {
    for (const std::string& a : attestation) {
      if (a == n) return true;
    }
    return false;
  }
};

// Checks one list of prerequisite names; `where` is e.g. "stage 'prod': Prerequisites".
void CheckNameList(const std::vector<std::string>& names, const std::string& where,
                   bool attestation_only, const Declared& declared, Report* report) {
  std::set<std::string> seen;
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string& n = names[i];
    if (n.empty()) {
      report->Add(absl::StrCat(where, "[", i, "]"), "empty prerequisite name");
      continue;
    }
    if (!seen.insert(n).second) {
      report->Add(where, absl::StrCat("'", n, "' is listed twice"));
      continue;
    }
    if (attestation_only) {
      if (declared.IsAttestation(n)) continue;
      if (IsBuiltinPrerequisite(n) || declared.IsCustom(n)) {
        report->Add(where, absl::StrCat("'", n,
                                        "' is not an attestation prerequisite; release "
                                        "prerequisites may name only AttestationPrerequisites"));
      } else {
        std::string hint = DidYouMean(n, declared.attestation);
        if (hint.empty()) hint = " (declare it under AttestationPrerequisites)";
        report->Add(where, absl::StrCat("unknown attestation prerequisite '", n, "'", hint));
      }
      continue;
    }
    if (IsBuiltinPrerequisite(n) || declared.IsCustom(n) || declared.IsAttestation(n)) continue;
    std::vector<std::string> all = BuiltinNames();
    all.insert(all.end(), declared.custom.begin(), declared.custom.end());
    all.insert(all.end(), declared.attestation.begin(), declared.attestation.end());
    std::string hint = DidYouMean(n, all);
    if (hint.empty()) {
      hint =
          " (the built-in ones are Validated, Released, Healthy and Soaked; declare others under "
          "CustomPrerequisites or AttestationPrerequisites)";
    }
    report->Add(where, absl::StrCat("unknown prerequisite '", n, "'", hint));
  }
}

bool Names(const std::vector<std::string>& names, std::string_view name) {
  for (const std::string& n : names) {
    if (n == name) return true;
  }
  return false;
}

// A Stage's SoakTime and its Soaked prerequisite come together: the one is what the other
// waits for.
void CheckSoak(const Stage& s, const std::string& label, Report* report) {
  const bool soaked = Names(s.prerequisites, kSoaked);
  const std::string stage = IsValidName(s.name) ? s.name : "STAGE";
  if (!s.soak_time.empty()) {
    if (absl::StatusOr<absl::Duration> d = ParseSoakTime(s.soak_time); !d.ok()) {
      report->Add(label, std::string(d.status().message()));
    } else if (!soaked) {
      report->Add(label, absl::StrCat("SoakTime '", s.soak_time,
                                      "' is set but Prerequisites do not name Soaked, so nothing "
                                      "waits for it: add Soaked to the stage's Prerequisites, or "
                                      "clear SoakTime (--stage-soak-time ",
                                      stage, "=)"));
    }
  } else if (soaked) {
    report->Add(label, absl::StrCat("Prerequisites name Soaked but the stage has no SoakTime: "
                                    "say how long the Release must have been Healthy, such as "
                                    "SoakTime: 24h (--stage-soak-time ",
                                    stage, "=24h)"));
  }
}

void CheckStages(const Workflow& w, const where::Schema& space_schema, const Declared& declared,
                 Report* report) {
  if (w.stages.empty()) {
    report->Add("Stages", "a workflow needs at least one stage");
    return;
  }
  for (size_t i = 0; i < w.stages.size(); ++i) {
    const Stage& s = w.stages[i];
    std::string index = absl::StrCat("Stages[", i, "]");
    bool usable_name = true;
    if (!IsValidName(s.name)) {
      report->Add(index, InvalidNameMessage("stage", s.name));
      usable_name = false;
    } else if (EqualsIgnoreCase(s.name, "Completed")) {
      report->Add(index, absl::StrCat("stage name '", s.name,
                                      "' is reserved: a ChangeOrder's Stage reads Completed once "
                                      "its rollout is done"));
      usable_name = false;
    } else {
      for (size_t j = 0; j < i; ++j) {
        if (EqualsIgnoreCase(w.stages[j].name, s.name)) {
          report->Add(index,
                      absl::StrCat("duplicate stage name '", s.name, "' (Stages[", j, "] is '",
                                   w.stages[j].name, "'; stage names must differ, ignoring case)"));
          usable_name = false;
          break;
        }
      }
    }
    std::string label = usable_name ? absl::StrCat("stage '", s.name, "'") : index;
    if (IsBlank(s.where_space)) {
      report->Add(label, absl::StrCat("WhereSpace is required: a where expression over Spaces, "
                                      "such as Labels.Stage = '",
                                      usable_name ? s.name : "Production", "'"));
    } else if (absl::StatusOr<where::Sql> sql = where::CompileToSql(s.where_space, space_schema);
               !sql.ok()) {
      report->Add(label, absl::StrCat("WhereSpace: ", sql.status().message()));
    }
    CheckNameList(s.prerequisites, absl::StrCat(label, ": Prerequisites"), false, declared, report);
    CheckNameList(s.release_prerequisites, absl::StrCat(label, ": ReleasePrerequisites"), true,
                  declared, report);
    CheckSoak(s, label, report);
  }
}

// Checks one declaration's name against the built-ins and the names declared before it;
// returns the label to report its other problems under.
std::string CheckDeclarationName(const std::string& kind, size_t index, const std::string& name,
                                 std::vector<std::pair<std::string, std::string>>* earlier,
                                 Report* report) {
  std::string position = absl::StrCat(kind, "[", index, "]");
  if (!IsValidName(name)) {
    report->Add(position, InvalidNameMessage("prerequisite", name));
    return position;
  }
  for (const std::string& b : BuiltinNames()) {
    if (EqualsIgnoreCase(b, name)) {
      report->Add(position, absl::StrCat("'", name, "' shadows the built-in prerequisite ", b,
                                         "; choose another name"));
      return position;
    }
  }
  for (const auto& [other_position, other_name] : *earlier) {
    if (EqualsIgnoreCase(other_name, name)) {
      report->Add(position,
                  absl::StrCat("duplicate prerequisite name '", name, "' (", other_position,
                               " is '", other_name, "'; names must differ, ignoring case)"));
      return position;
    }
  }
  earlier->emplace_back(position, name);
  return absl::StrCat(kind, " '", name, "'");
}

void CheckAttestation(const AttestationPrerequisite& a, const std::string& label, Report* report) {
  if (!IsValidName(a.type)) {
    report->Add(label, absl::StrCat("Type: ", InvalidNameMessage("attestation type", a.type)));
  }
  if (a.count < 1) report->Add(label, absl::StrCat("Count must be at least 1, got ", a.count));
  std::vector<std::string> users;
  for (size_t i = 0; i < a.from_user_ids.size(); ++i) {
    const std::string& id = a.from_user_ids[i];
    std::string where = absl::StrCat(label, ": FromUserIDs[", i, "]");
    if (!IsUuid(id)) {
      report->Add(where, absl::StrCat("'", id, "' is not a user ID (a UUID)"));
      continue;
    }
    bool repeated = false;
    for (const std::string& u : users) repeated = repeated || EqualsIgnoreCase(u, id);
    if (repeated) report->Add(where, absl::StrCat("'", id, "' is listed twice"));
    users.push_back(id);
  }
  std::set<std::string> groups;
  for (size_t i = 0; i < a.from_groups.size(); ++i) {
    const std::string& g = a.from_groups[i];
    std::string where = absl::StrCat(label, ": FromGroups[", i, "]");
    if (!IsValidGroupName(g)) {
      report->Add(where, InvalidGroupNameMessage(g));
    } else if (!groups.insert(g).second) {
      report->Add(where, absl::StrCat("'", g, "' is listed twice"));
    }
  }
  if (absl::StatusOr<absl::Duration> d = ParseMaxAge(a.max_age); !d.ok()) {
    report->Add(label, std::string(d.status().message()));
  }
  if (a.distinct_groups && a.from_groups.empty()) {
    report->Add(label,
                "DistinctGroups needs FromGroups: name the groups the attesters must come from");
  } else if (a.distinct_groups && a.count > static_cast<int>(a.from_groups.size())) {
    report->Add(label, absl::StrCat("Count ", a.count,
                                    " can never be met from distinct groups: FromGroups lists ",
                                    a.from_groups.size()));
  }
  if (a.from_groups.empty() && !a.from_user_ids.empty() &&
      a.count > static_cast<int>(a.from_user_ids.size())) {
    report->Add(label, absl::StrCat("Count ", a.count, " can never be met: FromUserIDs lists ",
                                    a.from_user_ids.size(), " user(s)"));
  }
}

}  // namespace

std::vector<std::string> Problems(const Workflow& w, const where::Schema& space_schema) {
  Report report;
  Declared declared;
  for (const CustomPrerequisite& c : w.custom_prerequisites) declared.custom.push_back(c.name);
  for (const AttestationPrerequisite& a : w.attestation_prerequisites) {
    declared.attestation.push_back(a.name);
  }

  CheckStages(w, space_schema, declared, &report);
  CheckNameList(w.final.prerequisites, "Final.Prerequisites", false, declared, &report);
  if (Names(w.final.prerequisites, kSoaked)) {
    report.Add("Final.Prerequisites",
               "Soaked cannot be named here, as Final has no SoakTime: name Healthy instead, or "
               "name Soaked in the Prerequisites of a Stage that sets a SoakTime");
  }

  std::vector<std::pair<std::string, std::string>> earlier;  // (position, name)
  for (size_t i = 0; i < w.custom_prerequisites.size(); ++i) {
    const CustomPrerequisite& c = w.custom_prerequisites[i];
    std::string label = CheckDeclarationName("CustomPrerequisites", i, c.name, &earlier, &report);
    if (absl::StatusOr<cel::Program> p = CompileExpression(c.expression); !p.ok()) {
      report.Add(label, std::string(p.status().message()));
    }
  }
  for (size_t i = 0; i < w.attestation_prerequisites.size(); ++i) {
    const AttestationPrerequisite& a = w.attestation_prerequisites[i];
    std::string label =
        CheckDeclarationName("AttestationPrerequisites", i, a.name, &earlier, &report);
    CheckAttestation(a, label, &report);
  }
  return report.Take();
}

absl::Status Validate(const Workflow& w, const where::Schema& space_schema) {
  std::vector<std::string> problems = Problems(w, space_schema);
  if (problems.empty()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrJoin(problems, "; "));
}

absl::Status ValidateForUpdateType(const Workflow& w, std::string_view update_type) {
  const auto type = domain::ParseUpdateType(update_type);
  if (!type || (*type != domain::UpdateType::kInvoke && !domain::CopiesFromSources(*type))) {
    return absl::OkStatus();
  }
  if (w.stages.empty() || w.stages.front().prerequisites.empty()) return absl::OkStatus();
  const Stage& first = w.stages.front();
  return absl::InvalidArgumentError(absl::StrCat(
      "update type ", std::string(update_type), " cannot use a workflow whose first stage '",
      first.name, "' has prerequisites (", absl::StrJoin(first.prerequisites, ", "),
      "): its change is in no Space before it is promoted into one"));
}

}  // namespace cub::workflow
