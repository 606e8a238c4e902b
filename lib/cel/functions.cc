#include "lib/cel/functions.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace cub::cel::internal {

Value NoOverload(const CallArgs& call) {
  std::vector<std::string> kinds;
  for (size_t i = call.receiver ? 1 : 0; i < call.values.size(); ++i) {
    kinds.push_back(KindName(call.values[i].kind()));
  }
  std::string recv = call.receiver && !call.values.empty()
                         ? absl::StrCat(KindName(call.values[0].kind()), ".")
                         : "";
  return Value::Error(absl::StrCat("no matching overload for '", call.function, "' applied to ",
                                   recv, "(", absl::StrJoin(kinds, ", "), ")"));
}

Value CallBuiltin(const CallArgs& call) {
  bool handled = false;
  Value v = CallOperator(call, &handled);
  if (handled) return v;
  v = CallConversion(call, &handled);
  if (handled) return v;
  v = CallStringTime(call, &handled);
  if (handled) return v;
  return Value::Error(absl::StrCat("unbound function '", call.function, "'"));
}

}  // namespace cub::cel::internal
