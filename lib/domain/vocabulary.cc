#include "lib/domain/vocabulary.h"

namespace cub::domain {
namespace {

// The one parse: the value whose name is exactly `text`. Each XName is a switch, so a value
// added to an enum without a name is a compiler warning, and one left out of kAllX fails the
// round trip of the unit test.
template <typename E, size_t N>
std::optional<E> Parse(std::string_view text, const E (&all)[N], std::string_view (*name)(E)) {
  for (E e : all) {
    if (name(e) == text) return e;
  }
  return std::nullopt;
}

}  // namespace

std::string_view UpdateTypeName(UpdateType t) {
  switch (t) {
    case UpdateType::kUpgradeUnit:
      return "UpgradeUnit";
    case UpdateType::kMergeUnits:
      return "MergeUnits";
    case UpdateType::kInvoke:
      return "Invoke";
    case UpdateType::kTransformPaths:
      return "TransformPaths";
    case UpdateType::kInsert:
      return "Insert";
    case UpdateType::kUpsert:
      return "Upsert";
  }
  return "";
}

std::optional<UpdateType> ParseUpdateType(std::string_view text) {
  return Parse(text, kAllUpdateTypes, UpdateTypeName);
}

bool MergesUpstream(UpdateType t) {
  return t == UpdateType::kUpgradeUnit || t == UpdateType::kMergeUnits;
}

bool CopiesFromSources(UpdateType t) {
  return t == UpdateType::kTransformPaths || t == UpdateType::kInsert || t == UpdateType::kUpsert;
}

std::string_view PriorRevisionsName(PriorRevisions p) {
  switch (p) {
    case PriorRevisions::kInclude:
      return "Include";
    case PriorRevisions::kSkip:
      return "Skip";
    case PriorRevisions::kError:
      return "Error";
    case PriorRevisions::kAll:
      return "All";
  }
  return "";
}

std::optional<PriorRevisions> ParsePriorRevisions(std::string_view text) {
  return Parse(text, kAllPriorRevisions, PriorRevisionsName);
}

std::string_view PromotionActionName(PromotionAction a) {
  switch (a) {
    case PromotionAction::kUpgraded:
      return "Upgraded";
    case PromotionAction::kAdded:
      return "Added";
    case PromotionAction::kAlreadyHadChange:
      return "AlreadyHadChange";
    case PromotionAction::kUnchanged:
      return "Unchanged";
    case PromotionAction::kOutsideChange:
      return "OutsideChange";
    case PromotionAction::kInvoked:
      return "Invoked";
    case PromotionAction::kResolved:
      return "Resolved";
    case PromotionAction::kFailed:
      return "Failed";
  }
  return "";
}

std::optional<PromotionAction> ParsePromotionAction(std::string_view text) {
  return Parse(text, kAllPromotionActions, PromotionActionName);
}

std::string_view PromotionStatusName(PromotionStatus s) {
  switch (s) {
    case PromotionStatus::kPromoted:
      return "Promoted";
    case PromotionStatus::kAlreadyPromoted:
      return "AlreadyPromoted";
    case PromotionStatus::kFailed:
      return "Failed";
    case PromotionStatus::kWouldPromote:
      return "WouldPromote";
  }
  return "";
}

std::optional<PromotionStatus> ParsePromotionStatus(std::string_view text) {
  return Parse(text, kAllPromotionStatuses, PromotionStatusName);
}

std::string_view DemotionActionName(DemotionAction a) {
  switch (a) {
    case DemotionAction::kRestored:
      return "Restored";
    case DemotionAction::kAlreadyRestored:
      return "AlreadyRestored";
    case DemotionAction::kUnchanged:
      return "Unchanged";
  }
  return "";
}

std::optional<DemotionAction> ParseDemotionAction(std::string_view text) {
  return Parse(text, kAllDemotionActions, DemotionActionName);
}

std::string_view DemotionStatusName(DemotionStatus s) {
  switch (s) {
    case DemotionStatus::kDemoted:
      return "Demoted";
    case DemotionStatus::kAlreadyDemoted:
      return "AlreadyDemoted";
    case DemotionStatus::kWouldDemote:
      return "WouldDemote";
  }
  return "";
}

std::optional<DemotionStatus> ParseDemotionStatus(std::string_view text) {
  return Parse(text, kAllDemotionStatuses, DemotionStatusName);
}

std::string_view ChangeOrderStateName(ChangeOrderState s) {
  switch (s) {
    case ChangeOrderState::kNew:
      return "New";
    case ChangeOrderState::kInProgress:
      return "InProgress";
    case ChangeOrderState::kResolved:
      return "Resolved";
    case ChangeOrderState::kReleased:
      return "Released";
    case ChangeOrderState::kAborted:
      return "Aborted";
    case ChangeOrderState::kRestored:
      return "Restored";
    case ChangeOrderState::kRestoreReleased:
      return "RestoreReleased";
  }
  return "";
}

std::optional<ChangeOrderState> ParseChangeOrderState(std::string_view text) {
  return Parse(text, kAllChangeOrderStates, ChangeOrderStateName);
}

std::string_view ChangeSetStateName(ChangeSetState s) {
  switch (s) {
    case ChangeSetState::kOpen:
      return "Open";
    case ChangeSetState::kClosed:
      return "Closed";
  }
  return "";
}

std::optional<ChangeSetState> ParseChangeSetState(std::string_view text) {
  return Parse(text, kAllChangeSetStates, ChangeSetStateName);
}

std::string_view SyncStatusName(SyncStatus s) {
  switch (s) {
    case SyncStatus::kSynced:
      return "Synced";
    case SyncStatus::kOutOfSync:
      return "OutOfSync";
    case SyncStatus::kUnknown:
      return "Unknown";
  }
  return "";
}

std::optional<SyncStatus> ParseSyncStatus(std::string_view text) {
  return Parse(text, kAllSyncStatuses, SyncStatusName);
}

std::string_view HealthStatusName(HealthStatus s) {
  switch (s) {
    case HealthStatus::kHealthy:
      return "Healthy";
    case HealthStatus::kProgressing:
      return "Progressing";
    case HealthStatus::kDegraded:
      return "Degraded";
    case HealthStatus::kSuspended:
      return "Suspended";
    case HealthStatus::kMissing:
      return "Missing";
    case HealthStatus::kUnknown:
      return "Unknown";
  }
  return "";
}

std::optional<HealthStatus> ParseHealthStatus(std::string_view text) {
  return Parse(text, kAllHealthStatuses, HealthStatusName);
}

std::string_view OperationStatusName(OperationStatus s) {
  switch (s) {
    case OperationStatus::kRunning:
      return "Running";
    case OperationStatus::kSucceeded:
      return "Succeeded";
    case OperationStatus::kFailed:
      return "Failed";
  }
  return "";
}

std::optional<OperationStatus> ParseOperationStatus(std::string_view text) {
  return Parse(text, kAllOperationStatuses, OperationStatusName);
}

std::string_view RoleName(Role r) {
  switch (r) {
    case Role::kViewer:
      return "viewer";
    case Role::kEditor:
      return "editor";
    case Role::kApprover:
      return "approver";
    case Role::kAdmin:
      return "admin";
    case Role::kReporter:
      return "reporter";
    case Role::kScanner:
      return "scanner";
  }
  return "";
}

std::optional<Role> ParseRole(std::string_view text) { return Parse(text, kAllRoles, RoleName); }

}  // namespace cub::domain
