// The domain's closed vocabularies as C++ types: the kinds of change, the modes and outcomes of
// promotion, the states of ChangeOrders and ChangeSets, the live status a Release reports and
// the roles on a Space.
//
// The API carries each of them as a string (proto fields, JSON, database text); that spelling
// lives here and nowhere else. A use case parses a request's text once, at its edge, and works
// with the enum from there on; it names a value only to write it back out. Each vocabulary has
// one ParseX (nullopt for any text that is not exactly one of the names: case matters, and the
// empty string is never a value, so "not given" stays the caller's to interpret), one XName,
// and kAllX, every value in the order the API documents them.
#ifndef CUB_LIB_DOMAIN_VOCABULARY_H_
#define CUB_LIB_DOMAIN_VOCABULARY_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cub::domain {

// How a Link, and a ChangeOrder, carries a change from one Space into another.
enum class UpdateType { kUpgradeUnit, kMergeUnits, kInvoke, kTransformPaths, kInsert, kUpsert };
inline constexpr UpdateType kAllUpdateTypes[] = {
    UpdateType::kUpgradeUnit,    UpdateType::kMergeUnits, UpdateType::kInvoke,
    UpdateType::kTransformPaths, UpdateType::kInsert,     UpdateType::kUpsert};
std::optional<UpdateType> ParseUpdateType(std::string_view text);
std::string_view UpdateTypeName(UpdateType t);
// UpgradeUnit and MergeUnits: the target merges the upstream Unit's revisions.
bool MergesUpstream(UpdateType t);
// TransformPaths, Insert and Upsert: each target copies values from the Spaces its Links
// lead to (the sources), resolved in the target itself.
bool CopiesFromSources(UpdateType t);

// What a promotion does with the upstream revisions between a Link's cursor and the change's
// start: merge them first (Include), leave them out (Skip), refuse the Unit (Error), or merge
// them and also clone upstream Units the change itself leaves alone (All).
enum class PriorRevisions { kInclude, kSkip, kError, kAll };
inline constexpr PriorRevisions kAllPriorRevisions[] = {
    PriorRevisions::kInclude, PriorRevisions::kSkip, PriorRevisions::kError, PriorRevisions::kAll};
std::optional<PriorRevisions> ParsePriorRevisions(std::string_view text);
std::string_view PriorRevisionsName(PriorRevisions p);

// What a promotion did to one Unit of a target Space (PromotedUnit.Action).
enum class PromotionAction {
  kUpgraded,
  kAdded,
  kAlreadyHadChange,
  kUnchanged,
  kOutsideChange,
  kInvoked,
  kResolved,
  kFailed
};
inline constexpr PromotionAction kAllPromotionActions[] = {
    PromotionAction::kUpgraded,         PromotionAction::kAdded,
    PromotionAction::kAlreadyHadChange, PromotionAction::kUnchanged,
    PromotionAction::kOutsideChange,    PromotionAction::kInvoked,
    PromotionAction::kResolved,         PromotionAction::kFailed};
std::optional<PromotionAction> ParsePromotionAction(std::string_view text);
std::string_view PromotionActionName(PromotionAction a);

// How a promotion ended for one target Space (PromotedSpace.Status).
enum class PromotionStatus { kPromoted, kAlreadyPromoted, kFailed, kWouldPromote };
inline constexpr PromotionStatus kAllPromotionStatuses[] = {
    PromotionStatus::kPromoted, PromotionStatus::kAlreadyPromoted, PromotionStatus::kFailed,
    PromotionStatus::kWouldPromote};
std::optional<PromotionStatus> ParsePromotionStatus(std::string_view text);
std::string_view PromotionStatusName(PromotionStatus s);

// What a demotion did to one Unit (DemotedUnit.Action) and to one Space (DemotedSpace.Status).
enum class DemotionAction { kRestored, kAlreadyRestored, kUnchanged };
inline constexpr DemotionAction kAllDemotionActions[] = {
    DemotionAction::kRestored, DemotionAction::kAlreadyRestored, DemotionAction::kUnchanged};
std::optional<DemotionAction> ParseDemotionAction(std::string_view text);
std::string_view DemotionActionName(DemotionAction a);

enum class DemotionStatus { kDemoted, kAlreadyDemoted, kWouldDemote };
inline constexpr DemotionStatus kAllDemotionStatuses[] = {
    DemotionStatus::kDemoted, DemotionStatus::kAlreadyDemoted, DemotionStatus::kWouldDemote};
std::optional<DemotionStatus> ParseDemotionStatus(std::string_view text);
std::string_view DemotionStatusName(DemotionStatus s);

// Where a ChangeOrder stands, derived at read (ChangeOrder.State).
enum class ChangeOrderState {
  kNew,
  kInProgress,
  kResolved,
  kReleased,
  kAborted,
  kRestored,
  kRestoreReleased
};
inline constexpr ChangeOrderState kAllChangeOrderStates[] = {ChangeOrderState::kNew,
                                                             ChangeOrderState::kInProgress,
                                                             ChangeOrderState::kResolved,
                                                             ChangeOrderState::kReleased,
                                                             ChangeOrderState::kAborted,
                                                             ChangeOrderState::kRestored,
                                                             ChangeOrderState::kRestoreReleased};
std::optional<ChangeOrderState> ParseChangeOrderState(std::string_view text);
std::string_view ChangeOrderStateName(ChangeOrderState s);

// A ChangeSet is open until it is closed (ChangeSet.State).
enum class ChangeSetState { kOpen, kClosed };
inline constexpr ChangeSetState kAllChangeSetStates[] = {ChangeSetState::kOpen,
                                                         ChangeSetState::kClosed};
std::optional<ChangeSetState> ParseChangeSetState(std::string_view text);
std::string_view ChangeSetStateName(ChangeSetState s);

// The live status a reporter sends for a Release (LiveStatus.Sync, .Health, .Operation).
enum class SyncStatus { kSynced, kOutOfSync, kUnknown };
inline constexpr SyncStatus kAllSyncStatuses[] = {SyncStatus::kSynced, SyncStatus::kOutOfSync,
                                                  SyncStatus::kUnknown};
std::optional<SyncStatus> ParseSyncStatus(std::string_view text);
std::string_view SyncStatusName(SyncStatus s);

enum class HealthStatus { kHealthy, kProgressing, kDegraded, kSuspended, kMissing, kUnknown };
inline constexpr HealthStatus kAllHealthStatuses[] = {
    HealthStatus::kHealthy,   HealthStatus::kProgressing, HealthStatus::kDegraded,
    HealthStatus::kSuspended, HealthStatus::kMissing,     HealthStatus::kUnknown};
std::optional<HealthStatus> ParseHealthStatus(std::string_view text);
std::string_view HealthStatusName(HealthStatus s);

// The last sync operation of the GitOps operator; none at all is the empty string on the wire.
enum class OperationStatus { kRunning, kSucceeded, kFailed };
inline constexpr OperationStatus kAllOperationStatuses[] = {
    OperationStatus::kRunning, OperationStatus::kSucceeded, OperationStatus::kFailed};
std::optional<OperationStatus> ParseOperationStatus(std::string_view text);
std::string_view OperationStatusName(OperationStatus s);

// Roles on a Space. viewer reads; editor also writes; approver reads and votes; admin does all
// of it and grants; reporter (a GitOps operator's identity) reads and reports the live status
// of Releases; scanner (a scanner's or an external check's identity) reads, records scan
// findings for Releases and records check attestations. Spelled in lower case, as granted.
enum class Role { kViewer, kEditor, kApprover, kAdmin, kReporter, kScanner };
inline constexpr Role kAllRoles[] = {Role::kViewer, Role::kEditor,   Role::kApprover,
                                     Role::kAdmin,  Role::kReporter, Role::kScanner};
std::optional<Role> ParseRole(std::string_view text);
std::string_view RoleName(Role r);

// "A, B, C": every name of a vocabulary, for a refusal that lists what is allowed.
template <typename E, size_t N>
std::string JoinNames(const E (&all)[N], std::string_view (*name)(E),
                      std::string_view separator = ", ") {
  std::string out;
  for (size_t i = 0; i < N; ++i) {
    if (i > 0) out.append(separator);
    out.append(name(all[i]));
  }
  return out;
}

// The same as a list: the values a CLI flag accepts.
template <typename E, size_t N>
std::vector<std::string> AllNames(const E (&all)[N], std::string_view (*name)(E)) {
  std::vector<std::string> out;
  for (E e : all) out.emplace_back(name(e));
  return out;
}

}  // namespace cub::domain

#endif  // CUB_LIB_DOMAIN_VOCABULARY_H_
