#include "lib/ops/change_order_state.h"

#include <algorithm>
#include <set>

namespace cub::ops {
namespace {

using domain::ChangeOrderState;

// The lists are looked up once per resolved or released Space: as sets, so an aborted
// ChangeOrder over 10,000 Spaces is not 10,000 scans of 10,000 IDs.
using IdSet = std::set<std::string>;
IdSet SetOf(const std::vector<std::string>& v) { return IdSet(v.begin(), v.end()); }

// Restored once every Space that took the change (beyond its base) was demoted;
// RestoreReleased once every one that had released it released the restored revisions.
ChangeOrderState AbortedState(const store::StoredChangeOrder& c,
                              const std::vector<std::string>& resolved) {
  bool restored = false, rereleased = true, any_released = false;
  const IdSet restored_ids = SetOf(c.restored_space_ids);
  const IdSet rereleased_ids = SetOf(c.restore_released_space_ids);
  for (const auto& id : resolved) {
    if (id == c.space_id) continue;
    restored = true;
    if (!restored_ids.count(id)) {
      restored = false;
      break;
    }
  }
  for (const auto& id : c.released_space_ids) {
    if (id == c.space_id) continue;
    any_released = true;
    rereleased &= rereleased_ids.count(id) > 0;
  }
  return !restored                    ? ChangeOrderState::kAborted
         : any_released && rereleased ? ChangeOrderState::kRestoreReleased
                                      : ChangeOrderState::kRestored;
}

}  // namespace

std::vector<std::string> ResolvedInScope(const store::StoredChangeOrder& c) {
  std::set<std::string> resolved(c.resolved_space_ids.begin(), c.resolved_space_ids.end());
  std::vector<std::string> out;
  for (const auto& id : c.in_scope_space_ids) {
    if (resolved.count(id)) out.push_back(id);
  }
  return out;
}

domain::ChangeOrderState DeriveChangeOrderState(const store::StoredChangeOrder& c) {
  const std::vector<std::string> resolved = ResolvedInScope(c);
  if (!c.aborted_reason.empty()) return AbortedState(c, resolved);
  if (std::none_of(resolved.begin(), resolved.end(),
                   [&](const std::string& id) { return id != c.space_id; })) {
    return ChangeOrderState::kNew;  // nowhere beyond its base yet
  }
  // Released: every in-scope Space with a release Target released it (a Space without one has
  // nothing to release and does not hold it back); with no Target anywhere, Resolved is as far
  // as State goes.
  const bool all_resolved = resolved.size() == c.in_scope_space_ids.size();
  if (all_resolved && !c.target_space_ids.empty() &&
      c.released_space_ids.size() == c.target_space_ids.size()) {
    return ChangeOrderState::kReleased;
  }
  return all_resolved ? ChangeOrderState::kResolved : ChangeOrderState::kInProgress;
}

domain::ChangeOrderState DeriveChangeOrderState(const std::string& aborted_reason,
                                                const store::ChangeOrderStateCounts& n) {
  if (!aborted_reason.empty()) {
    // As AbortedState: restored once some Space beyond the base took the change and each such
    // one was demoted; RestoreReleased once every one that had released it re-released.
    const bool restored = n.resolved_beyond_base > 0 && n.unrestored_beyond_base == 0;
    const bool rereleased = n.released_beyond_base > 0 && n.unrereleased_beyond_base == 0;
    return !restored    ? ChangeOrderState::kAborted
           : rereleased ? ChangeOrderState::kRestoreReleased
                        : ChangeOrderState::kRestored;
  }
  if (n.resolved_beyond_base == 0) return ChangeOrderState::kNew;
  const bool all_resolved = n.resolved == n.in_scope;
  if (all_resolved && n.targets > 0 && n.released == n.targets) return ChangeOrderState::kReleased;
  return all_resolved ? ChangeOrderState::kResolved : ChangeOrderState::kInProgress;
}

store::ChangeOrderStateCounts StateCountsOf(const store::StoredChangeOrder& c) {
  store::ChangeOrderStateCounts n;
  const IdSet restored = SetOf(c.restored_space_ids);
  const IdSet rereleased = SetOf(c.restore_released_space_ids);
  n.in_scope = static_cast<int64_t>(c.in_scope_space_ids.size());
  for (const auto& id : ResolvedInScope(c)) {
    ++n.resolved;
    if (id == c.space_id) continue;
    ++n.resolved_beyond_base;
    if (!restored.count(id)) ++n.unrestored_beyond_base;
  }
  n.targets = static_cast<int64_t>(c.target_space_ids.size());
  n.released = static_cast<int64_t>(c.released_space_ids.size());
  for (const auto& id : c.released_space_ids) {
    if (id == c.space_id) continue;
    ++n.released_beyond_base;
    if (!rereleased.count(id)) ++n.unrereleased_beyond_base;
  }
  return n;
}

}  // namespace cub::ops
