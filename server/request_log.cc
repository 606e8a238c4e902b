#include "server/request_log.h"

#include <atomic>
#include <cstdio>
#include <random>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "lib/util/json.h"

namespace cub::server {
namespace {

std::atomic<LogFormat> g_format{LogFormat::kText};

std::string FormatLogTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E3SZ", t, absl::UTCTimeZone());
}

// The JSON string literal of `s` (lib/util/json.h), for absl's string_view.
void AppendJsonString(std::string& out, absl::string_view s) {
  ::cub::AppendJsonString(out, std::string_view(s.data(), s.size()));
}

bool NeedsQuotes(absl::string_view s) {
  if (s.empty()) return true;
  for (char c : s) {
    if (c == ' ' || c == '"' || c == '=' || static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
}

void Write(const std::string& line) {
  // One fwrite of the whole line: lines of concurrent threads do not interleave.
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace

bool ParseLogFormat(absl::string_view name, LogFormat* out) {
  if (name == "text") {
    *out = LogFormat::kText;
  } else if (name == "json") {
    *out = LogFormat::kJson;
  } else {
    return false;
  }
  return true;
}

void SetLogFormat(LogFormat format) { g_format = format; }
LogFormat CurrentLogFormat() { return g_format; }

void LogEvent(absl::Time at, absl::string_view event,
              std::initializer_list<std::pair<absl::string_view, LogValue>> fields) {
  std::string line;
  if (g_format == LogFormat::kJson) {
    line = "{\"time\":";
    AppendJsonString(line, FormatLogTime(at));
    line += ",\"event\":";
    AppendJsonString(line, event);
    for (const auto& [key, value] : fields) {
      line += ',';
      AppendJsonString(line, key);
      line += ':';
      if (value.number) {
        line += value.text;
      } else {
        AppendJsonString(line, value.text);
      }
    }
    line += "}\n";
  } else {
    line = FormatLogTime(at);
    line += ' ';
    line.append(event.data(), event.size());
    for (const auto& [key, value] : fields) {
      line += ' ';
      line.append(key.data(), key.size());
      line += '=';
      if (!value.number && NeedsQuotes(value.text)) {
        AppendJsonString(line, value.text);
      } else {
        line += value.text;
      }
    }
    line += '\n';
  }
  Write(line);
}

void LogMessage(absl::string_view text) {
  if (g_format == LogFormat::kJson) {
    std::string line = "{\"time\":";
    AppendJsonString(line, FormatLogTime(absl::Now()));
    line += ",\"event\":\"message\",\"message\":";
    AppendJsonString(line, text);
    line += "}\n";
    Write(line);
  } else {
    // The text may quote other services (a registry's error message): a line break or other
    // control character in it must not start a line that looks like cubd's own.
    std::string line;
    line.reserve(text.size() + 1);
    for (char c : text) {
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
        absl::StrAppend(&line, "\\x", absl::Hex(static_cast<unsigned char>(c), absl::kZeroPad2));
      } else {
        line += c;
      }
    }
    line += '\n';
    Write(line);
  }
}

std::string RequestIdOr(const std::string* given) {
  if (given != nullptr && !given->empty() && given->size() <= 128) {
    bool ok = true;
    for (char c : *given) {
      if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != ':' && c != '-') {
        ok = false;
        break;
      }
    }
    if (ok) return *given;
  }
  thread_local std::mt19937_64 gen{std::random_device{}()};
  return absl::StrFormat("%016x", gen());
}

}  // namespace cub::server
