#include "server/http_request_checks.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace cub::server {
namespace {

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

absl::string_view TrimOws(absl::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool IsVersionSyntax(absl::string_view v) {
  return v.size() == 8 && absl::StartsWith(v, "HTTP/") && absl::ascii_isdigit(v[5]) &&
         v[6] == '.' && absl::ascii_isdigit(v[7]);
}

}  // namespace

HeadEnd FindHeadEnd(std::string_view received, size_t scanned) {
  HeadEnd out;
  for (size_t i = received.find('\n', std::min(scanned, received.size()));
       i != std::string_view::npos; i = received.find('\n', i + 1)) {
    if (i == 0 || received[i - 1] != '\r') {
      out.refusal = HttpRefusal{400, "a header line ends in a bare LF; lines must end in CRLF"};
      return out;
    }
    if (i >= 3 && received.substr(i - 3, 4) == "\r\n\r\n") {
      out.length = i + 1;
      return out;
    }
  }
  return out;
}

std::optional<HttpRefusal> CheckRequestHead(std::string_view head_in, int max_fields) {
  absl::string_view head = Sv(head_in);
  std::vector<absl::string_view> lines = absl::StrSplit(head, "\r\n");
  // The request line: METHOD SP request-target SP HTTP-version. The parser checks the method
  // and target; the version is checked here to tell an unsupported one (505) from garbage.
  std::vector<absl::string_view> parts = absl::StrSplit(lines[0], ' ');
  if (parts.size() != 3) return HttpRefusal{400, "malformed request line"};
  const absl::string_view version = parts[2];
  if (!IsVersionSyntax(version)) return HttpRefusal{400, "malformed request line"};
  if (version != "HTTP/1.1" && version != "HTTP/1.0") {
    return HttpRefusal{505,
                       absl::StrCat("HTTP version ", version, " is not supported; use HTTP/1.1")};
  }
  const bool http10 = version == "HTTP/1.0";

  int count = 0;
  std::vector<absl::string_view> te, cl;
  absl::string_view expect;
  bool has_expect = false;
  for (size_t i = 1; i < lines.size(); ++i) {
    absl::string_view line = lines[i];
    if (line.empty()) break;  // the end of the header section
    if (line[0] == ' ' || line[0] == '\t') {
      return HttpRefusal{400, "obsolete header line folding is not accepted"};
    }
    if (++count > max_fields) {
      return HttpRefusal{431, absl::StrCat("more than ", max_fields, " header fields")};
    }
    size_t colon = line.find(':');
    if (colon == absl::string_view::npos) continue;  // the parser refuses it
    absl::string_view name = line.substr(0, colon);
    absl::string_view value = TrimOws(line.substr(colon + 1));
    if (absl::EqualsIgnoreCase(name, "transfer-encoding")) {
      te.push_back(value);
    } else if (absl::EqualsIgnoreCase(name, "content-length")) {
      cl.push_back(value);
    } else if (absl::EqualsIgnoreCase(name, "expect")) {
      expect = value;
      has_expect = true;
    }
  }
  if (!te.empty()) {
    if (!cl.empty()) return HttpRefusal{400, "both Transfer-Encoding and Content-Length"};
    if (http10) return HttpRefusal{400, "Transfer-Encoding in an HTTP/1.0 request"};
    if (te.size() != 1 || !absl::EqualsIgnoreCase(te[0], "chunked")) {
      return HttpRefusal{501, absl::StrCat("unsupported Transfer-Encoding \"",
                                           absl::StrJoin(te, ", "), "\"; only chunked is")};
    }
  }
  for (absl::string_view v : cl) {
    if (v != cl[0]) return HttpRefusal{400, "conflicting Content-Length header fields"};
  }
  if (has_expect && !absl::EqualsIgnoreCase(expect, "100-continue")) {
    return HttpRefusal{417, absl::StrCat("unsupported expectation \"", expect, "\"")};
  }
  return std::nullopt;
}

}  // namespace cub::server
