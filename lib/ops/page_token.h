// Server-side paging of the List RPCs: the request's Limit and PageToken, and the opaque
// continuation token a response carries in NextPageToken.
//
// A token is base64url (no padding) of a small versioned encoding:
//   byte 1 (version), 16 hex digits of SHA-256 over the request without its paging fields,
//   then the last row's sort key as length-prefixed strings.
// The hash ties a token to the filters it was issued for: reused with other filters (another
// Space, Where, RPC ...) it is refused, because the key alone would silently skip rows of the
// other selection. Tokens are not secrets and not signed: a forged key only moves the start of
// a list the caller may read anyway (visibility is applied to every page).
#ifndef CUB_LIB_OPS_PAGE_TOKEN_H_
#define CUB_LIB_OPS_PAGE_TOKEN_H_

#include <google/protobuf/message.h>

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace cub::ops {

inline constexpr int32_t kDefaultPageSize = 500;
inline constexpr int32_t kMaxPageSize = 1000;

// Where one page starts and how long it is, read from a request.
struct PageStart {
  int32_t limit = kDefaultPageSize;  // rows in this page (after defaulting and capping)
  std::vector<std::string> after;    // sort key of the previous page's last row; empty: first
  std::string filter_hash;           // binds tokens issued for this page to its filters
};

// Reads `limit` (0: `default_limit`; above kMaxPageSize: capped; negative: INVALID_ARGUMENT
// naming Limit) and `token` (empty: the first page; otherwise decoded and checked against
// `req` with its fields `limit` and `page_token` cleared). `key_parts` is how many strings
// this list's sort key has; a token with another count is malformed. Errors name PageToken.
absl::StatusOr<PageStart> ReadPageStart(const google::protobuf::Message& req, int32_t limit,
                                        const std::string& token, size_t key_parts,
                                        int32_t default_limit = kDefaultPageSize);

// The token continuing after the row whose sort key is `last_key`.
std::string NextPageToken(const PageStart& page, const std::vector<std::string>& last_key);

// Trims `rows` (fetched with limit + 1) to the page and returns the next token, empty when
// `rows` held no more than the page. `key` maps a row to its sort key.
template <typename Row, typename KeyFn>
std::string FinishPage(const PageStart& page, std::vector<Row>& rows, KeyFn key) {
  if (rows.size() <= static_cast<size_t>(page.limit)) return "";
  rows.resize(static_cast<size_t>(page.limit));
  return NextPageToken(page, key(rows.back()));
}

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_PAGE_TOKEN_H_
