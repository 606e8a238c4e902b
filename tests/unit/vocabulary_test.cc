// Unit tests for lib/domain/vocabulary: every value of every vocabulary round-trips through its
// name, and the names are exactly the API's spelling (the wire format: proto strings, JSON and
// database text), so renaming one is a test failure here before it is a client's.
#include "lib/domain/vocabulary.h"

#include <catch2/catch.hpp>
#include <set>
#include <string>
#include <vector>

namespace cub::domain {
namespace {

// Parse(Name(e)) == e for every value, the names are distinct and non-empty, and JoinNames
// lists them in kAll's order, which must be `expected`.
template <typename E, size_t N>
void CheckVocabulary(const E (&all)[N], std::optional<E> (*parse)(std::string_view),
                     std::string_view (*name)(E), const std::string& expected) {
  std::set<std::string_view> names;
  for (E e : all) {
    INFO(name(e));
    CHECK(!name(e).empty());
    CHECK(parse(name(e)) == e);
    names.insert(name(e));
  }
  CHECK(names.size() == N);
  CHECK(JoinNames(all, name) == expected);
  CHECK(parse("") == std::nullopt);
  CHECK(parse("Nope") == std::nullopt);
}

TEST_CASE("UpdateType round-trips and is spelled as in the API", "[vocabulary]") {
  CheckVocabulary(kAllUpdateTypes, ParseUpdateType, UpdateTypeName,
                  "UpgradeUnit, MergeUnits, Invoke, TransformPaths, Insert, Upsert");
  CHECK(ParseUpdateType("upgradeunit") == std::nullopt);
  CHECK(ParseUpdateType(" UpgradeUnit") == std::nullopt);
  std::vector<std::string_view> merging, copying;
  for (UpdateType t : kAllUpdateTypes) {
    if (MergesUpstream(t)) merging.push_back(UpdateTypeName(t));
    if (CopiesFromSources(t)) copying.push_back(UpdateTypeName(t));
  }
  CHECK(merging == std::vector<std::string_view>{"UpgradeUnit", "MergeUnits"});
  CHECK(copying == std::vector<std::string_view>{"TransformPaths", "Insert", "Upsert"});
}

TEST_CASE("PriorRevisions round-trips", "[vocabulary]") {
  CheckVocabulary(kAllPriorRevisions, ParsePriorRevisions, PriorRevisionsName,
                  "Include, Skip, Error, All");
  CHECK(ParsePriorRevisions("error") == std::nullopt);
}

TEST_CASE("promotion and demotion outcomes round-trip", "[vocabulary]") {
  CheckVocabulary(
      kAllPromotionActions, ParsePromotionAction, PromotionActionName,
      "Upgraded, Added, AlreadyHadChange, Unchanged, OutsideChange, Invoked, Resolved, Failed");
  CheckVocabulary(kAllPromotionStatuses, ParsePromotionStatus, PromotionStatusName,
                  "Promoted, AlreadyPromoted, Failed, WouldPromote");
  CheckVocabulary(kAllDemotionActions, ParseDemotionAction, DemotionActionName,
                  "Restored, AlreadyRestored, Unchanged");
  CheckVocabulary(kAllDemotionStatuses, ParseDemotionStatus, DemotionStatusName,
                  "Demoted, AlreadyDemoted, WouldDemote");
}

TEST_CASE("ChangeOrder and ChangeSet states round-trip", "[vocabulary]") {
  CheckVocabulary(kAllChangeOrderStates, ParseChangeOrderState, ChangeOrderStateName,
                  "New, InProgress, Resolved, Released, Aborted, Restored, RestoreReleased");
  CheckVocabulary(kAllChangeSetStates, ParseChangeSetState, ChangeSetStateName, "Open, Closed");
}

TEST_CASE("live status round-trips", "[vocabulary]") {
  CheckVocabulary(kAllSyncStatuses, ParseSyncStatus, SyncStatusName, "Synced, OutOfSync, Unknown");
  CheckVocabulary(kAllHealthStatuses, ParseHealthStatus, HealthStatusName,
                  "Healthy, Progressing, Degraded, Suspended, Missing, Unknown");
  CheckVocabulary(kAllOperationStatuses, ParseOperationStatus, OperationStatusName,
                  "Running, Succeeded, Failed");
}

TEST_CASE("Role round-trips in lower case", "[vocabulary]") {
  CheckVocabulary(kAllRoles, ParseRole, RoleName,
                  "viewer, editor, approver, admin, reporter, scanner");
  CHECK(ParseRole("Admin") == std::nullopt);
  CHECK(JoinNames(kAllRoles, RoleName, " | ") ==
        "viewer | editor | approver | admin | reporter | scanner");
}

}  // namespace
}  // namespace cub::domain
