// --jq: a jq program run over the JSON a command would print, through libjq. See output.h.
// libjq 1.6's headers declare C functions without extern "C".
extern "C" {
#include <jq.h>
}

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "cli/output.h"

namespace cub::cli {
namespace {

// The text of a jq message or error value; consumes `v`.
std::string MessageText(jv v) {
  if (jv_get_kind(v) == JV_KIND_INVALID) {
    if (!jv_invalid_has_msg(jv_copy(v))) {
      jv_free(v);
      return "error";
    }
    v = jv_invalid_get_msg(v);
  }
  std::string text;
  if (jv_get_kind(v) == JV_KIND_STRING) {
    text = jv_string_value(v);
    jv_free(v);
  } else {
    jv dumped = jv_dump_string(v, 0);
    text = jv_string_value(dumped);
    jv_free(dumped);
  }
  return text;
}

void CollectError(void* data, jv msg) {
  auto* errors = static_cast<std::string*>(data);
  if (!errors->empty()) errors->append("; ");
  errors->append(MessageText(msg));
}

}  // namespace

absl::StatusOr<std::string> RunJq(std::string_view expr, std::string_view json) {
  jq_state* jq = jq_init();
  if (jq == nullptr) return absl::InternalError("--jq: cannot start jq");
  std::string errors;
  jq_set_error_cb(jq, CollectError, &errors);
  const std::string program(expr);
  if (!jq_compile(jq, program.c_str())) {
    jq_teardown(&jq);
    return absl::InvalidArgumentError(
        absl::StrCat("--jq '", program, "' is not a jq program: ", errors));
  }
  jv input = jv_parse_sized(json.data(), static_cast<int>(json.size()));
  if (!jv_is_valid(input)) {
    jq_teardown(&jq);
    return absl::InternalError(absl::StrCat("--jq: the output is not JSON: ", MessageText(input)));
  }
  jq_start(jq, input, 0);
  std::string out;
  for (;;) {
    jv result = jq_next(jq);
    if (!jv_is_valid(result)) {
      if (jv_invalid_has_msg(jv_copy(result))) {
        const std::string message = MessageText(result);
        jq_teardown(&jq);
        return absl::InvalidArgumentError(absl::StrCat("--jq '", program, "': ", message));
      }
      jv_free(result);
      break;
    }
    absl::StrAppend(&out, MessageText(result), "\n");
  }
  jq_teardown(&jq);
  return out;
}

}  // namespace cub::cli
