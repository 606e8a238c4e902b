// DataHash: the content hash stored with every revision (declared in yaml.h).

#include "absl/strings/str_cat.h"
#include "lib/config/json.h"
#include "lib/config/yaml.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::config {

absl::StatusOr<std::string> DataHash(std::string_view yaml) {
  CUB_ASSIGN_OR_RETURN(std::vector<Node> docs, ParseYaml(yaml));
  return absl::StrCat("sha256:", Sha256Hex(CanonicalJson(docs)));
}

}  // namespace cub::config
