#include "lib/functions/cel_resource.h"

#include <map>
#include <string>
#include <vector>

namespace cub::functions {

absl::StatusOr<cel::Program> CompileResourceExpression(std::string_view expr) {
  cel::Declarations decls;
  decls.variables = {{kCelResourceVariable, cel::Type::Dyn()}};
  return cel::CompileGate(expr, decls);
}

cel::Value ToCelValue(const config::Node& node) {
  using Kind = config::Node::Kind;
  switch (node.kind()) {
    case Kind::kNull:
      return cel::Value::Null();
    case Kind::kBool:
      return cel::Value::Bool(node.AsBool());
    case Kind::kInt:
      return cel::Value::Int(node.AsInt());
    case Kind::kFloat:
      return cel::Value::Double(node.AsFloat());
    case Kind::kString:
      return cel::Value::String(node.AsString());
    case Kind::kSequence: {
      std::vector<cel::Value> items;
      items.reserve(node.size());
      for (const config::Node& item : node.AsSequence()) items.push_back(ToCelValue(item));
      return cel::Value::List(std::move(items));
    }
    case Kind::kMapping: {
      std::map<std::string, cel::Value> entries;
      for (const auto& [key, value] : node.AsMapping()) {
        entries.emplace(key, ToCelValue(value));  // the first of repeated keys, as Find
      }
      return cel::Value::StringMap(entries);
    }
  }
  return cel::Value::Null();
}

}  // namespace cub::functions
