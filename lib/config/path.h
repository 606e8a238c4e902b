// Paths into documents, in two syntaxes:
//
// 1. Dotted paths (SplitPath, GetPath, SetPath), for functions that read or set one value:
//    "spec.replicas", "spec.template.spec.containers.0.image". Segments are separated by '.';
//    a segment indexes a mapping by key, or a sequence by a decimal index. "\." is a literal
//    dot and "\\" a backslash: "metadata.annotations.app\.kubernetes\.io/name". The empty
//    path names the root.
//
// 2. Merge paths (ParsePath, FormatPath): the paths of Mutations, Conflicts and protected
//    paths (diff.h, merge.h, protection.h). They name list items by a field value rather than
//    by position, so a path stays valid in every variant of a document, and may name the
//    document of a multi-document Unit:
//
//      spec.replicas
//      spec.template.spec.containers.name=web.image
//      spec.template.spec.containers.name=web.ports.containerPort=8080
//      metadata.annotations."app.kubernetes.io/name"
//      spec.template.spec.containers[0].args[1]
//      apps/v1/Deployment/prod/web:spec.replicas
//      v1/Namespace//prod:metadata.labels
//      **.metadata.labels.team
//
//    Grammar:
//      path      = [ document ":" ] [ first { "." segment | index } ]
//      first     = segment | index
//      segment   = name                  a mapping key
//                | name "=" name         the item of a sequence of mappings whose field
//                                        <name> has the text <name> (see ScalarText)
//                | "*"                   any one key or item (patterns only)
//                | "**"                  any run of zero or more keys or items (patterns only)
//      index     = "[" digits "]"        a sequence item by position
//      name      = bare | quoted
//      bare      = one or more characters other than . [ ] = " \ : (and, in a document
//                  part, /); "\" followed by any character stands for that character
//      quoted    = '"' { character other than " and \ | "\" character } '"'
//      document  = part "/" part "/" part "/" part           apiVersion/kind/namespace/name
//                | part "/" part "/" part "/" part "/" part  group/version/kind/namespace/name
//                | "[" digits "]"    the N-th (0-based) document that has no Kubernetes
//                                    identity (see DocumentRefs in documents.h)
//      part      = bare | quoted | empty (an empty namespace: cluster-scoped objects)
//    Whitespace is never skipped: it is part of a bare name. A bare "*" or "**" segment is a
//    wildcard; the quoted "*" is the key "*". In a document part, a bare "*" matches any value
//    (Kubernetes names never contain '*'); for the apiVersion, "*" matches any apiVersion.
//    FormatPath quotes a name whenever it is empty or holds a special character, whitespace or
//    a control character, so ParsePath(FormatPath(p)) == p for every Path p.
//
// Pure functions; thread-safe for distinct roots.

#ifndef CUB_LIB_CONFIG_PATH_H_
#define CUB_LIB_CONFIG_PATH_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lib/config/node.h"

namespace cub::config {

// ---- Dotted paths ----

// Splits a path into its unescaped segments. InvalidArgument on a dangling '\' or an escape
// other than "\." and "\\".
absl::StatusOr<std::vector<std::string>> SplitPath(std::string_view path);

// The node at `path` under `root`, or nullptr if the path is malformed or leads nowhere.
const Node* GetPath(const Node& root, std::string_view path);

// Sets the node at `path` to `value`. Missing mapping entries along the way are created (a
// null on the way becomes a mapping); sequences are never grown: an index must exist. The
// replaced node's comments are kept when `value` has none.
// InvalidArgument for a malformed path or an index that is out of range or not a number;
// FailedPrecondition when the path goes through a scalar.
absl::Status SetPath(Node& root, std::string_view path, Node value);

// ---- Merge paths ----

struct PathSegment {
  enum class Kind : uint8_t { kKey, kIndex, kSelector, kAny, kAnyDepth };

  static PathSegment Key(std::string key);
  static PathSegment Index(size_t index);
  static PathSegment Selector(std::string field, std::string value);
  static PathSegment Any();
  static PathSegment AnyDepth();

  Kind kind = Kind::kKey;
  std::string key;    // kKey: the mapping key; kSelector: the field's name
  std::string value;  // kSelector: the field's value, as ScalarText spells it
  size_t index = 0;   // kIndex

  friend bool operator==(const PathSegment& a, const PathSegment& b);
  friend bool operator!=(const PathSegment& a, const PathSegment& b) { return !(a == b); }
};

// Names one document of a Unit: by its Kubernetes identity, or by position among the
// documents that have none.
struct DocumentRef {
  std::string api_version;  // "apps/v1"
  std::string kind;
  std::string namespace_name;  // "" for cluster-scoped objects or when unset
  std::string name;
  // Set for a document without a Kubernetes identity; the identity fields are then empty.
  std::optional<size_t> ordinal;

  friend bool operator==(const DocumentRef& a, const DocumentRef& b);
  friend bool operator!=(const DocumentRef& a, const DocumentRef& b) { return !(a == b); }
};

struct Path {
  std::optional<DocumentRef> document;  // absent: any document (patterns), or unqualified
  std::vector<PathSegment> segments;    // empty: the document's root

  // Whether the path holds a wildcard, in a segment or a document part.
  bool HasWildcard() const;

  friend bool operator==(const Path& a, const Path& b);
  friend bool operator!=(const Path& a, const Path& b) { return !(a == b); }
};

// Parses a merge path. InvalidArgument, naming the offset, for: an empty segment ("a..b",
// "a.", ".a"), an unterminated quote, a dangling '\', a ']' or '[' out of place, an index that
// is not decimal or overflows, a selector with an empty field or value (use "" quotes for an
// empty value), a second ':', or a document with other than 4 or 5 parts.
absl::StatusOr<Path> ParsePath(std::string_view text);

// Writes `path` in the syntax ParsePath reads (a document prefix when path.document is set).
std::string FormatPath(const Path& path);

// The text a scalar stands for in a selector ("name=web", "containerPort=8080") and as an
// item key when lists are merged: a string as is, an int in decimal, a bool as "true" or
// "false"; nullopt for other kinds (null, float, collections), which never select.
std::optional<std::string> ScalarText(const Node& n);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_PATH_H_
