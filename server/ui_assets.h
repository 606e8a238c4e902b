// The dashboard's static files (ui/ in the source tree), embedded in cubd at build time by
// cmake/EmbedUi.cmake, which generates the definition of UiAssets(). Nothing is read from disk
// at run time: the binary serves the dashboard it was built with.
#ifndef CUB_SERVER_UI_ASSETS_H_
#define CUB_SERVER_UI_ASSETS_H_

#include <string_view>
#include <vector>

namespace cub::server {

struct UiAsset {
  std::string_view path;  // as served, e.g. "/ui/index.html"
  // Also served here, for good: the path with the ETag's digest before the extension, e.g.
  // "/ui/api.<32 hex>.js". Empty for index.html, which is the one file always asked again.
  std::string_view versioned_path;
  std::string_view content_type;  // e.g. "text/javascript; charset=utf-8"
  std::string_view etag;          // strong ETag, quoted: a prefix of the content's SHA-256
  // index.html as served: every "/ui/<file>" it names is that file's versioned_path, and it
  // holds UiImportMap() as an inline <script type="importmap">.
  std::string_view body;
};

// Every embedded file, in path order. Static storage; thread-safe.
const std::vector<UiAsset>& UiAssets();

// The asset served at `path` (its path or its versioned_path), or null. "/ui/" is
// "/ui/index.html". Only the paths in the table match: no other name reaches a file.
const UiAsset* FindUiAsset(std::string_view path);

// The text of index.html's inline import map, byte for byte: {"imports": {"/ui/api.js":
// "/ui/api.<digest>.js", ...}} for every module, so the modules' relative imports load the
// versioned files. The Content-Security-Policy allows it by its hash.
std::string_view UiImportMap();

}  // namespace cub::server

#endif  // CUB_SERVER_UI_ASSETS_H_
