// Finding things in a Unit's documents for Links: the resource an UpstreamPath names, the value
// at its path, and the identity Insert and Upsert match resources by.
//
// A resource is named by a ResourceRef (definition.h). Its type matches a document whose
//   - configHub.configSchema equals it    (registrybot.confighub.com/v1alpha4), or
//   - "apiVersion/kind" equals it          (apps/v1/Deployment, v1/ConfigMap), or
//   - apiVersion equals it                 (for documents named by apiVersion alone);
// its name, when not empty, matches a document whose
//   - metadata.name equals it, or "metadata.namespace/metadata.name" does, or
//   - configHub.configName equals it.
// Both empty name the Unit's only document. ConfigHub documents (configHub.configSchema and
// configName, no apiVersion/kind) and Kubernetes resources are thus named the same way.
//
// Identity for Insert and Upsert (ResourceIdentity): a document with a Kubernetes identity
// (apiVersion, kind, metadata.namespace, metadata.name; see lib/config/documents.h) is known
// by it; else one with configHub.configSchema and configName by those two; else it has none.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_LINKS_RESOURCE_H_
#define CUB_LIB_LINKS_RESOURCE_H_

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/node.h"
#include "lib/config/path.h"
#include "lib/links/definition.h"

namespace cub::links {

// Whether document `doc` is the resource `ref` names (see the file comment; an empty ref
// matches every non-null document).
bool ResourceMatches(const config::Node& doc, const ResourceRef& ref);

// The index in `docs` of the one document `ref` names. FailedPrecondition when none matches
// ("no resource registrybot.confighub.com/v1alpha4 named acme") or more than one does
// ("2 resources of type v1/ConfigMap match; name one with ResourceName").
absl::StatusOr<size_t> FindResource(const std::vector<config::Node>& docs, const ResourceRef& ref);

// "registrybot.confighub.com/v1alpha4 named acme", "the only document": how messages name `ref`.
std::string DescribeResource(const ResourceRef& ref);

// Parses an UpstreamPath's Path: a merge path (lib/config/path.h) naming one value, so with no
// document part, no wildcard, and at least one segment. InvalidArgument saying which rule
// failed.
absl::StatusOr<config::Path> ParseValuePath(std::string_view text);

// The node at `path` under `root` (keys, [N] positions, and field=value selectors, which take
// the first matching item), or nullptr when the path leads nowhere.
// Precondition: `path` came from ParseValuePath (no document part, no wildcard).
const config::Node* FindValue(const config::Node& root, const config::Path& path);

// The text a setter argument gets from a value: a string as is, another scalar as JSON (3,
// true, 1.5), a mapping or a sequence as compact JSON. Null gives nullopt.
std::optional<std::string> ValueText(const config::Node& value);

// A key equal for two documents exactly when Insert and Upsert treat them as the same
// resource, or nullopt for a document with no identity.
std::optional<std::string> ResourceIdentity(const config::Node& doc);

}  // namespace cub::links

#endif  // CUB_LIB_LINKS_RESOURCE_H_
