# Writes a C++ file holding every file under ui/ (the dashboard's HTML, ES modules and CSS) as
# a byte array with its Content-Type and an ETag (the SHA-256 of its bytes), so cubd serves the
# dashboard from its own binary and needs no files, build tool or network at run time.
# Invoked by CMakeLists.txt as: cmake -DDIR=<ui dir> -DOUT=<file.cc> -P EmbedUi.cmake
#
# Every file but index.html is also served at a content-addressed path, its digest before the
# extension (/ui/api.<digest>.js), which may be cached for good (server/ui_routes.h). index.html
# is rewritten to use only those paths: each "/ui/<file>" it names becomes the versioned path,
# and its marker comment <!-- cub:importmap --> becomes an import map from each module's plain
# path to its versioned one, because the modules import each other by relative plain names
# (./api.js resolves to /ui/api.js). So a browser asks again only for index.html (no-cache),
# and a new cubd brings new URLs for exactly the files that changed. The import map's text is
# generated too (UiImportMap()), for the Content-Security-Policy hash that lets it run.
file(GLOB_RECURSE files RELATIVE "${DIR}" "${DIR}/*")
list(SORT files)

# hex_array(<out var> <hex>): the bytes as a C char initializer, with a trailing NUL so an empty
# file still has a valid array.
function(hex_array out hex)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  set(${out} "{${bytes}'\\0'}" PARENT_SCOPE)
endfunction()

# The versioned paths first: index.html names them.
set(imports "")
set(html_files "")
foreach(rel ${files})
  get_filename_component(ext "${rel}" LAST_EXT)
  if(ext STREQUAL ".html")
    list(APPEND html_files "${rel}")
    continue()
  endif()
  file(SHA256 "${DIR}/${rel}" digest)
  string(SUBSTRING "${digest}" 0 32 short)
  string(LENGTH "${rel}" rlen)
  string(LENGTH "${ext}" elen)
  math(EXPR stem_len "${rlen} - ${elen}")
  string(SUBSTRING "${rel}" 0 ${stem_len} stem)
  set(versioned_${rel} "${stem}.${short}${ext}")
  if(ext STREQUAL ".js" OR ext STREQUAL ".mjs")
    if(NOT imports STREQUAL "")
      string(APPEND imports ",")
    endif()
    string(APPEND imports "\"/ui/${rel}\":\"/ui/${stem}.${short}${ext}\"")
  endif()
endforeach()
set(importmap "{\"imports\":{${imports}}}")

set(body "// Generated from ui/ by cmake/EmbedUi.cmake. Do not edit.\n")
string(APPEND body "#include \"server/ui_assets.h\"\n\n#include <vector>\n\n")
string(APPEND body "namespace cub::server {\nnamespace {\n")
string(HEX "${importmap}" map_hex)
string(LENGTH "${importmap}" map_size)
hex_array(map_bytes "${map_hex}")
string(APPEND body "constexpr char kImportMap[] = ${map_bytes};\n")
set(table "")
set(i 0)
foreach(rel ${files})
  get_filename_component(ext "${rel}" LAST_EXT)
  if(ext STREQUAL ".html")
    set(type "text/html; charset=utf-8")
  elseif(ext STREQUAL ".js" OR ext STREQUAL ".mjs")
    set(type "text/javascript; charset=utf-8")
  elseif(ext STREQUAL ".css")
    set(type "text/css; charset=utf-8")
  elseif(ext STREQUAL ".svg")
    set(type "image/svg+xml")
  elseif(ext STREQUAL ".png")
    set(type "image/png")
  elseif(ext STREQUAL ".json")
    set(type "application/json")
  else()
    message(FATAL_ERROR "ui/${rel}: no Content-Type known for '${ext}' (add it to EmbedUi.cmake)")
  endif()
  set(src "${DIR}/${rel}")
  set(versioned "")
  if(ext STREQUAL ".html")
    file(READ "${src}" html)
    string(FIND "${html}" "<!-- cub:importmap -->" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "ui/${rel}: no <!-- cub:importmap --> marker for the import map")
    endif()
    foreach(other ${files})
      if(DEFINED versioned_${other})
        string(REPLACE "\"/ui/${other}\"" "\"/ui/${versioned_${other}}\"" html "${html}")
      endif()
    endforeach()
    # After the paths: the map's keys are the plain ones.
    string(REPLACE "<!-- cub:importmap -->" "<script type=\"importmap\">${importmap}</script>"
           html "${html}")
    string(MAKE_C_IDENTIFIER "${rel}" id)
    set(src "${OUT}.${id}")
    file(WRITE "${src}" "${html}")
  else()
    set(versioned "/ui/${versioned_${rel}}")
  endif()
  file(READ "${src}" hex HEX)
  file(SHA256 "${src}" digest)
  string(LENGTH "${hex}" hexlen)
  math(EXPR size "${hexlen} / 2")
  hex_array(bytes "${hex}")
  string(APPEND body "constexpr char kBytes${i}[] = ${bytes};\n")
  string(SUBSTRING "${digest}" 0 32 etag)
  string(APPEND table "    UiAsset{\"/ui/${rel}\", \"${versioned}\", \"${type}\", "
                      "\"\\\"${etag}\\\"\", std::string_view(kBytes${i}, ${size})},\n")
  math(EXPR i "${i} + 1")
endforeach()
string(APPEND body "}  // namespace\n\nconst std::vector<UiAsset>& UiAssets() {\n")
string(APPEND body "  static const std::vector<UiAsset> kAll = {\n${table}  };\n")
string(APPEND body "  return kAll;\n}\n\n")
string(APPEND body "std::string_view UiImportMap() { return {kImportMap, ${map_size}}; }\n\n")
string(APPEND body "}  // namespace cub::server\n")
file(WRITE "${OUT}.tmp" "${body}")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.tmp" "${OUT}")
