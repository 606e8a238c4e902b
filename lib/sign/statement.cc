#include "lib/sign/statement.h"

namespace cub::sign {

std::string Statement(const std::vector<Subject>& subjects, std::string_view predicate_type,
                      const Json& predicate) {
  return StatementText(subjects, predicate_type, JsonText(predicate));
}

std::string StatementText(const std::vector<Subject>& subjects, std::string_view predicate_type,
                          std::string_view predicate_json) {
  std::string out;
  JsonObjectWriter statement(out);
  statement.String("_type", kInTotoStatementType)
      .Array("subject", subjects.size(),
             [&](std::string& list, size_t i) {
               JsonObjectWriter subject(list);
               if (!subjects[i].name.empty()) subject.String("name", subjects[i].name);
               JsonObjectWriter(subject.Key("digest"))
                   .String("sha256", subjects[i].sha256_hex)
                   .Close();
               subject.Close();
             })
      .String("predicateType", predicate_type)
      .Raw("predicate", predicate_json)
      .Close();
  return out;
}

}  // namespace cub::sign
