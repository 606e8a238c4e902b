// Early-return helpers for absl::Status and absl::StatusOr<T>, in the style of abseil's
// internal status macros (also leveldb's and TensorFlow's).
//
// CUB_RETURN_IF_ERROR(expr)
//   Evaluates `expr` once; it yields an absl::Status or an absl::StatusOr<T>. When that is not
//   OK, the enclosing function returns its status unchanged (same code, same message), so the
//   function must return absl::Status or some absl::StatusOr<U>. A single statement: safe under
//   an unbraced `if`.
//
// CUB_ASSIGN_OR_RETURN(lhs, expr)
//   Evaluates `expr` once; it yields an absl::StatusOr<T>. When that is not OK, the enclosing
//   function returns its status unchanged; otherwise the value is moved into `lhs`, which is
//   either a declaration (`auto x`, `const Foo& y`, `std::string s`) or an existing variable
//   (`x`). It expands to several statements, so it cannot be the body of an unbraced `if`, and
//   `lhs` must not contain an unparenthesized comma (`expr` may). At most one per line.
//
// The names are CUB_-prefixed (Google style: macros carry the project's prefix), so they can
// never collide with the RETURN_IF_ERROR / ASSIGN_OR_RETURN that protobuf, gRPC or abseil keep
// in their internal headers.
#ifndef CUB_LIB_UTIL_STATUS_MACROS_H_
#define CUB_LIB_UTIL_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace cub::status_macros_internal {

inline const absl::Status& AsStatus(const absl::Status& s) { return s; }
template <typename T>
const absl::Status& AsStatus(const absl::StatusOr<T>& s) {
  return s.status();
}

}  // namespace cub::status_macros_internal

#define CUB_STATUS_MACROS_CONCAT_INNER(x, y) x##y
#define CUB_STATUS_MACROS_CONCAT(x, y) CUB_STATUS_MACROS_CONCAT_INNER(x, y)

#define CUB_RETURN_IF_ERROR(...)                                                                  \
  do {                                                                                            \
    /* A copy, not a reference: the expression's temporary dies at the end of this line. */       \
    absl::Status cub_status_macros_status = ::cub::status_macros_internal::AsStatus(__VA_ARGS__); \
    if (!cub_status_macros_status.ok()) return cub_status_macros_status;                          \
  } while (false)

#define CUB_ASSIGN_OR_RETURN(lhs, ...)                                                      \
  CUB_ASSIGN_OR_RETURN_IMPL(CUB_STATUS_MACROS_CONCAT(cub_status_macros_or_, __LINE__), lhs, \
                            __VA_ARGS__)

#define CUB_ASSIGN_OR_RETURN_IMPL(statusor, lhs, ...)      \
  auto statusor = (__VA_ARGS__);                           \
  if (!statusor.ok()) return std::move(statusor).status(); \
  lhs = *std::move(statusor)

#endif  // CUB_LIB_UTIL_STATUS_MACROS_H_
