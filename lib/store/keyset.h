// Keyset pagination for the List repositories: a page is the rows whose sort key comes after
// the previous page's last key, in that order, at most `limit` of them. Never OFFSET: a page
// costs the same wherever it starts, and rows inserted or deleted between pages neither repeat
// nor skip the rows that were there all along.
#ifndef CUB_LIB_STORE_KEYSET_H_
#define CUB_LIB_STORE_KEYSET_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/store/sql.h"

namespace cub::store {

struct Keyset {
  std::vector<std::string> after;  // the previous page's last sort key; empty: from the start
  int32_t limit = 0;               // rows to read (callers ask one more than they show); 0: all
};

// Appends " AND (columns) > (params)" (`<` when `descending`) when `k.after` is set: one bind
// parameter per key part, cast to `casts[i]`. `columns` is the comma-separated sort key, a
// constant of the caller.
void AndAfterKey(Query& q, const Keyset& k, std::string_view columns,
                 const std::vector<std::string_view>& casts, bool descending = false);

// Appends " ORDER BY order_by" and, when `k.limit` is set, " LIMIT n".
void OrderAndLimit(Query& q, const Keyset& k, std::string_view order_by);

}  // namespace cub::store

#endif  // CUB_LIB_STORE_KEYSET_H_
