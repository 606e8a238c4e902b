// Who is asking, as far as the repositories need to know: to restrict what a query returns
// to the Spaces the caller holds a role on.
#ifndef CUB_LIB_STORE_CALLER_H_
#define CUB_LIB_STORE_CALLER_H_

#include <string>
#include <vector>

#include "lib/store/sql.h"

namespace cub::store {

struct Caller {
  bool admin = false;  // sees every Space
  std::string user_id;
  std::vector<std::string> groups;
};

// Appends " AND <space_column> IN (Spaces `caller` holds any role on)" to `q`; nothing for
// an admin.
void AndVisible(Query& q, const Caller& caller, const std::string& space_column);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_CALLER_H_
