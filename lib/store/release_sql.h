// SQL fragments the store's Release queries share (internal to lib/store).
#ifndef CUB_LIB_STORE_RELEASE_SQL_H_
#define CUB_LIB_STORE_RELEASE_SQL_H_

#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"

namespace cub::store::internal {

// Whether the Release `c` (columns id, space_id) carries the change between the Tags `start`
// and `publish` (SQL expressions of type uuid): its Space has taken the change (only such a
// Space can have released it), and for every Unit the change changed there the Release bundles
// at least the revision `publish` marks.
inline std::string ReleaseCarriesChange(absl::string_view start, absl::string_view publish) {
  return absl::StrCat(
      "EXISTS (SELECT 1 FROM tag_marks tm JOIN units tu ON tu.id = tm.unit_id"
      "        WHERE tm.tag_id = ",
      publish,
      " AND tu.space_id = c.space_id)"
      " AND NOT EXISTS ("
      "  SELECT 1 FROM tag_marks mp JOIN units u ON u.id = mp.unit_id"
      "  LEFT JOIN tag_marks ms ON ms.tag_id = ",
      start,
      " AND ms.unit_id = u.id"
      "  LEFT JOIN release_units ru ON ru.release_id = c.id AND ru.unit_id = u.id"
      "  WHERE mp.tag_id = ",
      publish,
      " AND u.space_id = c.space_id"
      "  AND ms.revision_num IS DISTINCT FROM mp.revision_num"
      "  AND (ru.revision_num IS NULL OR ru.revision_num < mp.revision_num))");
}

// The same with the Tags as the parameters $1 (start) and $2 (publish).
inline const std::string kReleaseCarriesChange = ReleaseCarriesChange("$1::uuid", "$2::uuid");

}  // namespace cub::store::internal

#endif  // CUB_LIB_STORE_RELEASE_SQL_H_
