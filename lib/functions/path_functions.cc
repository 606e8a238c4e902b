// get-path and set-path: any value, named by a lib/config/path.h dotted path
// ("spec.template.spec.containers.0.image"; "\." for a dot inside a key). These work on every
// document of a Unit, Kubernetes resources or not. Results name the value in the merge-path
// syntax of all results ("spec.template.spec.containers[0].image"), as display_path.h writes.

#include <string>

#include "lib/config/path.h"
#include "lib/config/yaml.h"
#include "lib/functions/builtin.h"
#include "lib/functions/display_path.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/results.h"

namespace cub::functions::internal {
namespace {

using config::Node;

// Plain strings from ParseYaml get kAuto instead, so the writer quotes values that a YAML 1.1
// reader (Kubernetes) would take for another type, such as "yes".
void PlainToAuto(Node& node) {
  if (node.IsString() && node.string_style() == config::StringStyle::kPlain) {
    node.set_string_style(config::StringStyle::kAuto);
  } else if (node.IsSequence()) {
    for (Node& item : node.MutableSequence()) PlainToAuto(item);
  } else if (node.IsMapping()) {
    for (auto& entry : node.MutableMapping()) PlainToAuto(entry.second);
  }
}

// The display path of dotted `path` (which leads to a value) in `root`.
std::string DisplayPath(const Node& root, std::string_view path) {
  absl::StatusOr<std::vector<std::string>> segments = config::SplitPath(path);
  std::string out;
  const Node* node = &root;
  for (const std::string& segment : *segments) {
    if (node != nullptr && node->IsSequence()) {
      out += "[" + segment + "]";
      node = config::GetPath(*node, segment);
    } else {
      AppendKey(&out, segment);
      node = node == nullptr ? nullptr : node->Find(segment);
    }
  }
  return out;
}

bool Selected(const Arguments& args, const Node& doc) {
  return !args.Has("resource") || MatchesResource(doc, args.Text("resource"));
}

absl::Status GetPathFn(const Arguments& args, const std::vector<Node>& docs, GetResult* result) {
  const std::string& path = args.Text("path");
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!Selected(args, docs[i])) continue;
    if (const Node* value = config::GetPath(docs[i], path)) {
      AddFound(docs[i], i, DisplayPath(docs[i], path), *value, result);
    }
  }
  return absl::OkStatus();
}

absl::Status SetPathFn(const Arguments& args, SetResult* result) {
  const std::string& path = args.Text("path");
  if (path.empty()) return UsageError(args.spec(), "path must not be empty");
  absl::StatusOr<std::vector<Node>> parsed = config::ParseYaml(args.Text("value"));
  if (!parsed.ok()) return UsageError(args.spec(), std::string(parsed.status().message()));
  Node value = parsed->empty() ? Node() : std::move(parsed->front());
  PlainToAuto(value);
  for (size_t i = 0; i < result->docs.size(); ++i) {
    Node& doc = result->docs[i];
    if (!Selected(args, doc)) continue;
    DocumentEdits edits(doc, i, result);
    // GetPath returns a const view into `doc`, which this function may edit.
    if (Node* current = const_cast<Node*>(config::GetPath(doc, path))) {
      edits.Matched();
      edits.Assign(*current, value, [&] { return DisplayPath(doc, path); });
    } else if (args.Has("resource")) {
      edits.Matched();
      const std::string label = edits.label();  // before the edit, which may rename
      if (absl::Status s = config::SetPath(doc, path, value); !s.ok()) {
        return absl::Status(s.code(), label + ": " + std::string(s.message()));
      }
      edits.Added(DisplayPath(doc, path), value);
    }
  }
  return absl::OkStatus();
}

}  // namespace

void AddPathFunctions(std::vector<Function>* out) {
  const ParameterSpec path =
      Param("path", "path",
            "A dotted path: spec.replicas, spec.template.spec.containers.0.image; a list item by "
            "its index; '\\.' for a dot inside a key.");
  const std::string resource_doc = "Only resources of this KIND or KIND/NAME: Deployment/web.";

  Function f = Define("get-path", FunctionKind::kGet,
                      "Reads the value at a path of every document (or of the selected "
                      "resources) where the path exists.",
                      {path, Param("resource", "resource", resource_doc, false)});
  f.get = GetPathFn;
  out->push_back(std::move(f));

  f = Define("set-path", FunctionKind::kSet,
             "Sets the value at a path. Without --resource, only documents where the path "
             "already exists are changed, so a field is never added to resources it does not "
             "belong to; with --resource, the selected resources get the path created (missing "
             "mappings are added; list indexes must exist).",
             {path,
              Param("value", "yaml",
                    "The value, read as YAML: 3 is an int, '\"3\"' a string, true a bool, "
                    "'[a, b]' a list, '{a: 1}' a mapping; empty is null."),
              Param("resource", "resource", resource_doc, false)});
  f.set = SetPathFn;
  out->push_back(std::move(f));
}

}  // namespace cub::functions::internal
