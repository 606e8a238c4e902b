#include "lib/workflow/parse.h"

#include <cstdint>
#include <limits>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/yaml.h"
#include "lib/util/status_macros.h"
#include "lib/workflow/strict_read.h"

namespace cub::workflow {
namespace {

using config::Node;

absl::Status ReadBool(const Node& m, std::string_view key, const std::string& path, bool* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  if (!v->IsBool()) return WrongType(Field(path, key), "true or false", *v);
  *out = v->AsBool();
  return absl::OkStatus();
}

absl::Status ReadInt(const Node& m, std::string_view key, const std::string& path, int* out) {
  const Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  if (!v->IsInt()) return WrongType(Field(path, key), "an integer", *v);
  int64_t n = v->AsInt();
  if (n < std::numeric_limits<int>::min() || n > std::numeric_limits<int>::max()) {
    return absl::InvalidArgumentError(absl::StrCat(Field(path, key), ": ", n, " is out of range"));
  }
  *out = static_cast<int>(n);
  return absl::OkStatus();
}

// Calls read(item, item_path) for each item of the list under `key`, each of which must be a
// mapping.
absl::Status ReadStage(const Node& m, const std::string& path, Stage* out) {
  CUB_RETURN_IF_ERROR(CheckFields(m, path,
                                  {"Name", "WhereSpace", "Prerequisites", "ReleasePrerequisites",
                                   "Mode", "AutoRelease", "SoakTime"}));
  CUB_RETURN_IF_ERROR(ReadString(m, "Name", path, &out->name));
  CUB_RETURN_IF_ERROR(ReadString(m, "WhereSpace", path, &out->where_space));
  CUB_RETURN_IF_ERROR(ReadStringList(m, "Prerequisites", path, &out->prerequisites));
  CUB_RETURN_IF_ERROR(ReadStringList(m, "ReleasePrerequisites", path, &out->release_prerequisites));
  std::string mode;
  CUB_RETURN_IF_ERROR(ReadString(m, "Mode", path, &mode));
  if (!mode.empty()) {
    std::optional<StageMode> parsed = ParseStageMode(mode);
    if (!parsed) {
      return absl::InvalidArgumentError(absl::StrCat(Field(path, "Mode"), ": '", mode,
                                                     "' is not a mode: use Manual or Automatic"));
    }
    out->mode = *parsed;
  }
  CUB_RETURN_IF_ERROR(ReadString(m, "SoakTime", path, &out->soak_time));
  return ReadBool(m, "AutoRelease", path, &out->auto_release);
}

absl::Status ReadCustom(const Node& m, const std::string& path, CustomPrerequisite* out) {
  CUB_RETURN_IF_ERROR(CheckFields(m, path, {"Name", "Expression", "Description"}));
  absl::Status s = ReadString(m, "Name", path, &out->name);
  if (s.ok()) s = ReadString(m, "Expression", path, &out->expression);
  if (s.ok()) s = ReadString(m, "Description", path, &out->description);
  return s;
}

absl::Status ReadAttestation(const Node& m, const std::string& path, AttestationPrerequisite* out) {
  CUB_RETURN_IF_ERROR(
      CheckFields(m, path,
                  {"Name", "Type", "Count", "FromUserIDs", "FromGroups", "DistinctGroups", "MaxAge",
                   "AllowAuthors", "IgnoreFail", "Description"}));
  absl::Status s = ReadString(m, "Name", path, &out->name);
  if (s.ok()) s = ReadString(m, "Type", path, &out->type);
  if (s.ok()) s = ReadInt(m, "Count", path, &out->count);
  if (s.ok()) s = ReadStringList(m, "FromUserIDs", path, &out->from_user_ids);
  if (s.ok()) s = ReadStringList(m, "FromGroups", path, &out->from_groups);
  if (s.ok()) s = ReadBool(m, "DistinctGroups", path, &out->distinct_groups);
  if (s.ok()) s = ReadString(m, "MaxAge", path, &out->max_age);
  if (s.ok()) s = ReadBool(m, "AllowAuthors", path, &out->allow_authors);
  if (s.ok()) s = ReadBool(m, "IgnoreFail", path, &out->ignore_fail);
  if (s.ok()) s = ReadString(m, "Description", path, &out->description);
  return s;
}

}  // namespace

absl::StatusOr<Workflow> WorkflowFromNode(const Node& doc, const ParseOptions& options) {
  if (doc.IsNull()) return absl::InvalidArgumentError("workflow is empty");
  if (!doc.IsMapping()) {
    return absl::InvalidArgumentError(
        absl::StrCat("workflow must be a mapping of Stages, Final, CustomPrerequisites and "
                     "AttestationPrerequisites, got ",
                     config::KindName(doc.kind())));
  }
  CUB_RETURN_IF_ERROR(
      CheckFields(doc, "", {"Stages", "Final", "CustomPrerequisites", "AttestationPrerequisites"},
                  options.skip_fields));
  Workflow w;
  absl::Status s = ReadMappingList(doc, "Stages", "", [&](const Node& m, const std::string& p) {
    w.stages.emplace_back();
    return ReadStage(m, p, &w.stages.back());
  });
  if (!s.ok()) return s;
  if (const Node* final = doc.Find("Final"); final != nullptr && !final->IsNull()) {
    if (!final->IsMapping()) return WrongType("Final", "a mapping", *final);
    if (s = CheckFields(*final, "Final", {"Prerequisites"}); !s.ok()) return s;
    if (s = ReadStringList(*final, "Prerequisites", "Final", &w.final.prerequisites); !s.ok()) {
      return s;
    }
  }
  s = ReadMappingList(doc, "CustomPrerequisites", "", [&](const Node& m, const std::string& p) {
    w.custom_prerequisites.emplace_back();
    return ReadCustom(m, p, &w.custom_prerequisites.back());
  });
  if (!s.ok()) return s;
  s = ReadMappingList(doc, "AttestationPrerequisites", "",
                      [&](const Node& m, const std::string& p) {
                        w.attestation_prerequisites.emplace_back();
                        return ReadAttestation(m, p, &w.attestation_prerequisites.back());
                      });
  if (!s.ok()) return s;
  return w;
}

absl::StatusOr<Workflow> ParseWorkflow(std::string_view text, const ParseOptions& options) {
  CUB_ASSIGN_OR_RETURN(std::vector<Node> docs, config::ParseYaml(text));
  if (docs.empty()) return absl::InvalidArgumentError("workflow is empty");
  if (docs.size() > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("workflow must be one document, got ", docs.size()));
  }
  return WorkflowFromNode(docs.front(), options);
}

}  // namespace cub::workflow
