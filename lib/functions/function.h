// What a config function is and what running one returns: the spec shown by `cub function
// list|explain`, and the results of the three kinds of function (get reads values, set edits
// documents, vet validates them).
//
// Functions run over one Unit's parsed documents (std::vector<config::Node>, as ParseYaml
// returns them). A "resource" is a document that is a mapping with a string `kind`; functions
// that act on resources skip the other documents.
//
// Paths in results (Mutation::path, FoundValue::path, vet messages) are written in
// lib/config/path.h's merge-path syntax (see display_path.h): list items by name or position,
// keys with special characters quoted:
//   spec.template.spec.containers.name=web.env.name=LOG_LEVEL.value
//   spec.ports[0].port
//   metadata.labels."app.kubernetes.io/name"
// Function arguments that are paths (get-path, set-path) use path.h's dotted form instead.
//
// All types are plain values; copying copies everything.

#ifndef CUB_LIB_FUNCTIONS_FUNCTION_H_
#define CUB_LIB_FUNCTIONS_FUNCTION_H_

#include <cstddef>
#include <string>
#include <vector>

#include "lib/config/node.h"

namespace cub::functions {

enum class FunctionKind { kGet, kSet, kVet };

// "get", "set" or "vet", as the CLI verbs spell them.
const char* FunctionKindName(FunctionKind kind);

// One parameter of a function. `type` is one of:
//   "string"          any text (may be empty)
//   "int"             a decimal int64, optionally signed
//   "bool"            true or false
//   "enum(a|b|...)"   one of the listed words
//   "quantity"        a non-negative Kubernetes quantity: 100m, 0.5, 512Mi, 1G, 1e3
//   "image-reference" ":TAG", "@DIGEST" or ":TAG@DIGEST" (the part of an image after its
//                     repository)
//   "label-key"       a Kubernetes qualified name, optionally prefixed: app.kubernetes.io/name
//   "label-value"     up to 63 of [A-Za-z0-9-_.], starting and ending alphanumeric, or empty
//   "dns-label"       a lowercase RFC 1123 label (namespace names)
//   "path"            a lib/config/path.h dotted path
//   "yaml"            one YAML document (a scalar, flow sequence or flow mapping; JSON works)
//   "resource"        KIND or KIND/NAME, selecting resources of a Unit
//   "cel"             a CEL expression over the resource `r` that yields a bool
//                     (cel_resource.h); checked by compiling it
// Arguments are checked against the type before a function runs (see arguments.h).
struct ParameterSpec {
  std::string name;  // kebab-case, as named arguments spell it: "container-name"
  std::string type;
  bool required = true;
  std::string description;  // one sentence
};

struct FunctionSpec {
  std::string name;  // "set-image-reference-by-uri"
  FunctionKind kind = FunctionKind::kGet;
  std::string toolchain;  // "Kubernetes/YAML"
  std::string description;
  // Required parameters come first; positional arguments bind in this order.
  std::vector<ParameterSpec> parameters;

  // The usage line: the name, then each required parameter in upper case, then each optional
  // one as [--name=NAME]:
  //   "set-container-resources CONTAINER-NAME [--cpu-request=CPU-REQUEST] ..."
  std::string Signature() const;

  // What `cub function explain` prints: signature, description, then one line per parameter
  // with its type, whether it is required, and its description; ends with a newline.
  std::string Explain() const;
};

// One value a set function changed. Values are compact JSON (config::EmitJson); an empty
// old_value means the value did not exist before (the function added it).
struct Mutation {
  size_t document = 0;   // index into the Unit's documents
  std::string resource;  // "Deployment/web" (see ResourceLabel in kubernetes.h)
  std::string path;      // display path of the value that changed or was added
  std::string old_value;
  std::string new_value;
};

// One value a get function found.
struct FoundValue {
  size_t document = 0;
  std::string resource;
  std::string path;   // display path
  std::string value;  // compact JSON
};

struct GetResult {
  std::vector<FoundValue> values;  // in document order, then in document-tree order
};

struct SetResult {
  std::vector<config::Node> docs;   // all documents, edited in place, in their original order
  std::vector<Mutation> mutations;  // in the order the edits were made
  // How many places the function applied to (containers, resources, ...), changed or not: a
  // set with matched == 0 found nothing to act on, one with changed == false and matched > 0
  // found everything already set.
  size_t matched = 0;
  bool changed = false;  // == !mutations.empty()
};

struct VetResult {
  bool passed = true;               // == errors.empty()
  std::vector<std::string> errors;  // "Deployment/web: spec.replicas: expected ..."
};

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_FUNCTION_H_
