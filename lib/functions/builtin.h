// Internal to lib/functions: how the built-in functions plug into the Registry. Each source
// file of functions appends its functions' specs and implementations.
//
// An implementation is called only with Arguments bound for its own spec (types already
// checked). When it returns an error the Registry discards its result, so it may stop
// partway, with documents half-edited.

#ifndef CUB_LIB_FUNCTIONS_BUILTIN_H_
#define CUB_LIB_FUNCTIONS_BUILTIN_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "lib/config/node.h"
#include "lib/functions/arguments.h"
#include "lib/functions/function.h"

namespace cub::functions::internal {

inline constexpr char kKubernetesYaml[] = "Kubernetes/YAML";

using GetFn = absl::Status (*)(const Arguments& args, const std::vector<config::Node>& docs,
                               GetResult* result);
// Edits result->docs (the Unit's documents) in place, recording mutations and matches.
using SetFn = absl::Status (*)(const Arguments& args, SetResult* result);
// Appends to result->errors; the Registry sets `passed`.
using VetFn = absl::Status (*)(const Arguments& args, const std::vector<config::Node>& docs,
                               VetResult* result);

// Exactly one of get, set, vet is set, matching spec.kind.
struct Function {
  FunctionSpec spec;
  GetFn get = nullptr;
  SetFn set = nullptr;
  VetFn vet = nullptr;
};

// A parameter, for the tables of specs.
inline ParameterSpec Param(std::string name, std::string type, std::string description,
                           bool required = true) {
  return ParameterSpec{std::move(name), std::move(type), required, std::move(description)};
}

// A Function of the Kubernetes/YAML toolchain with no implementation set yet.
inline Function Define(std::string name, FunctionKind kind, std::string description,
                       std::vector<ParameterSpec> parameters) {
  Function f;
  f.spec = {std::move(name), kind, kKubernetesYaml, std::move(description), std::move(parameters)};
  return f;
}

void AddContainerFunctions(std::vector<Function>* out);  // container_functions.cc
void AddEnvFunctions(std::vector<Function>* out);        // env_functions.cc
void AddMetadataFunctions(std::vector<Function>* out);   // metadata_functions.cc
void AddPathFunctions(std::vector<Function>* out);       // path_functions.cc
void AddReplicaFunctions(std::vector<Function>* out);    // replica_functions.cc
void AddResourceFunctions(std::vector<Function>* out);   // resource_functions.cc
void AddVetCel(std::vector<Function>* out);              // vet_cel.cc
void AddVetFormat(std::vector<Function>* out);           // vet_format.cc
void AddVetSchemas(std::vector<Function>* out);          // vet_schemas.cc

}  // namespace cub::functions::internal

#endif  // CUB_LIB_FUNCTIONS_BUILTIN_H_
