// Tests for the ChangeWorkflow model (lib/workflow): parsing the spec's workflows from YAML and
// JSON, refusing unknown fields and wrong types by path, the canonical JSON and its round
// trip, every validation refusal with its message, create and update by flags as the spec
// writes them, the first-stage rule of Invoke and fan-out update types, and custom CEL gates.

#include "lib/workflow/workflow.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "lib/config/yaml.h"
#include "lib/where/schema.h"

namespace cub::workflow {
namespace {

// The Space fields Stages select on, as lib/store's SpaceSchema() exposes them.
const where::Schema& SpaceSchema() {
  static const where::Schema* s =
      new where::Schema("Space", {
                                     {"SpaceID", where::FieldType::kUuid, "s.id"},
                                     {"Slug", where::FieldType::kString, "s.slug"},
                                     {"Labels", where::FieldType::kStringMap, "s.labels"},
                                     {"Annotations", where::FieldType::kStringMap, "s.annotations"},
                                     {"ComponentID", where::FieldType::kUuid, "s.component_id"},
                                 });
  return *s;
}

constexpr char kAcmeMainLine[] = R"(Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Prerequisites: [Validated, Released]
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy, not-frozen]
Final:
  Prerequisites: [Released, Healthy]
CustomPrerequisites:
  - Name: not-frozen
    Expression: "cel:!('code-freeze' in Space.Annotations) || Space.Annotations['code-freeze'] != 'true'"
    Description: the space is not under a code freeze
)";

constexpr char kApprovals[] = R"(Stages:
  - Name: dev
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Prerequisites: [Validated, Released]
  - Name: prod
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy, two-approvers]
    ReleasePrerequisites: [release-manager]
AttestationPrerequisites:
  - Name: two-approvers
    Count: 2
    Description: two approvals of the change in staging, by people who did not write it
  - Name: release-manager
    FromUserIDs: [9b2c0f3e-5d7a-4a61-8f0e-2b6d1c4e7a90, 4f0d2a71-2c8e-4b1e-9a57-6e3c8d9b1f02]
    MaxAge: 72h
)";

Workflow MustParse(const std::string& text) {
  absl::StatusOr<Workflow> w = ParseWorkflow(text);
  INFO(w.status().ToString());
  REQUIRE(w.ok());
  return *w;
}

std::string ParseError(const std::string& text) {
  absl::StatusOr<Workflow> w = ParseWorkflow(text);
  REQUIRE_FALSE(w.ok());
  CHECK(w.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(w.status().message());
}

std::vector<std::string> ProblemsOf(const Workflow& w) { return Problems(w, SpaceSchema()); }

// A minimal valid workflow to break one field of at a time.
Workflow Simple() { return MustParse(kAcmeMainLine); }

bool HasProblem(const Workflow& w, const std::string& problem) {
  std::vector<std::string> problems = ProblemsOf(w);
  for (const std::string& p : problems) {
    if (p == problem) return true;
  }
  for (const std::string& p : problems) UNSCOPED_INFO("problem: " << p);
  return false;
}

TEST_CASE("the spec's acme-main-line parses and validates") {
  Workflow w = MustParse(kAcmeMainLine);
  REQUIRE(w.stages.size() == 3);
  CHECK(w.stages[0].name == "dev");
  CHECK(w.stages[0].where_space == "Labels.Stage = 'Development'");
  CHECK(w.stages[0].prerequisites.empty());
  CHECK(w.stages[1].prerequisites == std::vector<std::string>{"Validated", "Released"});
  CHECK(w.stages[2].prerequisites == std::vector<std::string>{"Released", "Healthy", "not-frozen"});
  CHECK(w.final.prerequisites == std::vector<std::string>{"Released", "Healthy"});
  REQUIRE(w.custom_prerequisites.size() == 1);
  CHECK(w.custom_prerequisites[0].name == "not-frozen");
  CHECK(w.custom_prerequisites[0].description == "the space is not under a code freeze");
  CHECK(w.attestation_prerequisites.empty());
  CHECK(Validate(w, SpaceSchema()).ok());
}

TEST_CASE("the spec's approval workflow parses with defaults and validates") {
  Workflow w = MustParse(kApprovals);
  REQUIRE(w.attestation_prerequisites.size() == 2);
  const AttestationPrerequisite& two = w.attestation_prerequisites[0];
  CHECK(two.name == "two-approvers");
  CHECK(two.type == "Approval");
  CHECK(two.count == 2);
  const AttestationPrerequisite& rm = w.attestation_prerequisites[1];
  CHECK(rm.count == 1);
  CHECK(rm.from_user_ids.size() == 2);
  CHECK(rm.max_age == "72h");
  CHECK(*ParseMaxAge(rm.max_age) == absl::Hours(72));
  CHECK(w.stages[2].release_prerequisites == std::vector<std::string>{"release-manager"});
  CHECK(Validate(w, SpaceSchema()).ok());
}

TEST_CASE("every attestation field parses") {
  Workflow w = MustParse(R"(
Stages: [{Name: dev, WhereSpace: "Labels.Stage = 'dev'", Prerequisites: [sec]}]
AttestationPrerequisites:
  - Name: sec
    Type: SecurityReview
    Count: 2
    FromGroups: [security, platform]
    DistinctGroups: true
    AllowAuthors: true
    IgnoreFail: true
    Description: reviewed by two teams
)");
  const AttestationPrerequisite& a = w.attestation_prerequisites.at(0);
  CHECK(a.type == "SecurityReview");
  CHECK(a.from_groups == std::vector<std::string>{"security", "platform"});
  CHECK(a.distinct_groups);
  CHECK(a.allow_authors);
  CHECK(a.ignore_fail);
  CHECK(a.description == "reviewed by two teams");
  CHECK(Validate(w, SpaceSchema()).ok());
}

TEST_CASE("JSON is canonical and round-trips") {
  Workflow w = MustParse(kApprovals);
  w.custom_prerequisites.push_back({"quiet", "cel:now > timestamp('2026-01-01T00:00:00Z')", ""});
  std::string json = ToJson(w);
  CHECK(ToJson(w) == json);
  CHECK(MustParse(json) == w);
  CHECK(MustParse(ToJson(w, /*pretty=*/true)) == w);
  CHECK(MustParse(config::EmitYaml({ToNode(w)})) == w);
  // Key order of the input does not matter; the output order is fixed.
  Workflow reordered = MustParse(
      R"({"Final": {"Prerequisites": []}, "Stages": [{"WhereSpace": "Slug = 'a'", "Name": "a"}]})");
  CHECK(ToJson(reordered) ==
        R"({"Stages":[{"Name":"a","WhereSpace":"Slug = 'a'","Prerequisites":[],)"
        R"("ReleasePrerequisites":[],"Mode":"Manual","AutoRelease":false,"SoakTime":""}],)"
        R"("Final":{"Prerequisites":[]},"CustomPrerequisites":[],)"
        R"("AttestationPrerequisites":[]})");
}

TEST_CASE("canonical JSON writes every attestation field, defaults included") {
  Workflow w;
  w.stages.push_back({"dev", "Slug = 'dev'", {}, {}});
  AttestationPrerequisite a;
  a.name = "ok";
  w.attestation_prerequisites.push_back(a);
  CHECK(ToJson(w) ==
        R"({"Stages":[{"Name":"dev","WhereSpace":"Slug = 'dev'","Prerequisites":[],)"
        R"("ReleasePrerequisites":[],"Mode":"Manual","AutoRelease":false,"SoakTime":""}],)"
        R"("Final":{"Prerequisites":[]},"CustomPrerequisites":[],)"
        R"("AttestationPrerequisites":[{"Name":"ok","Type":"Approval","Count":1,)"
        R"("FromUserIDs":[],"FromGroups":[],"DistinctGroups":false,"MaxAge":"",)"
        R"("AllowAuthors":false,"IgnoreFail":false,"Description":""}]})");
}

TEST_CASE("a Stage's Mode and AutoRelease: Manual and off unless given, round-tripped") {
  Workflow w = MustParse(R"(
Stages:
  - Name: dev
    WhereSpace: "Slug = 'dev'"
    Mode: Automatic
    AutoRelease: true
  - Name: prod
    WhereSpace: "Slug = 'prod'"
)");
  CHECK(w.stages[0].mode == StageMode::kAutomatic);
  CHECK(w.stages[0].auto_release);
  CHECK(w.stages[1].mode == StageMode::kManual);
  CHECK_FALSE(w.stages[1].auto_release);
  CHECK(MustParse(ToJson(w)) == w);
  Workflow manual = w;
  manual.stages[0].mode = StageMode::kManual;
  CHECK_FALSE(manual == w);

  CHECK(ParseError(R"(
Stages:
  - Name: dev
    WhereSpace: "Slug = 'dev'"
    Mode: automatic
)") == "Stages[0].Mode: 'automatic' is not a mode: use Manual or Automatic");
  CHECK(ParseError(R"(
Stages:
  - Name: dev
    WhereSpace: "Slug = 'dev'"
    AutoRelease: yes please
)")
            .rfind("Stages[0].AutoRelease: must be true or false, got ", 0) == 0);
}

TEST_CASE("parse refuses unknown fields by path") {
  CHECK(ParseError(R"(
Stages:
  - Name: dev
    WhereSpace: "Slug = 'dev'"
  - Name: prod
    WhereSpace: "Slug = 'prod'"
    Prerequisite: [Released]
)") == "Stages[1].Prerequisite: unknown field; did you mean Prerequisites?");
  CHECK(ParseError("Stage: []") == "Stage: unknown field; did you mean Stages?");
  CHECK(ParseError("Stages: []\nFinal: {prerequisites: []}") ==
        "Final.prerequisites: unknown field; did you mean Prerequisites?");
  CHECK(ParseError("AttestationPrerequisites: [{Name: a, Cuont: 2}]") ==
        "AttestationPrerequisites[0].Cuont: unknown field; did you mean Count?");
  CHECK(ParseError("Stages: []\nOwner: me") ==
        "Owner: unknown field (fields: Stages, Final, CustomPrerequisites, "
        "AttestationPrerequisites)");
  CHECK(ParseError("CustomPrerequisites: [{Name: a, Expr: 'cel:true'}]") ==
        "CustomPrerequisites[0].Expr: unknown field (fields: Name, Expression, Description)");
}

TEST_CASE("parse accepts skipped entity fields when asked") {
  ParseOptions options;
  options.skip_fields = {"Slug", "SpaceID"};
  absl::StatusOr<Workflow> w =
      ParseWorkflow(R"({"Slug": "acme", "SpaceID": "x", "Stages": []})", options);
  CHECK(w.ok());
  CHECK_FALSE(ParseWorkflow(R"({"Slug": "acme", "Stages": []})").ok());
}

TEST_CASE("parse refuses wrong types by path") {
  CHECK(ParseError("Stages: {Name: dev}") == "Stages: must be a list, got mapping");
  CHECK(ParseError("Stages: [dev]") == "Stages[0]: must be a mapping, got string");
  CHECK(ParseError("Stages: [{Name: 2024}]") == "Stages[0].Name: must be a string, got int");
  CHECK(ParseError("Stages: [{Name: a, Prerequisites: Released}]") ==
        "Stages[0].Prerequisites: must be a list, got string");
  CHECK(ParseError("Stages: [{Name: a, Prerequisites: [Released, 3]}]") ==
        "Stages[0].Prerequisites[1]: must be a string, got int");
  CHECK(ParseError("Final: [Released]") == "Final: must be a mapping, got sequence");
  CHECK(ParseError("AttestationPrerequisites: [{Name: a, Count: two}]") ==
        "AttestationPrerequisites[0].Count: must be an integer, got string");
  CHECK(ParseError("AttestationPrerequisites: [{Name: a, Count: 2.5}]") ==
        "AttestationPrerequisites[0].Count: must be an integer, got float");
  CHECK(ParseError("AttestationPrerequisites: [{Name: a, Count: 3000000000}]") ==
        "AttestationPrerequisites[0].Count: 3000000000 is out of range");
  CHECK(ParseError("AttestationPrerequisites: [{Name: a, DistinctGroups: 'yes'}]") ==
        "AttestationPrerequisites[0].DistinctGroups: must be true or false, got string");
  CHECK(ParseError("[1, 2]") ==
        "workflow must be a mapping of Stages, Final, CustomPrerequisites and "
        "AttestationPrerequisites, got sequence");
}

TEST_CASE("parse refuses empty, multi-document and malformed text") {
  CHECK(ParseError("") == "workflow is empty");
  CHECK(ParseError("# nothing\n") == "workflow is empty");
  CHECK(ParseError("null") == "workflow is empty");
  CHECK(ParseError("Stages: []\n---\nStages: []\n") == "workflow must be one document, got 2");
  CHECK(ParseError("Stages: [").rfind("yaml: line ", 0) == 0);
}

TEST_CASE("null fields take their defaults") {
  Workflow w = MustParse(
      "Stages:\n  - Name: dev\n    WhereSpace: \"Slug = 'x'\"\n"
      "    Prerequisites:\nFinal:\nAttestationPrerequisites:\n"
      "  - Name: a\n    Count: ~\n");
  CHECK(w.stages.at(0).prerequisites.empty());
  CHECK(w.attestation_prerequisites.at(0).count == 1);
  CHECK(w.attestation_prerequisites.at(0).type == "Approval");
}

TEST_CASE("validate: stages") {
  SECTION("at least one") {
    Workflow w = Simple();
    w.stages.clear();
    w.final.prerequisites.clear();
    CHECK(ProblemsOf(w) == std::vector<std::string>{"Stages: a workflow needs at least one stage"});
  }
  SECTION("duplicate names, ignoring case") {
    Workflow w = Simple();
    w.stages[2].name = "Staging";
    CHECK(HasProblem(w,
                     "Stages[2]: duplicate stage name 'Staging' (Stages[1] is 'staging'; stage "
                     "names must differ, ignoring case)"));
  }
  SECTION("empty and invalid names") {
    Workflow w = Simple();
    w.stages[0].name = "";
    w.stages[1].name = "pre prod";
    CHECK(HasProblem(w, "Stages[0]: stage name is empty"));
    CHECK(HasProblem(w,
                     "Stages[1]: stage name 'pre prod' is not valid: use 1-128 letters, digits, "
                     "'-', '_' or '.', starting with a letter or digit"));
  }
  SECTION("Completed is reserved") {
    Workflow w = Simple();
    w.stages[2].name = "Completed";
    CHECK(HasProblem(w,
                     "Stages[2]: stage name 'Completed' is reserved: a ChangeOrder's Stage reads "
                     "Completed once its rollout is done"));
  }
  SECTION("WhereSpace must compile, with the where error's position") {
    Workflow w = Simple();
    w.stages[2].where_space = "Lables.Stage = 'Production'";
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{"stage 'prod': WhereSpace: where: unknown field 'Lables' at 1"});
    w.stages[2].where_space = "Labels.Stage = 'Production' AND";
    CHECK(ProblemsOf(w).at(0).rfind("stage 'prod': WhereSpace: where: ", 0) == 0);
  }
  SECTION("WhereSpace is required") {
    Workflow w = Simple();
    w.stages[0].where_space = "  ";
    CHECK(HasProblem(w,
                     "stage 'dev': WhereSpace is required: a where expression over Spaces, such "
                     "as Labels.Stage = 'dev'"));
  }
}

TEST_CASE("validate: prerequisite names") {
  SECTION("neither built in nor declared") {
    Workflow w = Simple();
    w.stages[2].prerequisites = {"Released", "not-frozn", "Heathy", "fast"};
    CHECK(
        ProblemsOf(w) ==
        std::vector<std::string>{
            "stage 'prod': Prerequisites: unknown prerequisite 'not-frozn'; did you mean "
            "not-frozen?",
            "stage 'prod': Prerequisites: unknown prerequisite 'Heathy'; did you mean Healthy?",
            "stage 'prod': Prerequisites: unknown prerequisite 'fast' (the built-in ones are "
            "Validated, Released, Healthy and Soaked; declare others under CustomPrerequisites or "
            "AttestationPrerequisites)",
        });
  }
  SECTION("case matters") {
    Workflow w = Simple();
    w.final.prerequisites = {"released"};
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "Final.Prerequisites: unknown prerequisite 'released'; did you mean Released?"});
  }
  SECTION("listed twice or empty") {
    Workflow w = Simple();
    w.stages[1].prerequisites = {"Released", "", "Released"};
    CHECK(HasProblem(w, "stage 'staging': Prerequisites[1]: empty prerequisite name"));
    CHECK(HasProblem(w, "stage 'staging': Prerequisites: 'Released' is listed twice"));
  }
  SECTION("release prerequisites name attestation prerequisites only") {
    Workflow w = MustParse(kApprovals);
    w.stages[2].release_prerequisites = {"Released", "release-manager", "two-aprovers", "x"};
    w.custom_prerequisites.push_back({"not-frozen", "cel:true", ""});
    w.stages[1].release_prerequisites = {"not-frozen"};
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "stage 'staging': ReleasePrerequisites: 'not-frozen' is not an attestation "
              "prerequisite; release prerequisites may name only AttestationPrerequisites",
              "stage 'prod': ReleasePrerequisites: 'Released' is not an attestation "
              "prerequisite; release prerequisites may name only AttestationPrerequisites",
              "stage 'prod': ReleasePrerequisites: unknown attestation prerequisite "
              "'two-aprovers'; did you mean two-approvers?",
              "stage 'prod': ReleasePrerequisites: unknown attestation prerequisite 'x' "
              "(declare it under AttestationPrerequisites)",
          });
  }
}

TEST_CASE("validate: declarations") {
  SECTION("duplicate names across both kinds") {
    Workflow w = Simple();
    AttestationPrerequisite a;
    a.name = "Not-Frozen";
    w.attestation_prerequisites.push_back(a);
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{"AttestationPrerequisites[0]: duplicate prerequisite name "
                                   "'Not-Frozen' (CustomPrerequisites[0] is 'not-frozen'; names "
                                   "must differ, ignoring case)"});
  }
  SECTION("a declared name may not shadow a built-in") {
    Workflow w = Simple();
    w.custom_prerequisites.push_back({"healthy", "cel:true", ""});
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{"CustomPrerequisites[1]: 'healthy' shadows the built-in "
                                   "prerequisite Healthy; choose another name"});
  }
  SECTION("invalid declaration names") {
    Workflow w = Simple();
    w.custom_prerequisites.push_back({"no freeze", "cel:true", ""});
    CHECK(HasProblem(w,
                     "CustomPrerequisites[1]: prerequisite name 'no freeze' is not valid: use "
                     "1-128 letters, digits, '-', '_' or '.', starting with a letter or digit"));
  }
  SECTION("custom expressions need cel: and must compile as a bool gate") {
    Workflow w = Simple();
    w.custom_prerequisites[0].expression = "!('code-freeze' in Space.Annotations)";
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "CustomPrerequisites 'not-frozen': Expression must start with cel:"});
    w.custom_prerequisites[0].expression = "cel:!('code-freeze' in Spce.Annotations)";
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "CustomPrerequisites 'not-frozen': cel: 1:20: undeclared reference to 'Spce'"});
    w.custom_prerequisites[0].expression = "cel:Space.Labels[";
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "CustomPrerequisites 'not-frozen': cel: 1:14: syntax error: unexpected end of "
              "expression"});
    w.custom_prerequisites[0].expression = "cel:size(Space.Labels)";
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "CustomPrerequisites 'not-frozen': cel: gate expression must be bool, got int"});
    w.custom_prerequisites[0].expression = "cel: ";
    CHECK(ProblemsOf(w) == std::vector<std::string>{
                               "CustomPrerequisites 'not-frozen': Expression is empty after cel:"});
  }
  SECTION("attestation fields") {
    Workflow w = MustParse(kApprovals);
    AttestationPrerequisite& a = w.attestation_prerequisites[0];
    a.count = 0;
    a.max_age = "3d";
    a.type = "";
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "AttestationPrerequisites 'two-approvers': Type: attestation type name is empty",
              "AttestationPrerequisites 'two-approvers': Count must be at least 1, got 0",
              "AttestationPrerequisites 'two-approvers': MaxAge '3d' is not a duration: use a "
              "number with a unit h, m or s, such as 72h",
          });
    a = AttestationPrerequisite{};
    a.name = "two-approvers";
    a.max_age = "-1h";
    CHECK(HasProblem(w,
                     "AttestationPrerequisites 'two-approvers': MaxAge '-1h' must be a positive, "
                     "finite duration, such as 72h"));
  }
  SECTION("DistinctGroups needs FromGroups, and enough of them") {
    Workflow w = MustParse(kApprovals);
    AttestationPrerequisite& a = w.attestation_prerequisites[0];
    a.distinct_groups = true;
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{"AttestationPrerequisites 'two-approvers': DistinctGroups needs "
                                   "FromGroups: name the groups the attesters must come from"});
    a.from_groups = {"sre"};
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{"AttestationPrerequisites 'two-approvers': Count 2 can never be "
                                   "met from distinct groups: FromGroups lists 1"});
    a.from_groups = {"sre", "security"};
    CHECK(ProblemsOf(w).empty());
  }
  SECTION("user IDs and groups") {
    Workflow w = MustParse(kApprovals);
    AttestationPrerequisite& a = w.attestation_prerequisites[1];
    a.from_user_ids.push_back("alice");
    a.from_user_ids.push_back("9B2C0F3E-5D7A-4A61-8F0E-2B6D1C4E7A90");
    a.from_groups = {"ops team"};
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{
              "AttestationPrerequisites 'release-manager': FromUserIDs[2]: 'alice' is not a "
              "user ID (a UUID)",
              "AttestationPrerequisites 'release-manager': FromUserIDs[3]: "
              "'9B2C0F3E-5D7A-4A61-8F0E-2B6D1C4E7A90' is listed twice",
              "AttestationPrerequisites 'release-manager': FromGroups[0]: group name 'ops team' "
              "is not valid: use 1-256 letters, digits, '-', '_', '.', ':', '/', '@' or '+', "
              "starting with a letter, digit, '/' or '@'",
          });
  }
  SECTION("Count beyond the listed users") {
    Workflow w = MustParse(kApprovals);
    w.attestation_prerequisites[1].count = 3;
    CHECK(ProblemsOf(w) ==
          std::vector<std::string>{"AttestationPrerequisites 'release-manager': Count 3 can never "
                                   "be met: FromUserIDs lists 2 user(s)"});
  }
}

TEST_CASE("Validate reports every problem, joined") {
  Workflow w = Simple();
  w.stages[0].where_space = "Lables.Stage = 'Development'";
  w.final.prerequisites = {"Helthy"};
  absl::Status s = Validate(w, SpaceSchema());
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message() ==
        "stage 'dev': WhereSpace: where: unknown field 'Lables' at 1; Final.Prerequisites: "
        "unknown prerequisite 'Helthy'; did you mean Healthy?");
}

TEST_CASE("Invoke and fan-out update types refuse a gated first stage") {
  Workflow w = Simple();
  for (const char* type : {"UpgradeUnit", "MergeUnits", "Invoke", "TransformPaths"}) {
    CHECK(ValidateForUpdateType(w, type).ok());
  }
  w.stages[0].prerequisites = {"Validated", "two-approvers"};
  CHECK(ValidateForUpdateType(w, "UpgradeUnit").ok());
  CHECK(ValidateForUpdateType(w, "MergeUnits").ok());
  for (const char* type : {"Invoke", "TransformPaths", "Insert", "Upsert"}) {
    absl::Status s = ValidateForUpdateType(w, type);
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message() == std::string("update type ") + type +
                             " cannot use a workflow whose first stage 'dev' has prerequisites "
                             "(Validated, two-approvers): its change is in no Space before it is "
                             "promoted into one");
  }
}

// --- flags ----------------------------------------------------------------------------------

WorkflowFlags AcmeSimpleFlags() {
  WorkflowFlags f;
  f.stages = {"Development", "Staging", "Production"};
  f.prerequisites = "Released,Healthy";
  return f;
}

Workflow MustApply(const Workflow& w, const WorkflowFlags& f) {
  absl::StatusOr<Workflow> out = ApplyFlags(w, f);
  INFO(out.status().ToString());
  REQUIRE(out.ok());
  return *out;
}

std::string ApplyError(const Workflow& w, const WorkflowFlags& f) {
  absl::StatusOr<Workflow> out = ApplyFlags(w, f);
  REQUIRE_FALSE(out.ok());
  CHECK(out.status().code() == absl::StatusCode::kInvalidArgument);
  return std::string(out.status().message());
}

TEST_CASE("flags: create acme-simple as the spec does") {
  absl::StatusOr<Workflow> w = FromFlags(AcmeSimpleFlags());
  REQUIRE(w.ok());
  Workflow want = MustParse(R"(
Stages:
  - Name: Development
    WhereSpace: "Labels.Stage = 'Development'"
  - Name: Staging
    WhereSpace: "Labels.Stage = 'Staging'"
    Prerequisites: [Released, Healthy]
  - Name: Production
    WhereSpace: "Labels.Stage = 'Production'"
    Prerequisites: [Released, Healthy]
Final:
  Prerequisites: [Released, Healthy]
)");
  CHECK(*w == want);
  CHECK(Validate(*w, SpaceSchema()).ok());
  CHECK(FromFlags(WorkflowFlags()).status().message() ==
        "--stage is required: name each stage, in order (or give the whole workflow with "
        "--filename)");
  CHECK(WorkflowFlags().empty());
  CHECK_FALSE(AcmeSimpleFlags().empty());
}

TEST_CASE("flags: update one stage as the spec does") {
  Workflow before = *FromFlags(AcmeSimpleFlags());
  WorkflowFlags f;
  f.stage_where_space = {"Production=Labels.Stage = 'Production' AND Labels.Region = 'us-east1'"};
  f.stage_prerequisites = {"Production=Released;Healthy;two-approvers"};
  f.attestation_prerequisites = {"two-approvers"};
  f.attestation_prerequisite_counts = {"two-approvers=2"};
  Workflow after = MustApply(before, f);

  REQUIRE(after.stages.size() == 3);
  CHECK(after.stages[0] == before.stages[0]);
  CHECK(after.stages[1] == before.stages[1]);
  CHECK(after.stages[2].where_space ==
        "Labels.Stage = 'Production' AND Labels.Region = 'us-east1'");
  CHECK(after.stages[2].prerequisites ==
        std::vector<std::string>{"Released", "Healthy", "two-approvers"});
  REQUIRE(after.attestation_prerequisites.size() == 1);
  CHECK(after.attestation_prerequisites[0].name == "two-approvers");
  CHECK(after.attestation_prerequisites[0].count == 2);
  CHECK(after.attestation_prerequisites[0].type == "Approval");
  CHECK(after.final == before.final);
  CHECK(Validate(after, SpaceSchema()).ok());

  // Declaring it again leaves its fields alone.
  WorkflowFlags again;
  again.attestation_prerequisites = {"two-approvers"};
  CHECK(MustApply(after, again) == after);
}

TEST_CASE("flags: --stage on update sets the stages, in order") {
  Workflow before = *FromFlags(AcmeSimpleFlags());
  before.stages[2].where_space = "Labels.Stage = 'Production' AND Labels.Region = 'us-east1'";
  SECTION("a stage not named is removed; a named one keeps its fields") {
    WorkflowFlags f;
    f.stages = {"Development", "Production"};
    Workflow after = MustApply(before, f);
    REQUIRE(after.stages.size() == 2);
    CHECK(after.stages[0] == before.stages[0]);
    CHECK(after.stages[1] == before.stages[2]);
    CHECK(after.final == before.final);
  }
  SECTION("new stages select their label; order follows the flags") {
    WorkflowFlags f;
    f.stages = {"Development", "Canary", "Production", "Staging"};
    Workflow after = MustApply(before, f);
    REQUIRE(after.stages.size() == 4);
    CHECK(after.stages[1] == Stage{"Canary", "Labels.Stage = 'Canary'", {}, {}});
    CHECK(after.stages[2] == before.stages[2]);
    CHECK(after.stages[3] == before.stages[1]);
  }
  SECTION("no --stage leaves the stages alone") {
    WorkflowFlags f;
    f.final_prerequisites = "Released";
    Workflow after = MustApply(before, f);
    CHECK(after.stages == before.stages);
    CHECK(after.final.prerequisites == std::vector<std::string>{"Released"});
  }
  SECTION("--prerequisites applies after the first stage; per-stage flags win") {
    WorkflowFlags f;
    f.prerequisites = "Validated";
    f.stage_prerequisites = {"Staging="};
    f.final_prerequisites = "Healthy";
    Workflow after = MustApply(before, f);
    CHECK(after.stages[0].prerequisites.empty());
    CHECK(after.stages[1].prerequisites.empty());
    CHECK(after.stages[2].prerequisites == std::vector<std::string>{"Validated"});
    CHECK(after.final.prerequisites == std::vector<std::string>{"Healthy"});
  }
}

TEST_CASE("flags: declarations and their fields") {
  Workflow before = *FromFlags(AcmeSimpleFlags());
  WorkflowFlags f;
  f.custom_prerequisites = {
      "not-frozen=cel:!('code-freeze' in Space.Annotations) || "
      "Space.Annotations['code-freeze'] != 'true'"};
  f.custom_prerequisite_descriptions = {"not-frozen=the space is not under a code freeze"};
  f.attestation_prerequisites = {"release-manager"};
  f.attestation_prerequisite_types = {"release-manager=ReleaseSignOff"};
  f.attestation_prerequisite_from_user_ids = {
      "release-manager=9b2c0f3e-5d7a-4a61-8f0e-2b6d1c4e7a90, "
      "4f0d2a71-2c8e-4b1e-9a57-6e3c8d9b1f02"};
  f.attestation_prerequisite_from_groups = {"release-manager=release;sre"};
  f.attestation_prerequisite_distinct_groups = {"release-manager"};
  f.attestation_prerequisite_max_ages = {"release-manager=72h"};
  f.attestation_prerequisite_allow_authors = {"release-manager=true"};
  f.attestation_prerequisite_ignore_fail = {"release-manager=false"};
  f.attestation_prerequisite_descriptions = {"release-manager=a release manager signs off"};
  f.stage_prerequisites = {"Production=Released,Healthy,not-frozen"};
  f.stage_release_prerequisites = {"Production=release-manager"};
  Workflow after = MustApply(before, f);
  CHECK(Validate(after, SpaceSchema()).ok());
  REQUIRE(after.custom_prerequisites.size() == 1);
  CHECK(after.custom_prerequisites[0].description == "the space is not under a code freeze");
  const AttestationPrerequisite& a = after.attestation_prerequisites.at(0);
  CHECK(a.type == "ReleaseSignOff");
  CHECK(a.from_user_ids.size() == 2);
  CHECK(a.from_groups == std::vector<std::string>{"release", "sre"});
  CHECK(a.distinct_groups);
  CHECK(a.max_age == "72h");
  CHECK(a.allow_authors);
  CHECK_FALSE(a.ignore_fail);
  CHECK(a.description == "a release manager signs off");
  CHECK(after.stages[2].release_prerequisites == std::vector<std::string>{"release-manager"});

  SECTION("--custom-prerequisite replaces an expression and keeps the description") {
    WorkflowFlags g;
    g.custom_prerequisites = {"not-frozen=cel:true"};
    Workflow again = MustApply(after, g);
    CHECK(again.custom_prerequisites[0].expression == "cel:true");
    CHECK(again.custom_prerequisites[0].description == "the space is not under a code freeze");
  }
  SECTION("--delete-prerequisite removes a declaration") {
    WorkflowFlags g;
    g.delete_prerequisites = {"release-manager"};
    g.stage_release_prerequisites = {"Production="};
    Workflow again = MustApply(after, g);
    CHECK(again.attestation_prerequisites.empty());
    CHECK(again.stages[2].release_prerequisites.empty());
    CHECK(Validate(again, SpaceSchema()).ok());
  }
}

TEST_CASE("flags: bad values are refused naming the flag") {
  Workflow w = *FromFlags(AcmeSimpleFlags());
  auto error = [&](void (*set)(WorkflowFlags*)) {
    WorkflowFlags f;
    set(&f);
    return ApplyError(w, f);
  };
  CHECK(error([](WorkflowFlags* f) {
          f->stages = {"Dev", "dev"};
        }) == "--stage 'dev': stage 'Dev' is given twice");
  CHECK(error([](WorkflowFlags* f) { f->stages = {"pre prod"}; }) ==
        "--stage 'pre prod': stage name 'pre prod' is not valid: use 1-128 letters, digits, "
        "'-', '_' or '.', starting with a letter or digit");
  CHECK(error([](WorkflowFlags* f) { f->stages = {"Prod=x"}; }) ==
        "--stage 'Prod=x': give the stage's name alone; set what it selects with "
        "--stage-where-space STAGE=EXPR");
  CHECK(error([](WorkflowFlags* f) { f->stage_prerequisites = {"Prod=Released"}; }) ==
        "--stage-prerequisites 'Prod=Released': no stage 'Prod' (stages: Development, Staging, "
        "Production)");
  CHECK(error([](WorkflowFlags* f) { f->stage_where_space = {"Production"}; }) ==
        "--stage-where-space 'Production': give it as STAGE=VALUE");
  CHECK(error([](WorkflowFlags* f) { f->stage_where_space = {"Production= "}; }) ==
        "--stage-where-space 'Production= ': the where expression is empty");
  CHECK(error([](WorkflowFlags* f) {
          f->stage_where_space = {"Staging=Slug = 'a'", "Staging=Slug = 'b'"};
        }) == "--stage-where-space 'Staging=Slug = 'b'': 'Staging' is given twice");
  CHECK(error([](WorkflowFlags* f) { f->prerequisites = "Released,not frozen"; }) ==
        "--prerequisites 'Released,not frozen': prerequisite name 'not frozen' is not valid: use "
        "1-128 letters, digits, '-', '_' or '.', starting with a letter or digit");
  CHECK(error([](WorkflowFlags* f) { f->attestation_prerequisite_counts = {"two-approvers=2"}; }) ==
        "--attestation-prerequisite-count 'two-approvers=2': no attestation prerequisite "
        "'two-approvers'; declare it with --attestation-prerequisite two-approvers");
  CHECK(error([](WorkflowFlags* f) {
          f->attestation_prerequisites = {"two-approvers"};
          f->attestation_prerequisite_counts = {"two-approvers=two"};
        }) ==
        "--attestation-prerequisite-count 'two-approvers=two': the count must be a whole "
        "number of at least 1");
  CHECK(error([](WorkflowFlags* f) {
          f->attestation_prerequisites = {"two-approvers"};
          f->attestation_prerequisite_counts = {"two-approvers=0"};
        }) ==
        "--attestation-prerequisite-count 'two-approvers=0': the count must be a whole "
        "number of at least 1");
  CHECK(error([](WorkflowFlags* f) {
          f->attestation_prerequisites = {"a"};
          f->attestation_prerequisite_max_ages = {"a=3d"};
        }) ==
        "--attestation-prerequisite-max-age 'a=3d': MaxAge '3d' is not a duration: use a "
        "number with a unit h, m or s, such as 72h");
  CHECK(error([](WorkflowFlags* f) {
          f->attestation_prerequisites = {"a"};
          f->attestation_prerequisite_distinct_groups = {"a=yes"};
        }) ==
        "--attestation-prerequisite-distinct-groups 'a=yes': the value must be true or "
        "false");
  CHECK(error([](WorkflowFlags* f) {
          f->attestation_prerequisites = {"a"};
          f->attestation_prerequisite_from_user_ids = {"a=alice"};
        }) ==
        "--attestation-prerequisite-from-user-ids 'a=alice': 'alice' is not a user ID (a "
        "UUID)");
  CHECK(error([](WorkflowFlags* f) {
          f->attestation_prerequisites = {"a"};
          f->attestation_prerequisite_from_groups = {"a=ops team"};
        }) ==
        "--attestation-prerequisite-from-groups 'a=ops team': group name 'ops team' is not "
        "valid: use 1-256 letters, digits, '-', '_', '.', ':', '/', '@' or '+', starting with a "
        "letter, digit, '/' or '@'");
  CHECK(error([](WorkflowFlags* f) { f->attestation_prerequisites = {"a=2"}; }) ==
        "--attestation-prerequisite 'a=2': give the name alone; set its fields with "
        "--attestation-prerequisite-count NAME=N and the other --attestation-prerequisite-* "
        "flags");
  CHECK(error([](WorkflowFlags* f) { f->attestation_prerequisites = {"Healthy"}; }) ==
        "--attestation-prerequisite 'Healthy': 'Healthy' is a built-in prerequisite");
  CHECK(error([](WorkflowFlags* f) { f->custom_prerequisites = {"x=true"}; }) ==
        "--custom-prerequisite 'x=true': the expression must start with cel:, as NAME=cel:EXPR");
  CHECK(error([](WorkflowFlags* f) {
          f->custom_prerequisites = {"x=cel:true"};
          f->attestation_prerequisites = {"x"};
        }) == "--attestation-prerequisite 'x': 'x' is declared as a custom prerequisite");
  CHECK(error([](WorkflowFlags* f) { f->custom_prerequisite_descriptions = {"x=about x"}; }) ==
        "--custom-prerequisite-description 'x=about x': no custom prerequisite 'x'; declare it "
        "with --custom-prerequisite x=cel:EXPR");
  CHECK(error([](WorkflowFlags* f) { f->delete_prerequisites = {"nope"}; }) ==
        "--delete-prerequisite 'nope': no declared prerequisite 'nope'");
  CHECK(error([](WorkflowFlags* f) { f->delete_prerequisites = {"Released"}; }) ==
        "--delete-prerequisite 'Released': built-in prerequisites are not declared, so cannot be "
        "deleted");
}

TEST_CASE("flags: a gated first stage is refused for Invoke") {
  WorkflowFlags f = AcmeSimpleFlags();
  f.stage_prerequisites = {"Development=Validated"};
  Workflow w = *FromFlags(f);
  CHECK(Validate(w, SpaceSchema()).ok());
  CHECK(ValidateForUpdateType(w, "UpgradeUnit").ok());
  CHECK(ValidateForUpdateType(w, "Invoke").message() ==
        "update type Invoke cannot use a workflow whose first stage 'Development' has "
        "prerequisites (Validated): its change is in no Space before it is promoted into one");
  CHECK(ValidateForUpdateType(*FromFlags(AcmeSimpleFlags()), "Invoke").ok());
}

// --- custom gates ---------------------------------------------------------------------------

const CompiledCustom& NotFrozen() {
  static const auto* compiled =
      new std::map<std::string, CompiledCustom>(*CompileCustomPrerequisites(Simple()));
  return compiled->at("not-frozen");
}

absl::Time At(const char* rfc3339) {
  absl::Time t;
  std::string error;
  INFO(error);
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &error));
  return t;
}

constexpr char kChangeOrder[] = R"({"Slug": "release-v452", "Stage": "staging"})";

TEST_CASE("custom gate: code-freeze annotation") {
  absl::Time now = absl::FromUnixSeconds(1700000000);
  CHECK(*EvaluateCustom(NotFrozen(), R"({"Slug": "prod-use1", "Annotations": {}})", kChangeOrder,
                        "", now));
  CHECK(*EvaluateCustom(NotFrozen(), R"({"Annotations": {"code-freeze": "false"}})", kChangeOrder,
                        "", now));
  CHECK_FALSE(*EvaluateCustom(NotFrozen(), R"({"Annotations": {"code-freeze": "true"}})",
                              kChangeOrder, "", now));
  CHECK(NotSatisfiedMessage(NotFrozen()) ==
        "requires not-frozen: the space is not under a code freeze (expression evaluated to "
        "false)");
}

TEST_CASE("custom gate: evaluation errors read as refusals") {
  absl::Time now = absl::FromUnixSeconds(1700000000);
  // The gate reads Space.Annotations, which this Space lacks.
  absl::StatusOr<bool> r = EvaluateCustom(NotFrozen(), R"({"Slug": "x"})", kChangeOrder, "", now);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
  CHECK(std::string(r.status().message())
            .rfind("requires not-frozen: the space is not under a code freeze (cel: evaluated to "
                   "error: ",
                   0) == 0);

  Workflow w = Simple();
  w.custom_prerequisites[0] = {"frozen-flag", "cel:Space.Annotations['code-freeze'] != 'true'", ""};
  const CompiledCustom gate = CompileCustomPrerequisites(w)->at("frozen-flag");
  r = EvaluateCustom(gate, R"({"Annotations": {}})", kChangeOrder, "", now);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() ==
        "requires frozen-flag (cel: evaluated to error: 1:18: no such key: 'code-freeze')");
  CHECK(NotSatisfiedMessage(gate) == "requires frozen-flag (expression evaluated to false)");

  // A result that is not a bool at run time (Dyn at compile time).
  w.custom_prerequisites[0] = {"dyn", "cel:Space.Labels.Stage", ""};
  const CompiledCustom dyn = CompileCustomPrerequisites(w)->at("dyn");
  r = EvaluateCustom(dyn, R"({"Labels": {"Stage": "prod"}})", kChangeOrder, "", now);
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "requires dyn (cel: evaluated to string, want bool)");

  // Malformed input JSON names the input.
  r = EvaluateCustom(NotFrozen(), "{", kChangeOrder, "", now);
  REQUIRE_FALSE(r.ok());
  CHECK(std::string(r.status().message()).rfind("Space: ", 0) == 0);
}

TEST_CASE("custom gate: a freeze window using now, and the Release and ChangeOrder") {
  Workflow w = Simple();
  w.custom_prerequisites = {
      {"outside-holidays",
       "cel:now < timestamp('2026-12-24T00:00:00Z') || now > timestamp('2027-01-02T00:00:00Z')",
       "no rollouts over the holidays"},
      {"release-verified",
       "cel:Release != null && has(Release.Annotations) && "
       "Release.Annotations['verified'] == 'true' && ChangeOrder.Slug.startsWith('release-')",
       ""},
  };
  absl::StatusOr<std::map<std::string, CompiledCustom>> gates = CompileCustomPrerequisites(w);
  REQUIRE(gates.ok());
  const CompiledCustom& window = gates->at("outside-holidays");
  absl::StatusOr<GateInputs> before =
      MakeGateInputs("{}", kChangeOrder, "", At("2026-12-20T12:00:00Z"));
  REQUIRE(before.ok());
  CHECK(*EvaluateCustom(window, *before));
  CHECK_FALSE(*EvaluateCustom(window, "{}", kChangeOrder, "", At("2026-12-25T09:00:00Z")));
  absl::Time new_year = At("2027-01-03T00:00:00Z");
  CHECK(*EvaluateCustom(window, "{}", kChangeOrder, "", new_year));

  const CompiledCustom& verified = gates->at("release-verified");
  CHECK_FALSE(*EvaluateCustom(verified, "{}", kChangeOrder, "", new_year));  // no Release
  CHECK(*EvaluateCustom(verified, "{}", kChangeOrder,
                        R"({"ReleaseNum": 3, "Annotations": {"verified": "true"}})", new_year));
}

TEST_CASE("CompileCustomPrerequisites refuses a broken expression with its name") {
  Workflow w = Simple();
  w.custom_prerequisites[0].expression = "cel:!('code-freeze' in Spce.Annotations)";
  absl::StatusOr<std::map<std::string, CompiledCustom>> gates = CompileCustomPrerequisites(w);
  REQUIRE_FALSE(gates.ok());
  CHECK(gates.status().message() ==
        "CustomPrerequisites 'not-frozen': cel: 1:20: undeclared reference to 'Spce'");
}

TEST_CASE("flags: --stage-mode and --stage-auto-release") {
  Workflow w = *FromFlags(AcmeSimpleFlags());
  WorkflowFlags f;
  f.stage_mode = {"Development=Automatic"};
  f.stage_auto_release = {"Development=true"};
  Workflow after = MustApply(w, f);
  CHECK(after.stages[0].mode == StageMode::kAutomatic);
  CHECK(after.stages[0].auto_release);
  CHECK(after.stages[1].mode == StageMode::kManual);
  WorkflowFlags back;
  back.stage_mode = {"Development=Manual"};
  CHECK(MustApply(after, back).stages[0].mode == StageMode::kManual);
  CHECK(MustApply(after, back).stages[0].auto_release);  // untouched

  WorkflowFlags bad;
  bad.stage_mode = {"Development=Auto"};
  CHECK(ApplyError(w, bad) == "--stage-mode 'Development=Auto': the mode is Manual or Automatic");
  WorkflowFlags unknown;
  unknown.stage_auto_release = {"Dev=true"};
  CHECK(ApplyError(w, unknown).rfind("--stage-auto-release 'Dev=true': no stage 'Dev'", 0) == 0);
}

TEST_CASE("a Stage's SoakTime: read, written, round-tripped, and Soaked names it") {
  Workflow w = MustParse(R"(
Stages:
  - Name: dev
    WhereSpace: "Slug = 'dev'"
  - Name: prod
    WhereSpace: "Slug = 'prod'"
    Prerequisites: [Healthy, Soaked]
    SoakTime: 24h
)");
  CHECK(w.stages[0].soak_time.empty());
  CHECK(w.stages[1].soak_time == "24h");
  CHECK(IsBuiltinPrerequisite(kSoaked));
  CHECK(ProblemsOf(w).empty());
  CHECK(MustParse(ToJson(w)) == w);
  CHECK(ToJson(w).find(R"("Mode":"Manual","AutoRelease":false,"SoakTime":"24h"})") !=
        std::string::npos);
  Workflow shorter = w;
  shorter.stages[1].soak_time = "90m";
  CHECK_FALSE(shorter == w);
  CHECK(ParseError(R"(
Stages:
  - Name: dev
    WhereSpace: "Slug = 'dev'"
    SoakTime: [24h]
)")
            .rfind("Stages[0].SoakTime: ", 0) == 0);

  CHECK(*ParseSoakTime("24h") == absl::Hours(24));
  CHECK(*ParseSoakTime("1h30m") == absl::Minutes(90));
  CHECK(*ParseSoakTime("30s") == absl::Seconds(30));
  CHECK(*ParseSoakTime("") == absl::ZeroDuration());
  CHECK(ParseSoakTime("1d").status().message() ==
        "SoakTime '1d' is not a duration: use a number with a unit h, m or s, such as 24h");
  CHECK(ParseSoakTime("0s").status().message() ==
        "SoakTime '0s' must be a positive, finite duration, such as 24h");
  CHECK(ParseSoakTime("-5m").status().message() ==
        "SoakTime '-5m' must be a positive, finite duration, such as 24h");
  CHECK(ParseSoakTime("inf").status().message() ==
        "SoakTime 'inf' must be a positive, finite duration, such as 24h");
}

TEST_CASE("validate: Soaked and SoakTime go together, and never in Final") {
  Workflow w = Simple();
  w.stages[2].prerequisites.push_back("Soaked");
  CHECK(ProblemsOf(w) == std::vector<std::string>{
                             "stage 'prod': Prerequisites name Soaked but the stage has no "
                             "SoakTime: say how long the Release must have been Healthy, such as "
                             "SoakTime: 24h (--stage-soak-time prod=24h)"});
  w.stages[2].soak_time = "24h";
  CHECK(ProblemsOf(w).empty());
  w.stages[2].soak_time = "a day";
  CHECK(ProblemsOf(w) ==
        std::vector<std::string>{"stage 'prod': SoakTime 'a day' is not a duration: use a number "
                                 "with a unit h, m or s, such as 24h"});
  w.stages[2].soak_time = "24h";
  w.stages[1].soak_time = "1h";
  CHECK(ProblemsOf(w) ==
        std::vector<std::string>{"stage 'staging': SoakTime '1h' is set but Prerequisites do not "
                                 "name Soaked, so nothing waits for it: add Soaked to the stage's "
                                 "Prerequisites, or clear SoakTime (--stage-soak-time staging=)"});
  w.stages[1].soak_time.clear();
  w.final.prerequisites.push_back("Soaked");
  CHECK(ProblemsOf(w) == std::vector<std::string>{
                             "Final.Prerequisites: Soaked cannot be named here, as Final has no "
                             "SoakTime: name Healthy instead, or name Soaked in the "
                             "Prerequisites of a Stage that sets a SoakTime"});
  w.final.prerequisites.pop_back();
  // A release gate is an attestation gate only.
  w.stages[2].release_prerequisites = {"Soaked"};
  CHECK(HasProblem(w,
                   "stage 'prod': ReleasePrerequisites: 'Soaked' is not an attestation "
                   "prerequisite; release prerequisites may name only AttestationPrerequisites"));
  w.stages[2].release_prerequisites.clear();
  // A declaration may not take the built-in's name.
  w.custom_prerequisites.push_back({"soaked", "cel:true", ""});
  CHECK(HasProblem(w,
                   "CustomPrerequisites[1]: 'soaked' shadows the built-in prerequisite Soaked; "
                   "choose another name"));
}

TEST_CASE("flags: --stage-soak-time sets, replaces and clears a Stage's SoakTime") {
  WorkflowFlags f = AcmeSimpleFlags();
  f.stage_prerequisites = {"Production=Released;Healthy;Soaked"};
  f.stage_soak_time = {"Production=24h"};
  Workflow w = MustApply(Workflow(), f);
  CHECK(Validate(w, SpaceSchema()).ok());
  CHECK(w.stages[2].soak_time == "24h");
  CHECK(w.stages[1].soak_time.empty());
  WorkflowFlags g;
  CHECK(g.empty());
  g.stage_soak_time = {"Production=30s"};
  CHECK_FALSE(g.empty());
  Workflow shorter = MustApply(w, g);
  CHECK(shorter.stages[2].soak_time == "30s");
  CHECK(shorter.stages[2].prerequisites == w.stages[2].prerequisites);
  g.stage_soak_time = {"Production="};
  Workflow cleared = MustApply(w, g);
  CHECK(cleared.stages[2].soak_time.empty());
  CHECK(HasProblem(cleared,
                   "stage 'Production': Prerequisites name Soaked but the stage has no SoakTime: "
                   "say how long the Release must have been Healthy, such as SoakTime: 24h "
                   "(--stage-soak-time Production=24h)"));
  g.stage_soak_time = {"Production=1d"};
  CHECK(ApplyError(w, g) ==
        "--stage-soak-time 'Production=1d': SoakTime '1d' is not a duration: use a number with "
        "a unit h, m or s, such as 24h");
  g.stage_soak_time = {"Production=-1h"};
  CHECK(ApplyError(w, g) ==
        "--stage-soak-time 'Production=-1h': SoakTime '-1h' must be a positive, finite "
        "duration, such as 24h");
  g.stage_soak_time = {"Prod=1h"};
  CHECK(ApplyError(w, g) ==
        "--stage-soak-time 'Prod=1h': no stage 'Prod' (stages: Development, Staging, "
        "Production)");
  g.stage_soak_time = {"Production"};
  CHECK(ApplyError(w, g) == "--stage-soak-time 'Production': give it as STAGE=VALUE");
}

}  // namespace
}  // namespace cub::workflow

namespace cub::workflow {
namespace {

TEST_CASE("GatesOnAttestation finds an attestation named by any gate, as evaluation resolves it") {
  CHECK_FALSE(GatesOnAttestation(MustParse(kAcmeMainLine)));
  CHECK(GatesOnAttestation(MustParse(kApprovals)));

  Workflow w;
  w.stages.push_back(Stage{});
  w.stages[0].name = "prod";
  w.stages[0].where_space = "Labels.Stage = 'Production'";
  w.stages[0].prerequisites = {"Healthy"};
  AttestationPrerequisite a;
  a.name = "sign-off";
  w.attestation_prerequisites.push_back(a);
  CHECK_FALSE(GatesOnAttestation(w));  // declared, named by no gate

  w.final.prerequisites = {"sign-off"};
  CHECK(GatesOnAttestation(w));
  w.final.prerequisites.clear();
  w.stages[0].release_prerequisites = {"sign-off"};
  CHECK(GatesOnAttestation(w));
  w.stages[0].release_prerequisites.clear();
  w.stages[0].prerequisites = {"Healthy", "sign-off"};
  CHECK(GatesOnAttestation(w));

  // A custom prerequisite of the same name is looked up first: no approval is asked for.
  CustomPrerequisite c;
  c.name = "sign-off";
  c.expression = "cel:true";
  w.custom_prerequisites.push_back(c);
  CHECK_FALSE(GatesOnAttestation(w));
}

}  // namespace
}  // namespace cub::workflow
