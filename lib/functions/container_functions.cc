// Container image functions: set-image-reference-by-uri, set-container-image-reference,
// set-container-image, get-container-image. Containers are found as kubernetes.h describes
// (containers and initContainers of every workload).

#include <string>

#include "lib/functions/builtin.h"
#include "lib/functions/image.h"
#include "lib/functions/kubernetes.h"
#include "lib/functions/results.h"

namespace cub::functions::internal {
namespace {

using config::Node;

// Replaces the reference part (tag and/or digest) of the image of each container that
// `select(container, repository)` accepts.
template <typename Select>
void SetImageReference(const std::string& reference, SetResult* result, Select&& select) {
  for (size_t i = 0; i < result->docs.size(); ++i) {
    Node& doc = result->docs[i];
    DocumentEdits edits(doc, i, result);
    ForEachContainer(doc, [&](Node& container, auto&& path_fn) {
      Node* image = container.Find("image");
      if (image == nullptr || !image->IsString()) return;
      const ImageParts parts = SplitImage(image->AsString());
      if (!select(container, parts.repository)) return;
      edits.Matched();
      std::string updated;
      updated.reserve(parts.repository.size() + reference.size());
      updated.append(parts.repository).append(reference);
      edits.Assign(*image, Node::String(std::move(updated)), [&] { return path_fn() + ".image"; });
    });
  }
}

absl::Status SetImageReferenceByUri(const Arguments& args, SetResult* result) {
  const std::string& uri = args.Text("repository-uri");
  if (uri.empty() || !SplitImage(uri).reference.empty()) {
    return UsageError(args.spec(),
                      "repository-uri must be a repository without a tag or "
                      "digest, got '" +
                          uri + "'");
  }
  const std::string normalized = NormalizeRepository(uri);
  SetImageReference(args.Text("image-reference"), result,
                    [&](const Node&, std::string_view repository) {
                      return repository == uri || NormalizeRepository(repository) == normalized;
                    });
  return absl::OkStatus();
}

absl::Status SetContainerImageReference(const Arguments& args, SetResult* result) {
  const std::string& name = args.Text("container-name");
  SetImageReference(
      args.Text("image-reference"), result,
      [&](const Node& container, std::string_view) { return ContainerNamed(container, name); });
  return absl::OkStatus();
}

absl::Status SetContainerImage(const Arguments& args, SetResult* result) {
  const std::string& name = args.Text("container-name");
  const std::string& image = args.Text("image");
  if (image.empty() || SplitImage(image).repository.empty()) {
    return UsageError(args.spec(), "image must name a repository, got '" + image + "'");
  }
  for (size_t i = 0; i < result->docs.size(); ++i) {
    Node& doc = result->docs[i];
    DocumentEdits edits(doc, i, result);
    ForEachContainer(doc, [&](Node& container, auto&& path_fn) {
      if (!ContainerNamed(container, name)) return;
      edits.Matched();
      if (Node* current = container.Find("image")) {
        edits.Assign(*current, Node::String(image), [&] { return path_fn() + ".image"; });
      } else {
        edits.Added(path_fn() + ".image", container.Set("image", Node::String(image)));
      }
    });
  }
  return absl::OkStatus();
}

absl::Status GetContainerImage(const Arguments& args, const std::vector<Node>& docs,
                               GetResult* result) {
  const std::string& name = args.Text("container-name");
  for (size_t i = 0; i < docs.size(); ++i) {
    ForEachContainer(docs[i], [&](const Node& container, auto&& path_fn) {
      const Node* image = container.Find("image");
      if (image == nullptr || (name != "*" && !ContainerNamed(container, name))) return;
      AddFound(docs[i], i, path_fn() + ".image", *image, result);
    });
  }
  return absl::OkStatus();
}

}  // namespace

void AddContainerFunctions(std::vector<Function>* out) {
  const std::string reference_doc =
      "The tag or digest with its separator: ':v452', '@sha256:<64 hex>', or ':v452@sha256:...'.";
  {
    Function f;
    f.spec = {"set-image-reference-by-uri",
              FunctionKind::kSet,
              kKubernetesYaml,
              "Sets the tag or digest of every container (and init container) of every workload "
              "whose image is from the given repository, keeping the repository as written. "
              "Repositories compare as a container runtime resolves them, so 'nginx' matches "
              "'docker.io/library/nginx'. Use it where a container is named differently across "
              "variants.",
              {Param("repository-uri", "string",
                     "The image repository, without tag or digest: ghcr.io/acme/acme."),
               Param("image-reference", "image-reference", reference_doc)}};
    f.set = SetImageReferenceByUri;
    out->push_back(std::move(f));
  }
  {
    Function f;
    f.spec = {"set-container-image-reference",
              FunctionKind::kSet,
              kKubernetesYaml,
              "Sets the tag or digest of the image of the named container (or init container) "
              "in every workload, keeping its repository. Containers without an image are left "
              "alone.",
              {Param("container-name", "string", "The container's name."),
               Param("image-reference", "image-reference", reference_doc)}};
    f.set = SetContainerImageReference;
    out->push_back(std::move(f));
  }
  {
    Function f;
    f.spec = {"set-container-image",
              FunctionKind::kSet,
              kKubernetesYaml,
              "Sets the whole image (repository and tag or digest) of the named container (or "
              "init container) in every workload.",
              {Param("container-name", "string", "The container's name."),
               Param("image", "string", "The image: ghcr.io/acme/acme:v452.")}};
    f.set = SetContainerImage;
    out->push_back(std::move(f));
  }
  {
    Function f;
    f.spec = {"get-container-image",
              FunctionKind::kGet,
              kKubernetesYaml,
              "Reads the image of the named container (or init container) of every workload.",
              {Param("container-name", "string", "The container's name, or '*' for every one.")}};
    f.get = GetContainerImage;
    out->push_back(std::move(f));
  }
}

}  // namespace cub::functions::internal
