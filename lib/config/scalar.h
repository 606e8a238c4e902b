// YAML 1.2 core-schema scalar rules shared by the YAML reader, the YAML and JSON writers:
// what type a plain scalar resolves to, how numbers are spelled canonically, and which
// strings would read back as something else.
//
// Pure functions; thread-safe.

#ifndef CUB_LIB_CONFIG_SCALAR_H_
#define CUB_LIB_CONFIG_SCALAR_H_

#include <string>
#include <string_view>

#include "lib/config/node.h"

namespace cub::config {

// Resolves an untagged plain scalar per the YAML 1.2 core schema:
//   null   ""  ~  null Null NULL
//   bool   true True TRUE false False FALSE
//   int    [-+]?[0-9]+   0o[0-7]+   0x[0-9a-fA-F]+
//   float  [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?  [-+]?.inf (.Inf .INF)  .nan
//          (.NaN .NAN)
//   string anything else, with StringStyle::kPlain.
// A decimal int outside int64 becomes a float (as most YAML readers do); a hex or octal one
// too large for int64 stays a string.
Node ResolvePlainScalar(std::string_view text);

// Whether `text`, written as a plain scalar, would resolve to a string under the core schema.
bool PlainIsString(std::string_view text);

// Whether a YAML 1.1 reader (Kubernetes' go-yaml, PyYAML) could read plain `text` as a bool,
// null, number, timestamp or merge key: yes/no/on/off/y/n, 0777, 1_000, 1:30, .5e3, 2024-01-02,
// <<, ... Deliberately broad: the writer only uses it to decide to quote.
bool AmbiguousInYaml11(std::string_view text);

// Canonical text of a float, used by both YAML and JSON writers: the shortest form that reads
// back to the same double, always with a '.' in the mantissa so it never reads back as an int
// ("1.0", "0.5", "1.0e+20", "-0.0"). Non-finite values are "inf", "-inf", "nan"; callers map
// them to their syntax.
std::string FormatFloat(double v);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_SCALAR_H_
