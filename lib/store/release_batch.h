// Set-based reads and writes for publishing many Releases at once (a whole Stage of a
// ChangeOrder, lib/ops/stage_publish.h) or one: a fixed number of statements whatever the number
// of Spaces and Units, never one per Unit or per Release.
#ifndef CUB_LIB_STORE_RELEASE_BATCH_H_
#define CUB_LIB_STORE_RELEASE_BATCH_H_

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/store/releases.h"
#include "lib/store/transaction.h"

namespace cub::store {

// One Unit as a publish would bundle it, with the revision's data.
struct ReleasableUnit {
  std::string space_id;
  std::string unit_id;
  std::string slug;
  std::string toolchain;
  // The revision bundled: the one the Tag marks, else the last released one (0: none, the Unit
  // is left out of the bundle).
  int64_t revision_num = 0;
  bool marked = false;  // the Tag marks it
  std::string data;
  std::string data_hash;
  std::vector<std::string> validation_errors;
  bool revision_found = false;  // false when revision_num names no stored revision
};

// Every releasable Unit (toolchain not ConfigHub/YAML, with a head revision) of `space_ids`,
// each at the revision `tag_id` marks (or, unmarked, its last released one), with that
// revision's data, hash and validation errors: one query. By Space ID, then Unit slug.
absl::StatusOr<std::vector<ReleasableUnit>> ReleasableUnits(
    Tx& tx, const std::vector<std::string>& space_ids, const std::string& tag_id);

// The data, hash and validation errors of the revisions `keys` names ((unit ID, revision
// number) pairs), in one query. Returned in the order of `keys`; a key naming no revision comes
// back with revision_found false. space_id, slug and toolchain are left empty.
absl::StatusOr<std::vector<ReleasableUnit>> RevisionsOf(
    Tx& tx, const std::vector<std::pair<std::string, int64_t>>& keys);

// One Release to insert in bulk: the row and, per Unit (parallel to row.units), the file name
// its bundle gives it.
struct NewReleaseWithFiles {
  NewRelease row;
  std::vector<std::string> file_names;
};

// Writes every Release of `releases` (each complete with its signed records; at most one per
// Space) and their Units, moves the Units' LastReleasedRevisionNum, supersedes each Space's
// current deployment and opens its new one: a fixed number of statements. Returns the Release
// IDs in the order given. Call under LockNextReleaseNums (lib/store/releases.h). Each is recorded
// Pending delivery, and delivery workers are notified at commit. ALREADY_EXISTS when a Space has a
// Release of that number.
absl::StatusOr<std::vector<std::string>> InsertReleases(
    Tx& tx, const std::vector<NewReleaseWithFiles>& releases);

// What each Release of `release_ids` bundled, as stored now, by Release ID, in one query.
struct StoredFiles {
  // Each bundled revision's data, by Unit slug; a revision that is gone is missing.
  std::map<std::string, std::string> data;
  // The file name each Unit was bundled under, by Unit slug. Releases recorded before file names
  // were (migrations/0022) have none: their files are "<slug>.yaml".
  std::map<std::string, std::string> file_names;
};
absl::StatusOr<std::map<std::string, StoredFiles>> ReleasesFiles(
    Tx& tx, const std::vector<std::string>& release_ids);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_RELEASE_BATCH_H_
