#include "lib/sign/statement.h"

namespace cub::sign {

std::string Statement(const std::vector<Subject>& subjects, std::string_view predicate_type,
                      const Json& predicate) {
  Json subject = Json::array();
  for (const Subject& s : subjects) {
    Json one = Json::object();
    if (!s.name.empty()) one["name"] = s.name;
    one["digest"] = {{"sha256", s.sha256_hex}};
    subject.push_back(std::move(one));
  }
  Json statement = Json::object();
  statement["_type"] = kInTotoStatementType;
  statement["subject"] = std::move(subject);
  statement["predicateType"] = predicate_type;
  statement["predicate"] = predicate;
  return JsonText(statement);
}

}  // namespace cub::sign
