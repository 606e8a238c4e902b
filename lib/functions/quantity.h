// Kubernetes resource quantities ("100m", "0.5", "512Mi", "1G", "1e3"), as container
// resources.requests and resources.limits take them.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_FUNCTIONS_QUANTITY_H_
#define CUB_LIB_FUNCTIONS_QUANTITY_H_

#include <string_view>

#include "lib/config/node.h"

namespace cub::functions {

// Whether `s` is a non-negative quantity in Kubernetes' syntax:
//   [+]NUMBER SUFFIX   NUMBER = DIGITS | DIGITS.DIGITS? | .DIGITS
//   SUFFIX = "" | n u m k M G T P E (decimal SI) | Ki Mi Gi Ti Pi Ei (binary SI)
//          | e or E followed by an optionally signed integer (decimal exponent)
// Negative quantities are refused: no request or limit can be negative.
bool IsQuantity(std::string_view s);

// Whether a YAML value is a valid quantity: a string IsQuantity accepts, or a non-negative
// int or finite float (`cpu: 1`, `cpu: 0.5`, as manifests often write them).
bool IsQuantityNode(const config::Node& node);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_QUANTITY_H_
