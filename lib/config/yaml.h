// Reading and writing Units' configuration data: YAML streams of one or more documents
// (usually Kubernetes manifests), their canonical JSON form and their DataHash.
//
// ParseYaml reads with libfyaml and resolves scalars per the YAML 1.2 core schema (see
// scalar.h); EmitYaml writes block-style YAML that ParseYaml reads back to equal Nodes; the
// JSON renderings (CanonicalJson, EmitJson) are declared in json.h, included here.
//
// All functions are pure and thread-safe; each call uses its own libfyaml parser, and nothing
// is ever printed (libfyaml's diagnostics are captured into the returned Status).

#ifndef CUB_LIB_CONFIG_YAML_H_
#define CUB_LIB_CONFIG_YAML_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/json.h"
#include "lib/config/node.h"

namespace cub::config {

// Parses a YAML stream (JSON is a subset) into its documents, in order. Documents are
// separated by `---`; empty ones (nothing but comments or whitespace) are skipped, an explicit
// `null` document is kept. Anchors and aliases are resolved into copies.
//
// Single-quoted and block scalars are read from the source text per YAML 1.2 (scalar_text.h),
// working around libfyaml 0.7.12's misreadings of some of them.
//
// Supported: the core-schema tags !!str !!int !!float !!bool !!null !!seq !!map and the
// non-specific tag `!` (which makes a scalar a string). Mapping keys must be scalars and are
// kept as their text (`1: a` has the key "1"); `<<` is an ordinary key (merge keys are YAML
// 1.1, not 1.2).
//
// Comments are kept on the Nodes they belong to (Comments in node.h): whole-line comments as
// the head of the next mapping entry or sequence item (or the foot of the document, after its
// last one), and a comment ending a line as the line comment of the value on that line (or,
// after "key:", "-" or a block scalar header, of the value that starts next). Comments inside
// flow collections attach the same way; a comment before "---" belongs to the document above.
//
// Errors, all InvalidArgument with a message "yaml: line L, column C: <what>" (1-based):
// syntax errors as libfyaml reports them, malformed UTF-8 and control characters other than
// tab, LF and CR (YAML allows only printable characters), duplicate keys in a mapping,
// unknown aliases, other tags, non-scalar keys, a block scalar with lines below it indented as
// if they belonged to it (libfyaml 0.7.12 reads some such layouts differently from the spec;
// see scalar_text.h), nesting deeper than 1,000 sequences and mappings (Nodes are walked
// recursively), and aliases that would expand to more than 100,000 + 10 * text.size() nodes
// (a "billion laughs" guard).
absl::StatusOr<std::vector<Node>> ParseYaml(std::string_view text);

// Writes `docs` as block-style YAML, documents separated by "---" lines, ending in a newline
// ("" for no documents). Empty mappings and sequences are written "{}" and "[]"; sequences are
// indented two spaces under their key. A string keeps its StringStyle where that style can
// still represent it; otherwise, and for kAuto, it is written plain unless it would read back
// as another type (in YAML 1.2, or in YAML 1.1 as Kubernetes reads it: "yes", "0777"...) or
// contains special characters, in which case it is double-quoted; multi-line strings become
// literal block scalars (|, |-, |+) when their characters allow it. Comments are written back
// where ParseYaml found them: head comments on their own lines above the entry or item (above
// its "- " when the item's first entry shares that line), line comments after the value, or
// after "key:" / "-" for a block collection; the document's foot after its last line. So a
// text in this layout reads back with the same comments and writes out unchanged.
// Contract: ParseYaml(EmitYaml(docs)) == docs whenever all strings are valid UTF-8 (a null
// document is written "null", which reads back as a null document, not an empty one).
std::string EmitYaml(const std::vector<Node>& docs);

// "sha256:" followed by the lowercase hex SHA-256 of CanonicalJson(ParseYaml(yaml)): equal for
// any two texts that parse to equal documents (key order, indentation, flow or block style,
// comments, quoting of strings that are strings), different when any value differs.
// Fails as ParseYaml does.
absl::StatusOr<std::string> DataHash(std::string_view yaml);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_YAML_H_
