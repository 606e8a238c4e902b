#include "lib/sign/statement.h"

#include "lib/util/json_text.h"

namespace cub::sign {

std::string Statement(const std::vector<Subject>& subjects, std::string_view predicate_type,
                      std::string_view predicate_json) {
  std::string out = "{\"_type\":";
  out += JsonQuote(kInTotoStatementType);
  out += ",\"subject\":[";
  for (size_t i = 0; i < subjects.size(); ++i) {
    if (i > 0) out += ',';
    out += '{';
    if (!subjects[i].name.empty()) {
      out += "\"name\":";
      out += JsonQuote(subjects[i].name);
      out += ',';
    }
    out += "\"digest\":{\"sha256\":";
    out += JsonQuote(subjects[i].sha256_hex);
    out += "}}";
  }
  out += "],\"predicateType\":";
  out += JsonQuote(predicate_type);
  out += ",\"predicate\":";
  out.append(predicate_json.data(), predicate_json.size());
  out += '}';
  return out;
}

}  // namespace cub::sign
