// The WWW-Authenticate challenge of a registry's 401 answer (RFC 7235, as the distribution
// token spec uses it): `Basic realm="x"` or `Bearer realm="https://auth/token",
// service="registry",scope="repository:p:pull"`.
//
// Pure functions; thread-safe.
#ifndef CUB_LIB_OCI_AUTH_CHALLENGE_H_
#define CUB_LIB_OCI_AUTH_CHALLENGE_H_

#include <map>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace cub::oci {

struct AuthChallenge {
  std::string scheme;                         // lower-cased: "basic", "bearer", ...
  std::map<std::string, std::string> params;  // names lower-cased, values unquoted
};

// The first challenge of `header`. INVALID_ARGUMENT when it is not of the form
// `scheme [name=value|name="quoted value"]{, ...}`.
absl::StatusOr<AuthChallenge> ParseAuthChallenge(std::string_view header);

}  // namespace cub::oci

#endif  // CUB_LIB_OCI_AUTH_CHALLENGE_H_
