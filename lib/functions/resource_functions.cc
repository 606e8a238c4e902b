// set-container-resources: CPU and memory requests and limits of a named container.

#include <string>

#include "lib/config/scalar.h"
#include "lib/functions/builtin.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/results.h"

namespace cub::functions::internal {
namespace {

using config::Node;

struct Setting {
  const char* parameter;
  const char* section;  // requests or limits
  const char* resource;
};
constexpr Setting kSettings[] = {
    {"cpu-request", "requests", "cpu"},
    {"memory-request", "requests", "memory"},
    {"cpu-limit", "limits", "cpu"},
    {"memory-limit", "limits", "memory"},
};

// The value to store for quantity `text`: a string, unless the manifest already holds the
// same number unquoted (`cpu: 1`), which is then kept as it is.
Node QuantityValue(const std::string& text, const Node* current) {
  if (current != nullptr && (current->IsInt() || current->IsFloat()) &&
      config::ResolvePlainScalar(text) == *current) {
    return *current;
  }
  return Node::String(text);
}

absl::Status SetContainerResources(const Arguments& args, SetResult* result) {
  bool any = false;
  for (const Setting& s : kSettings) any = any || args.Has(s.parameter);
  if (!any) {
    return UsageError(args.spec(),
                      "give at least one of --cpu-request, --memory-request, --cpu-limit, "
                      "--memory-limit");
  }
  const std::string& name = args.Text("container-name");
  absl::Status status;
  for (size_t i = 0; i < result->docs.size() && status.ok(); ++i) {
    Node& doc = result->docs[i];
    DocumentEdits edits(doc, i, result);
    ForEachContainer(doc, [&](Node& container, auto&& path_fn) {
      if (!status.ok() || !ContainerNamed(container, name)) return;
      edits.Matched();
      const std::string path = path_fn();
      for (const Setting& s : kSettings) {
        if (!args.Has(s.parameter)) continue;
        const Node* resources = container.Find("resources");
        const Node* section = resources == nullptr ? nullptr : resources->Find(s.section);
        const Node* current = section == nullptr ? nullptr : section->Find(s.resource);
        status = edits.SetIn(container, path, {"resources", s.section, s.resource},
                             QuantityValue(args.Text(s.parameter), current));
        if (!status.ok()) return;
      }
    });
  }
  return status;
}

}  // namespace

void AddResourceFunctions(std::vector<Function>* out) {
  Function f = Define(
      "set-container-resources", FunctionKind::kSet,
      "Sets CPU and memory requests and limits (resources.requests and resources.limits) of "
      "the named container (or init container) in every workload. Give at least one quantity, "
      "by name (--cpu-limit=500m) or in the order of the signature; the others are left as "
      "they are.",
      {Param("container-name", "string", "The container's name."),
       Param("cpu-request", "quantity", "CPU request: 250m, 0.5, 2.", false),
       Param("memory-request", "quantity", "Memory request: 256Mi, 1Gi, 512M.", false),
       Param("cpu-limit", "quantity", "CPU limit.", false),
       Param("memory-limit", "quantity", "Memory limit.", false)});
  f.set = SetContainerResources;
  out->push_back(std::move(f));
}

}  // namespace cub::functions::internal
