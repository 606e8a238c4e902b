// Text made safe to place in HTML: the small pages cub and cubd answer a browser with (the
// CLI's login callback, the dashboard's login failures) say what failed in the provider's
// or the API's own words, which must never become markup.
//
// Thread-safe; no state.
#ifndef CUB_LIB_UTIL_HTML_H_
#define CUB_LIB_UTIL_HTML_H_

#include <string>

#include "absl/strings/string_view.h"

namespace cub {

// `s` with <, >, &, " and ' replaced by character references: safe as element text and as a
// quoted attribute value.
std::string HtmlEscape(absl::string_view s);

}  // namespace cub

#endif  // CUB_LIB_UTIL_HTML_H_
