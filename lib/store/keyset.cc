#include "lib/store/keyset.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cub::store {

void AndAfterKey(Query& q, const Keyset& k, std::string_view columns,
                 const std::vector<std::string_view>& casts, bool descending) {
  if (k.after.empty()) return;
  std::vector<std::string> params;
  for (size_t i = 0; i < k.after.size() && i < casts.size(); ++i) {
    params.push_back(absl::StrCat(q.Param(k.after[i]), "::", std::string(casts[i])));
  }
  // std::string_view is not absl's here (Debian's Abseil): spelt out for StrCat.
  q.Append(absl::StrCat(" AND (", std::string(columns), ") ", descending ? "<" : ">", " (",
                        absl::StrJoin(params, ", "), ")"));
}

void OrderAndLimit(Query& q, const Keyset& k, std::string_view order_by) {
  q.Append(absl::StrCat(" ORDER BY ", std::string(order_by)));
  if (k.limit > 0) q.Append(absl::StrCat(" LIMIT ", k.limit));
}

}  // namespace cub::store
