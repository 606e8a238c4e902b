// Reading a definition strictly out of a parsed YAML/JSON document, as ChangeWorkflows
// (parse.h) and Link definitions (lib/links) are read: an unknown field is refused naming its
// path and the closest known field, a value of the wrong type names its path and both types,
// and an absent or null field leaves the output as it was (its default).
//
// Paths read like "Stages[1].Prerequisites". Pure; thread-safe.

#ifndef CUB_LIB_WORKFLOW_STRICT_READ_H_
#define CUB_LIB_WORKFLOW_STRICT_READ_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "lib/config/node.h"

namespace cub::workflow {

// "path.name" ("name" at the top); "path[i]".
std::string Field(const std::string& path, std::string_view name);
std::string Item(const std::string& path, size_t i);

// InvalidArgument "<path>: must be <want>, got <kind>".
absl::Status WrongType(const std::string& path, const char* want, const config::Node& got);

// Refuses the first key of mapping `m` that is neither in `allowed` nor in `skip`:
// "<path>: unknown field; did you mean X?" or "... (fields: A, B)".
absl::Status CheckFields(const config::Node& m, const std::string& path,
                         const std::vector<std::string>& allowed,
                         const std::vector<std::string>& skip = {});

absl::Status ReadString(const config::Node& m, std::string_view key, const std::string& path,
                        std::string* out);
// Replaces *out with the list's strings.
absl::Status ReadStringList(const config::Node& m, std::string_view key, const std::string& path,
                            std::vector<std::string>* out);

// Calls read(item, item_path) for each mapping of the list at `key`, stopping at the first
// error.
template <typename ReadItem>
absl::Status ReadMappingList(const config::Node& m, std::string_view key, const std::string& path,
                             ReadItem read) {
  const config::Node* v = m.Find(key);
  if (v == nullptr || v->IsNull()) return absl::OkStatus();
  std::string p = Field(path, key);
  if (!v->IsSequence()) return WrongType(p, "a list", *v);
  for (size_t i = 0; i < v->AsSequence().size(); ++i) {
    const config::Node& item = v->AsSequence()[i];
    std::string ip = Item(p, i);
    if (!item.IsMapping()) return WrongType(ip, "a mapping", item);
    if (absl::Status s = read(item, ip); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace cub::workflow

#endif  // CUB_LIB_WORKFLOW_STRICT_READ_H_
