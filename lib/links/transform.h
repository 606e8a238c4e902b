// What a TransformPaths Link does to its downstream Unit: read each UpstreamPath's value from
// the upstream Unit's documents, then run each DownstreamSetter's set function, with its
// arguments' templates filled from those values, over the downstream Unit's documents.
//
// Typical use (lib/ops/resolve.cc):
//   absl::StatusOr<Values> values = ReadValues(def, upstream_docs);
//   absl::StatusOr<TransformResult> r = ApplySetters(def, *values, std::move(downstream_docs));
//   if (r->changed) write(config::EmitYaml(r->docs));
//
// Pure functions; thread-safe. The definition must have passed ValidateDefinition.

#ifndef CUB_LIB_LINKS_TRANSFORM_H_
#define CUB_LIB_LINKS_TRANSFORM_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/node.h"
#include "lib/functions/function.h"
#include "lib/links/definition.h"

namespace cub::links {

// UpstreamPath name -> the value's text (ValueText in resource.h).
using Values = std::map<std::string, std::string>;

// The value of every UpstreamPath in `upstream` (a Unit's documents). FailedPrecondition naming
// the UpstreamPath, its path and its resource when the resource is missing or ambiguous, or
// the value is missing or null:
//   "UpstreamPath 'tag': no value at streams.stable.tag in registrybot.confighub.com/v1alpha4
//    named acme"
absl::StatusOr<Values> ReadValues(const Definition& def, const std::vector<config::Node>& upstream);

struct TransformResult {
  std::vector<config::Node> docs;              // the downstream documents, edited
  std::vector<functions::Mutation> mutations;  // every setter's, in order
  bool changed = false;
};

// Runs the setters in order over `docs`, each seeing the previous one's edits. Errors are the
// functions' (arguments refused for their type once the templates are filled in, a document
// whose shape prevents the edit), prefixed with "DownstreamSetters[N] (FUNCTION): ".
absl::StatusOr<TransformResult> ApplySetters(const Definition& def, const Values& values,
                                             std::vector<config::Node> docs);

// The places of `docs` where ApplySetters with `values` would write a value other than the one
// there, as merge paths with a document part (lib/config/path.h), for example
//   apps/v1/Deployment//acme:spec.template.spec.containers.name=acme.image
// (a document without a Kubernetes identity is named by its position among such documents,
// "[0]:..."). Upgrades hold these against the upstream for a Protect Link: given the upstream
// states of the merge range, they are exactly the places where the merge would carry in a
// value other than the one the Link wrote.
absl::StatusOr<std::vector<std::string>> SetterPaths(const Definition& def, const Values& values,
                                                     const std::vector<config::Node>& docs);

}  // namespace cub::links

#endif  // CUB_LIB_LINKS_TRANSFORM_H_
