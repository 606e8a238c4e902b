// Checks on names and key/value maps that arrive in requests, shared by the use cases.
#ifndef CUB_LIB_OPS_INPUT_H_
#define CUB_LIB_OPS_INPUT_H_

#include <map>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/map.h"
#include "lib/domain/vocabulary.h"

namespace cub::ops {

// INVALID_ARGUMENT unless `slug` is a usable name: 1-128 characters of letters, digits,
// '-', '_' and '.', starting with a letter or digit. `kind` names the entity in the message.
absl::Status ValidateSlug(const std::string& kind, const std::string& slug);

// INVALID_ARGUMENT naming the first key that is empty or holds whitespace or '='.
absl::Status ValidateKeys(const char* what,
                          const google::protobuf::Map<std::string, std::string>& m);

// A unique-key violation from the database (a concurrent writer created the same name
// between our check and our insert) reworded as "<what> already exists"; other statuses pass
// through unchanged.
absl::Status AlreadyExistsAs(const absl::Status& s, const std::string& what);

// A request's PriorRevisions (`field` names it in the message, as the API spells it): nullopt
// when empty, for the caller's default; INVALID_ARGUMENT listing the values when it is none.
absl::StatusOr<std::optional<domain::PriorRevisions>> PriorRevisionsField(
    const std::string& text, const char* field = "PriorRevisions");

// The same for an UpdateType.
absl::StatusOr<std::optional<domain::UpdateType>> UpdateTypeField(const std::string& text,
                                                                  const char* field = "UpdateType");

std::map<std::string, std::string> ToMap(const google::protobuf::Map<std::string, std::string>& m);

}  // namespace cub::ops

#endif  // CUB_LIB_OPS_INPUT_H_
