// Container image names: splitting "ghcr.io/acme/acme:v451" into its repository and its
// reference (":v451"), and comparing repositories the way a container runtime resolves them.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_FUNCTIONS_IMAGE_H_
#define CUB_LIB_FUNCTIONS_IMAGE_H_

#include <string>
#include <string_view>

namespace cub::functions {

// An image split at the end of its repository. Views into the string given to SplitImage.
struct ImageParts {
  std::string_view repository;  // "ghcr.io/acme/acme", "localhost:5000/app", "nginx"
  std::string_view reference;   // ":v451", "@sha256:...", ":v451@sha256:...", or "" (none)
};

// Splits at the first '@' (a digest) or else at the last ':' after the last '/' (a tag), so a
// registry port ("localhost:5000/app") stays part of the repository.
ImageParts SplitImage(std::string_view image);

// The repository as a runtime resolves it: a name whose first component is not a registry
// (has no '.' or ':' and is not "localhost") is on docker.io, and a single-component docker.io
// name is under library/. "nginx", "docker.io/nginx", "index.docker.io/library/nginx" all
// become "docker.io/library/nginx".
std::string NormalizeRepository(std::string_view repository);

// Whether two repositories name the same one (equal after NormalizeRepository).
bool SameRepository(std::string_view a, std::string_view b);

// Whether `ref` is an image reference: ":TAG", "@DIGEST" or ":TAG@DIGEST", where TAG is
// [A-Za-z0-9_][A-Za-z0-9_.-]{0,127} and DIGEST is ALGORITHM:HEX (sha256:<64 hex>, or another
// algorithm name with at least 32 hex digits).
bool IsImageReference(std::string_view ref);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_IMAGE_H_
