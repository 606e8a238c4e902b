// The dashboard's static files (ui/ in the source tree), embedded in cubd at build time by
// cmake/EmbedUi.cmake, which generates the definition of UiAssets(). Nothing is read from disk
// at run time: the binary serves the dashboard it was built with.
#ifndef CUB_SERVER_UI_ASSETS_H_
#define CUB_SERVER_UI_ASSETS_H_

#include <string_view>
#include <vector>

namespace cub::server {

struct UiAsset {
  std::string_view path;          // as served, e.g. "/ui/index.html"
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view etag;          // strong ETag, quoted: a prefix of the content's SHA-256
  std::string_view body;
};

// Every embedded file, in path order. Static storage; thread-safe.
const std::vector<UiAsset>& UiAssets();

// The asset served at `path`, or null. "/ui/" is "/ui/index.html".
const UiAsset* FindUiAsset(std::string_view path);

}  // namespace cub::server

#endif  // CUB_SERVER_UI_ASSETS_H_
