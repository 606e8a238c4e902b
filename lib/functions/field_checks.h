// Typed checks of fields in a document, each reporting a failure as
// "<resource>: <path>: <problem>" into a list of errors: the building blocks of vet-schemas.
//
// Every check takes the display path of the value it checks (display_path.h) and returns
// whether the value passed, so callers can skip checks that depend on it.
// Not thread-safe; one FieldChecks per document being vetted.

#ifndef CUB_LIB_FUNCTIONS_FIELD_CHECKS_H_
#define CUB_LIB_FUNCTIONS_FIELD_CHECKS_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/node.h"

namespace cub::functions {

class FieldChecks {
 public:
  FieldChecks(std::string label, std::vector<std::string>* errors)
      : label_(std::move(label)), errors_(errors) {}

  // Appends "<label>: <path>: <problem>" (or "<label>: <problem>" for an empty path).
  void Error(std::string_view path, std::string_view problem);

  // parent[key], or nullptr when absent (or parent is not a mapping); when `required`, an
  // absent field is reported as missing.
  const config::Node* Field(const config::Node& parent, std::string_view parent_path,
                            std::string_view key, bool required);

  bool Mapping(const config::Node& n, std::string_view path);
  bool Sequence(const config::Node& n, std::string_view path);
  bool String(const config::Node& n, std::string_view path);
  bool NonEmptyString(const config::Node& n, std::string_view path);
  // An int in [min, max]. Messages: "expected an integer, got string \"two\"" for another
  // type; "expected an integer from 1 to 65535, got int 0" or "expected a non-negative
  // integer, got int -1" (max == INT64_MAX) out of range.
  bool Int(const config::Node& n, std::string_view path, int64_t min, int64_t max);
  // A string equal to one of `words`.
  bool Enum(const config::Node& n, std::string_view path,
            std::initializer_list<std::string_view> words);
  // A mapping whose values are all strings; with `labels`, keys must be qualified names and
  // values label values (names.h), as for labels and selectors; with `annotations`, keys
  // must be qualified names.
  enum class Keys { kAny, kLabels, kAnnotations };
  bool StringMap(const config::Node& n, std::string_view path, Keys keys);
  // A sequence of strings.
  bool StringList(const config::Node& n, std::string_view path);
  // A non-negative quantity (quantity.h).
  bool Quantity(const config::Node& n, std::string_view path);

  bool ok() const { return errors_->size() == start_; }

 private:
  void Expected(std::string_view path, std::string_view what, const config::Node& got);

  const std::string label_;
  std::vector<std::string>* const errors_;
  const size_t start_ = errors_->size();
};

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_FIELD_CHECKS_H_
