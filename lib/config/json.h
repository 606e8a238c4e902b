// JSON renderings of Nodes: the canonical form that DataHash digests, and the readable form
// used for `-o json` output and as the value model handed to CEL.
//
// Pure functions; thread-safe. Strings are written as their UTF-8 bytes, escaping only '"',
// '\\' and control characters below U+0020, so the output is valid JSON for any Node whose
// strings are valid UTF-8 (everything ParseYaml returns).

#ifndef CUB_LIB_CONFIG_JSON_H_
#define CUB_LIB_CONFIG_JSON_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/node.h"

namespace cub::config {

// A compact JSON array of `docs` in which two sets of documents that are equal as Nodes
// (operator==, element by element) produce identical bytes, and unequal ones differ:
//   - no whitespace; mapping keys sorted bytewise (entries with equal keys, possible only in
//     hand-built Nodes, keep their order);
//   - ints in decimal; floats as FormatFloat spells them, so a float always carries a '.'
//     and never collides with an int; non-finite floats as the bare tokens Infinity,
//     -Infinity and NaN (not strict JSON, but unambiguous: this text is for hashing and
//     comparing, not for other parsers);
//   - control characters as \b \f \n \r \t or \u00XX (lowercase hex).
// The format is part of every stored DataHash: changing it changes every hash.
std::string CanonicalJson(const std::vector<Node>& docs);

// `node` as JSON with mapping keys in document order. Compact, or with `pretty` two-space
// indentation and ": " after keys (empty mappings and sequences stay "{}" and "[]"). No
// trailing newline. Non-finite floats become the strings ".inf", "-.inf" and ".nan", since
// JSON has no spelling for them.
std::string EmitJson(const Node& node, bool pretty);

// One JSON text (RFC 8259; an object naming a key twice is refused, as ParseJson does) as the
// Node ParseYaml would read it into, without comments: for JSON that programs wrote (signed
// statements), which this reads two to three times faster than libfyaml. Strings keep the
// double-quoted style; integers beyond int64 become floats. Nesting deeper than 1,000 is
// refused, as in ParseYaml. Errors: InvalidArgument "json: <what>".
absl::StatusOr<Node> ParseJsonNode(std::string_view text);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_JSON_H_
