// cubd's log lines: one per event (a call, an HTTP-level refusal, a message), on stderr, as
// text (`time event key=value ...`, the historical format) or as JSON objects, one per line
// (`--log-format json`: {"time":"...","event":"call","method":"...",...}). The format is set
// once at start, before any thread logs.
//
// Request IDs: each call has one, the caller's X-Request-Id (gRPC metadata x-request-id) when it
// is a usable ID, otherwise one made up here; it is logged on the call's line and returned to
// the caller (gRPC initial metadata x-request-id, REST header X-Request-Id).
#ifndef CUB_SERVER_REQUEST_LOG_H_
#define CUB_SERVER_REQUEST_LOG_H_

#include <initializer_list>
#include <string>
#include <utility>

#include "absl/strings/str_format.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace cub::server {

enum class LogFormat { kText, kJson };

// "text" or "json"; false for anything else.
bool ParseLogFormat(absl::string_view name, LogFormat* out);
void SetLogFormat(LogFormat format);
LogFormat CurrentLogFormat();

// A field's value: text (quoted in JSON; in text quoted only when it holds a space, '"' or
// '=') or a number (bare in both).
struct LogValue {
  LogValue(absl::string_view s) : text(s) {}   // NOLINT: implicit on purpose
  LogValue(const std::string& s) : text(s) {}  // NOLINT
  LogValue(const char* s) : text(s) {}         // NOLINT
  static LogValue Number(absl::string_view n) {
    LogValue v(n);
    v.number = true;
    return v;
  }
  std::string text;
  bool number = false;
};

// Writes one line for `event` at time `at` with the fields in order, as one write.
void LogEvent(absl::Time at, absl::string_view event,
              std::initializer_list<std::pair<absl::string_view, LogValue>> fields);

// A free-text line ("cubd: serving gRPC on ..."): as it is in text, {"event":"message",
// "message":...} in JSON. `text` without the trailing newline.
void LogMessage(absl::string_view text);

// LogMessage of absl::StrFormat(format, args...), for lines written with printf formats.
template <typename... Args>
void LogMessageF(const absl::FormatSpec<Args...>& format, const Args&... args) {
  LogMessage(absl::StrFormat(format, args...));
}

// The request ID to use: `given` when it is 1 to 128 characters of [A-Za-z0-9._:-] (so it is
// safe in logs and headers), otherwise a new random one of 16 hex digits. `given` may be null.
std::string RequestIdOr(const std::string* given);

}  // namespace cub::server

#endif  // CUB_SERVER_REQUEST_LOG_H_
