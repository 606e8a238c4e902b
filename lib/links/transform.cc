#include "lib/links/transform.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/config/documents.h"
#include "lib/config/path.h"
#include "lib/functions/registry.h"
#include "lib/links/resource.h"
#include "lib/links/validate.h"
#include "lib/util/status_macros.h"

namespace cub::links {
namespace {

using config::Node;

absl::Status SetterError(size_t i, const DownstreamSetter& setter, const absl::Status& s) {
  return absl::Status(s.code(), absl::StrCat("DownstreamSetters[", i, "] (", setter.function_name,
                                             "): ", s.message()));
}

// The function's arguments for `setter`, templates filled in from `values`.
absl::StatusOr<functions::Arguments> BindSetter(size_t i, const DownstreamSetter& setter,
                                                const Values& values) {
  std::vector<std::pair<std::string, std::string>> named;
  for (const SetterArgument& arg : setter.arguments) {
    absl::StatusOr<std::string> text = ArgumentText(arg, values);
    if (!text.ok()) return SetterError(i, setter, text.status());
    named.emplace_back(arg.parameter_name, *std::move(text));
  }
  absl::StatusOr<functions::Arguments> args =
      functions::Registry::Default().Bind(setter.function_name, named);
  if (!args.ok()) return SetterError(i, setter, args.status());
  return args;
}

}  // namespace

absl::StatusOr<Values> ReadValues(const Definition& def, const std::vector<Node>& upstream) {
  Values values;
  for (const UpstreamPath& up : def.upstream_paths) {
    auto fail = [&up](absl::string_view problem) {
      return absl::FailedPreconditionError(absl::StrCat("UpstreamPath '", up.name, "': ", problem));
    };
    absl::StatusOr<size_t> index = FindResource(upstream, up.resource);
    if (!index.ok()) return fail(index.status().message());
    absl::StatusOr<config::Path> path = ParseValuePath(up.path);
    if (!path.ok()) return fail(absl::StrCat("path '", up.path, "': ", path.status().message()));
    const Node* value = FindValue(upstream[*index], *path);
    std::optional<std::string> text;
    if (value != nullptr) text = ValueText(*value);
    if (!text) {
      return fail(absl::StrCat("no value at ", up.path, " in ", DescribeResource(up.resource),
                               " of the upstream unit"));
    }
    values[up.name] = *std::move(text);
  }
  return values;
}

absl::StatusOr<TransformResult> ApplySetters(const Definition& def, const Values& values,
                                             std::vector<Node> docs) {
  TransformResult out;
  out.docs = std::move(docs);
  for (size_t i = 0; i < def.setters.size(); ++i) {
    const DownstreamSetter& setter = def.setters[i];
    CUB_ASSIGN_OR_RETURN(functions::Arguments args, BindSetter(i, setter, values));
    // Set consumes its documents and returns them only on success; a failure fails the whole
    // transform, so nothing needs keeping.
    absl::StatusOr<functions::SetResult> set =
        functions::Registry::Default().Set(args, std::move(out.docs));
    if (!set.ok()) return SetterError(i, setter, set.status());
    out.docs = std::move(set->docs);
    for (auto& m : set->mutations) out.mutations.push_back(std::move(m));
  }
  out.changed = !out.mutations.empty();
  return out;
}

absl::StatusOr<std::vector<std::string>> SetterPaths(const Definition& def, const Values& values,
                                                     const std::vector<Node>& docs) {
  CUB_ASSIGN_OR_RETURN(TransformResult r, ApplySetters(def, values, docs));
  std::vector<config::DocumentRef> refs = config::DocumentRefs(docs);
  std::vector<std::string> paths;
  for (const functions::Mutation& m : r.mutations) {
    absl::StatusOr<config::Path> path = config::ParsePath(m.path);
    if (!path.ok() || m.document >= refs.size()) {
      return absl::InternalError(
          absl::StrCat("setter path '", m.path, "' does not parse: ", path.status().message()));
    }
    path->document = refs[m.document];
    paths.push_back(config::FormatPath(*path));
  }
  return paths;
}

}  // namespace cub::links
