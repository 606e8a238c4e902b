// Environment variable functions: set-env-var and get-env-var, over the `env` list of a
// container (or init container), whose items are keyed by `name`.

#include <string>

#include "lib/functions/builtin.h"
#include "lib/functions/display_path.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/results.h"

namespace cub::functions::internal {
namespace {

using config::Node;

Node* FindEnv(Node& env, std::string_view var) {
  for (Node& item : env.MutableSequence()) {
    const Node* name = item.Find("name");
    if (name != nullptr && name->IsString() && name->AsString() == var) return &item;
  }
  return nullptr;
}

absl::Status SetEnvVar(const Arguments& args, SetResult* result) {
  const std::string& name = args.Text("container-name");
  const std::string& var = args.Text("var");
  const std::string& value = args.Text("value");
  if (var.empty() || var.find('=') != std::string::npos) {
    return UsageError(args.spec(), "var must be a non-empty name without '=', got '" + var + "'");
  }
  absl::Status status;
  for (size_t i = 0; i < result->docs.size() && status.ok(); ++i) {
    Node& doc = result->docs[i];
    DocumentEdits edits(doc, i, result);
    ForEachContainer(doc, [&](Node& container, auto&& path_fn) {
      if (!status.ok() || !ContainerNamed(container, name)) return;
      edits.Matched();
      std::string path = path_fn() + ".env";
      Node* env = container.Find("env");
      if (env != nullptr && !env->IsSequence() && !env->IsNull()) {
        status = edits.Error(path, "expected a sequence, got " + DescribeValue(*env));
        return;
      }
      if (env == nullptr) env = &container.Set("env", Node::Seq());
      AppendSelector(&path, "name", var);
      Node* item = env->IsSequence() ? FindEnv(*env, var) : nullptr;
      if (item == nullptr) {
        Node entry = Node::Map({{"name", Node::String(var)}, {"value", Node::String(value)}});
        edits.Added(std::move(path), env->Append(std::move(entry)));
      } else if (item->Find("valueFrom") != nullptr) {
        // value and valueFrom exclude each other: the variable becomes a plain value.
        Node entry = Node::Map({{"name", Node::String(var)}, {"value", Node::String(value)}});
        edits.Assign(*item, std::move(entry), [&] { return path; });
      } else if (Node* current = item->Find("value")) {
        edits.Assign(*current, Node::String(value), [&] { return path + ".value"; });
      } else {
        edits.Added(path + ".value", item->Set("value", Node::String(value)));
      }
    });
  }
  return status;
}

absl::Status GetEnvVar(const Arguments& args, const std::vector<Node>& docs, GetResult* result) {
  const std::string& name = args.Text("container-name");
  const std::string& var = args.Text("var");
  for (size_t i = 0; i < docs.size(); ++i) {
    ForEachContainer(docs[i], [&](const Node& container, auto&& path_fn) {
      if (name != "*" && !ContainerNamed(container, name)) return;
      const Node* env = container.Find("env");
      if (env == nullptr || !env->IsSequence()) return;
      for (const Node& item : env->AsSequence()) {
        const Node* item_name = item.Find("name");
        if (item_name == nullptr || !item_name->IsString() || item_name->AsString() != var) {
          continue;
        }
        for (const char* field : {"value", "valueFrom"}) {
          if (const Node* v = item.Find(field)) {
            std::string path = path_fn() + ".env";
            AppendSelector(&path, "name", var);
            AddFound(docs[i], i, JoinKey(path, field), *v, result);
          }
        }
        break;
      }
    });
  }
  return absl::OkStatus();
}

}  // namespace

void AddEnvFunctions(std::vector<Function>* out) {
  {
    Function f;
    f.spec = {"set-env-var",
              FunctionKind::kSet,
              kKubernetesYaml,
              "Sets an environment variable of the named container (or init container) in every "
              "workload: changes its value where the variable exists (a valueFrom is replaced by "
              "the value), or appends it to the end of the env list.",
              {Param("container-name", "string", "The container's name."),
               Param("var", "string", "The variable's name."),
               Param("value", "string", "The variable's value.")}};
    f.set = SetEnvVar;
    out->push_back(std::move(f));
  }
  {
    Function f;
    f.spec = {"get-env-var",
              FunctionKind::kGet,
              kKubernetesYaml,
              "Reads an environment variable of the named container (or init container) of "
              "every workload: its value, or its valueFrom.",
              {Param("container-name", "string", "The container's name, or '*' for every one."),
               Param("var", "string", "The variable's name.")}};
    f.get = GetEnvVar;
    out->push_back(std::move(f));
  }
}

}  // namespace cub::functions::internal
