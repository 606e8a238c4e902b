// Kubernetes name syntax, for checking function arguments and for vet-schemas: label keys
// and values, DNS labels and subdomains.
//
// Pure functions; thread-safe. All checks are on bytes: names are ASCII in Kubernetes.

#ifndef CUB_LIB_FUNCTIONS_NAMES_H_
#define CUB_LIB_FUNCTIONS_NAMES_H_

#include <string_view>

namespace cub::functions {

// A lowercase RFC 1123 label: 1-63 of [a-z0-9-], starting and ending alphanumeric
// (namespace names, container names, port names).
bool IsDnsLabel(std::string_view s);

// An RFC 1035 label: a DNS label that starts with a letter (Service names).
bool IsDns1035Label(std::string_view s);

// A lowercase RFC 1123 subdomain: at most 253 characters, dot-separated DNS labels
// (the names of most resources).
bool IsDnsSubdomain(std::string_view s);

// A label or annotation key: [PREFIX/]NAME where PREFIX is a DNS subdomain and NAME is 1-63
// of [A-Za-z0-9-_.], starting and ending alphanumeric.
bool IsQualifiedName(std::string_view s);

// A label value: empty, or 1-63 of [A-Za-z0-9-_.] starting and ending alphanumeric.
bool IsLabelValue(std::string_view s);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_NAMES_H_
