// The signatures of the functions and operators of the CEL subset, for the checker: name,
// whether it is called as a method (x.f(y)), parameter types and result type. Type
// parameters (Type::Param "A", "B") stand for one type within a signature.
//
// Internal to lib/cel. Immutable static data; thread-safe.

#ifndef CUB_LIB_CEL_OVERLOADS_H_
#define CUB_LIB_CEL_OVERLOADS_H_

#include <string>
#include <vector>

#include "lib/cel/type.h"

namespace cub::cel::internal {

struct Signature {
  bool receiver = false;  // params[0] is the receiver
  std::vector<Type> params;
  Type result;
};

// All signatures of `function`; empty when no such function exists.
const std::vector<Signature>& SignaturesOf(const std::string& function);

}  // namespace cub::cel::internal

#endif  // CUB_LIB_CEL_OVERLOADS_H_
