// The function registry: which functions exist (`cub function list|explain`) and running
// them over a Unit's documents (`cub function get|set|vet`). This is the pure engine; the
// server and CLI supply the documents and store the results.
//
// Typical use, parsing the arguments once and applying them to many Units:
//   const Registry& registry = Registry::Default();
//   absl::StatusOr<Arguments> args = registry.Parse(
//       "set-image-reference-by-uri", {"ghcr.io/acme/acme", ":v452"});
//   for (...each unit...) {
//     absl::StatusOr<SetResult> r = registry.Set(*args, std::move(docs));
//     if (r.ok() && r->changed) store(config::EmitYaml(r->docs), r->mutations);
//   }
//
// The built-in functions (all of toolchain "Kubernetes/YAML"; `explain` documents each):
//   get-container-image CONTAINER-NAME           set-container-image CONTAINER-NAME IMAGE
//   set-container-image-reference CONTAINER-NAME IMAGE-REFERENCE
//   set-image-reference-by-uri REPOSITORY-URI IMAGE-REFERENCE
//   get-env-var CONTAINER-NAME VAR               set-env-var CONTAINER-NAME VAR VALUE
//   set-container-resources CONTAINER-NAME [--cpu-request=..] [--memory-request=..]
//                                              [--cpu-limit=..] [--memory-limit=..]
//   get-replicas                                 set-replicas REPLICAS
//   get-label KEY                                set-label KEY VALUE
//   get-annotation KEY                           set-annotation KEY VALUE
//   set-namespace NAMESPACE
//   get-path PATH [--resource=RESOURCE]          set-path PATH VALUE [--resource=RESOURCE]
//   vet-format      vet-schemas      vet-cel EXPRESSION
//
// Contracts of every function:
//   - Set functions edit only what they report: document order, key order, the quoting of
//     strings they do not touch, and every other value stay as they were, so EmitYaml of the
//     result differs from EmitYaml of the input only at the reported mutations. A set that
//     finds every value already in place reports changed == false and no mutations.
//   - Absent targets are not errors: a set function that finds no container of that name
//     changes nothing (matched == 0); a get function that finds nothing returns no values.
//   - Errors: NotFound for an unknown function; InvalidArgument for refused arguments, with
//     the signature (arguments.h); InvalidArgument when a function is run as another kind
//     ("get-replicas is a get function"); FailedPrecondition when a document's shape prevents
//     an edit (an `env` that is not a list), naming the resource and path. Set takes its
//     documents by value and returns them only on success: pass a copy (or keep the parsed
//     originals) where a failure must leave the Unit's documents at hand.
//
// Thread-safe: a Registry is immutable after construction; Default() is built on first use.

#ifndef CUB_LIB_FUNCTIONS_REGISTRY_H_
#define CUB_LIB_FUNCTIONS_REGISTRY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lib/config/node.h"
#include "lib/functions/arguments.h"
#include "lib/functions/function.h"

namespace cub::functions {

namespace internal {
struct Function;
}

class Registry {
 public:
  // The registry of the built-in functions, alive for the whole program.
  static const Registry& Default();

  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;
  ~Registry();

  // The function named `name`, or nullptr.
  const FunctionSpec* Find(std::string_view name) const;

  // The functions of a toolchain ("Kubernetes/YAML"; "" for all), sorted by name.
  std::vector<const FunctionSpec*> List(std::string_view toolchain) const;

  // Binds arguments for a function: ParseArguments for the command-line form, BindArguments
  // for arguments by name. NotFound for an unknown function.
  absl::StatusOr<Arguments> Parse(std::string_view function,
                                  const std::vector<std::string>& args) const;
  absl::StatusOr<Arguments> Bind(
      std::string_view function,
      const std::vector<std::pair<std::string, std::string>>& named) const;

  // Runs a function of the matching kind over a Unit's documents. `args` must come from this
  // registry's Parse or Bind (or ParseArguments over one of its specs).
  absl::StatusOr<GetResult> Get(const Arguments& args, const std::vector<config::Node>& docs) const;
  absl::StatusOr<SetResult> Set(const Arguments& args, std::vector<config::Node> docs) const;
  absl::StatusOr<VetResult> Vet(const Arguments& args, const std::vector<config::Node>& docs) const;

  // Vet over a Unit's YAML text: text that does not parse fails the vet with the parser's
  // message as its one error, instead of being an error of the call.
  absl::StatusOr<VetResult> VetYaml(const Arguments& args, std::string_view yaml) const;

 private:
  explicit Registry(std::vector<internal::Function> functions);
  const internal::Function* FindFunction(std::string_view name) const;
  absl::StatusOr<const internal::Function*> ForKind(const Arguments& args, FunctionKind kind) const;

  std::vector<internal::Function> functions_;  // sorted by name
};

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_REGISTRY_H_
