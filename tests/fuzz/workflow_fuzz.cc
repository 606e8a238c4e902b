// libFuzzer target for the ChangeWorkflow definition reader (lib/workflow/parse.h, strict_read.h):
// the input is a YAML or JSON definition. ParseWorkflow must never crash and refuses only with
// InvalidArgument; whatever it accepts must
//   - read back equal from its canonical JSON (compact and pretty) and from that JSON's YAML
//     rendering (EmitYaml of ToNode), the JSON being byte-identical the second time;
//   - validate without crashing (Validate fails exactly when Problems is not empty), check
//     against update types, and compile and evaluate its custom prerequisites (CEL) without
//     crashing.
//
// Build and run with tests/fuzz/run.sh (see docs/operations.md, "Fuzzing"). Seeds, and inputs
// that once failed, are in tests/fuzz/corpus/workflow.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/time/time.h"
#include "lib/config/yaml.h"
#include "lib/store/schemas.h"
#include "lib/util/utf8.h"
#include "lib/workflow/workflow.h"
#include "tests/fuzz/check_property.h"

namespace {

namespace wf = cub::workflow;

constexpr char kSpace[] =
    R"({"Slug":"prod-eu","Labels":{"tier":"prod"},"Annotations":{"code-freeze":"false"}})";
constexpr char kChangeOrder[] = R"({"Slug":"co-1","UpdateType":"UpgradeUnit"})";
constexpr char kRelease[] = R"({"ReleaseNum":3,"Labels":{"channel":"stable"}})";

// ParseWorkflow(text) reads back `w` exactly.
void CheckReadsBack(const wf::Workflow& w, const std::string& text) {
  absl::StatusOr<wf::Workflow> again = wf::ParseWorkflow(text);
  CHECK_PROPERTY(again.ok());
  CHECK_PROPERTY(*again == w);
}

void Check(const wf::Workflow& w) {
  const std::string json = wf::ToJson(w);
  // emit.h promises the round trip for valid UTF-8 strings, which ParseYaml guarantees.
  CHECK_PROPERTY(cub::FindInvalidUtf8(json) == std::string::npos);
  CheckReadsBack(w, json);
  CHECK_PROPERTY(wf::ToJson(*wf::ParseWorkflow(json)) == json);
  CheckReadsBack(w, wf::ToJson(w, /*pretty=*/true));
  CheckReadsBack(w, cub::config::EmitYaml({wf::ToNode(w)}));

  const std::vector<std::string> problems = wf::Problems(w, cub::store::SpaceSchema());
  const absl::Status valid = wf::Validate(w, cub::store::SpaceSchema());
  CHECK_PROPERTY(valid.ok() == problems.empty());
  if (!valid.ok()) CHECK_PROPERTY(valid.code() == absl::StatusCode::kInvalidArgument);
  for (const char* type : {"Invoke", "UpgradeUnit", "TransformPaths"}) {
    absl::Status s = wf::ValidateForUpdateType(w, type);
    if (!s.ok()) CHECK_PROPERTY(s.code() == absl::StatusCode::kInvalidArgument);
  }

  absl::StatusOr<std::map<std::string, wf::CompiledCustom>> gates =
      wf::CompileCustomPrerequisites(w);
  if (!gates.ok()) return;
  absl::StatusOr<wf::GateInputs> inputs =
      wf::MakeGateInputs(kSpace, kChangeOrder, kRelease, absl::FromUnixSeconds(1800000000));
  CHECK_PROPERTY(inputs.ok());
  for (const auto& [name, gate] : *gates) {
    absl::StatusOr<bool> held = wf::EvaluateCustom(gate, *inputs);
    if (held.ok() && !*held) (void)wf::NotSatisfiedMessage(gate);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  wf::ParseOptions skip;
  skip.skip_fields = {"Slug", "SpaceID", "ChangeWorkflowID"};
  for (const wf::ParseOptions& options : {wf::ParseOptions(), skip}) {
    absl::StatusOr<wf::Workflow> w = wf::ParseWorkflow(text, options);
    if (!w.ok()) {
      CHECK_PROPERTY(w.status().code() == absl::StatusCode::kInvalidArgument);
      continue;
    }
    Check(*w);
  }
  return 0;
}
