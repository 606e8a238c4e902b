// Which document of a multi-document Unit is which, so that a base, a new upstream revision
// and every downstream variant can be lined up document by document (diff.h, merge.h).
//
// A document is known by its Kubernetes identity: apiVersion, kind, metadata.namespace and
// metadata.name. Documents that have none (not mappings, or missing one of those fields) are
// known by their order among such documents.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_CONFIG_DOCUMENTS_H_
#define CUB_LIB_CONFIG_DOCUMENTS_H_

#include <optional>
#include <string>
#include <vector>

#include "lib/config/node.h"
#include "lib/config/path.h"

namespace cub::config {

// The DocumentRef of each document of `docs`, in order. A mapping whose apiVersion, kind and
// metadata.name are strings has its Kubernetes identity (namespace_name is metadata.namespace
// when that is a string, else ""); every other document gets the next ordinal (0, 1, ...)
// among such documents.
std::vector<DocumentRef> DocumentRefs(const std::vector<Node>& docs);

// The Kubernetes identity of `doc` as DocumentRefs defines it, or nullopt if it has none.
std::optional<DocumentRef> KubernetesRef(const Node& doc);

// A string equal for two DocumentRefs exactly when they are equal, for hashing.
std::string DocumentKey(const DocumentRef& ref);

// Whether `pattern` names the document `ref`: every field equal, except that a pattern field
// "*" matches any value (for apiVersion: "*" matches any, "apps/*" any version of a group,
// "*/v1" any group at v1). An ordinal matches only the same ordinal.
bool DocumentMatches(const DocumentRef& pattern, const DocumentRef& ref);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_DOCUMENTS_H_
