// Checks on a request's raw header section that come before Beast's parser sees it: the ones
// where the parser is laxer than we want (it accepts obsolete line folding, and treats an
// unknown Transfer-Encoding as no body), and the ones whose refusal should say exactly what is
// wrong (HTTP version, Transfer-Encoding with Content-Length, the field count). Pure functions,
// no I/O.
#ifndef CUB_SERVER_HTTP_REQUEST_CHECKS_H_
#define CUB_SERVER_HTTP_REQUEST_CHECKS_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace cub::server {

// An HTTP error status the server answers with, and what is wrong.
struct HttpRefusal {
  int status = 400;
  std::string message;
};

// The header section's end in `received` (the bytes of a request received so far): the length
// of the request line and fields including the final empty line, or 0 when it has not arrived.
// A line ending in a bare LF is refused (400): it is how some smuggling attacks start.
// `scanned`: how much of `received` an earlier call already looked at (the search resumes there,
// so a header section that arrives byte by byte is not scanned over and over).
struct HeadEnd {
  size_t length = 0;
  std::optional<HttpRefusal> refusal;
};
HeadEnd FindHeadEnd(std::string_view received, size_t scanned = 0);

// Checks the complete header section `head` (as FindHeadEnd delimits it): the version (505 for
// HTTP/x.y other than 1.0 and 1.1), obsolete line folding (400), more than `max_fields` fields
// (431), Transfer-Encoding with Content-Length or in HTTP/1.0 (400), Transfer-Encoding other
// than chunked (501), Content-Length fields that differ (400), an Expect other than
// 100-continue (417). Everything else is left to the parser.
std::optional<HttpRefusal> CheckRequestHead(std::string_view head, int max_fields = 100);

}  // namespace cub::server

#endif  // CUB_SERVER_HTTP_REQUEST_CHECKS_H_
