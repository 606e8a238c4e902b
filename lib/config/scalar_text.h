// The values of single-quoted and block (literal "|", folded ">") scalars, read from the YAML
// source text rather than from libfyaml. libfyaml 0.7.12 gets several layouts of these wrong:
// it leaks memory on runs of "''" (libfyaml issue #233) and misreads them ('a''''b' as
// "a'''"); it drops the last line break of block scalars whose header stands on a line of its
// own or whose lines are indented more than the first, treats comment lines below a block
// scalar as its content, and in some such layouts returns uninitialised bytes. ParseYaml
// (yaml_parse.cc) still lets libfyaml find where each scalar is; these functions turn the
// text there into the value as the YAML 1.2 spec, and other readers (PyYAML, libyaml, go-yaml),
// have it.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_CONFIG_SCALAR_TEXT_H_
#define CUB_LIB_CONFIG_SCALAR_TEXT_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace cub::config {

// The value of a single-quoted scalar whose text between the quotes is `raw`: "''" is one
// quote; a line break becomes a space, or n line breaks where n empty lines follow it; white
// space around line breaks is dropped.
std::string SingleQuotedValue(std::string_view raw);

// A block scalar read from the source.
struct BlockScalar {
  std::string value;
  // The offset just past the line break of the scalar's last content line (or `content_start`
  // when it has none): where the scalar ends, but for trailing empty lines.
  size_t content_end = 0;
};

// Reads the block scalar whose header ("|", ">", with an optional indentation indicator 1-9
// and chomping indicator "+" or "-", and an optional comment) ends the line just before offset
// `content_start` of `text`, and whose content starts there. `parent_indent` is the
// indentation of the block collection that holds it (-1 at the root of a document). Content
// lines are those indented at least as much as the content indentation (the indicator's, or
// else that of the first non-empty line, and in any case more than the parent and at least 1).
// Returns false when no header ends that line.
bool ReadBlockScalar(std::string_view text, size_t content_start, int parent_indent,
                     BlockScalar* out);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_SCALAR_TEXT_H_
