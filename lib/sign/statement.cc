#include "lib/sign/statement.h"

namespace cub::sign {

std::string Statement(const std::vector<Subject>& subjects, std::string_view predicate_type,
                      const Json& predicate) {
  return StatementText(subjects, predicate_type, JsonText(predicate));
}

std::string StatementText(const std::vector<Subject>& subjects, std::string_view predicate_type,
                          std::string_view predicate_json) {
  // The bytes JsonText writes for the Json {"_type", "subject", "predicateType", "predicate"}.
  std::string out = "{\"_type\":";
  AppendJsonQuote(out, kInTotoStatementType);
  out += ",\"subject\":[";
  for (size_t i = 0; i < subjects.size(); ++i) {
    if (i > 0) out += ',';
    out += '{';
    if (!subjects[i].name.empty()) {
      out += "\"name\":";
      AppendJsonQuote(out, subjects[i].name);
      out += ',';
    }
    out += "\"digest\":{\"sha256\":";
    AppendJsonQuote(out, subjects[i].sha256_hex);
    out += "}}";
  }
  out += "],\"predicateType\":";
  AppendJsonQuote(out, predicate_type);
  out += ",\"predicate\":";
  out.append(predicate_json.data(), predicate_json.size());
  out += '}';
  return out;
}

}  // namespace cub::sign
