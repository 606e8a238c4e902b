#include "lib/store/caller.h"

#include "absl/strings/str_cat.h"

namespace cub::store {

void AndVisible(Query& q, const Caller& caller, const std::string& space_column) {
  if (caller.admin) return;
  std::string user = q.Param(caller.user_id);
  std::string groups = q.Param(TextArrayLiteral(caller.groups));
  q.Append(absl::StrCat(" AND ", space_column,
                        " IN (SELECT sp.space_id FROM space_permissions sp WHERE sp.user_id = ",
                        user, "::uuid OR sp.group_name = ANY(", groups, "::text[]))"));
}

}  // namespace cub::store
