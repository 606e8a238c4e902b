// ParseJsonNode (json.h): nlohmann reads the text (lib/util/json.h, which refuses duplicate
// keys), then the tree is copied into Nodes.
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/config/json.h"
#include "lib/util/json.h"

namespace cub::config {
namespace {

constexpr int kMaxDepth = 1000;  // as ParseYaml

// `j`, at `depth` arrays and objects down, as a Node; false when it nests deeper than
// kMaxDepth.
bool ToNode(const Json& j, int depth, Node* out) {
  if (j.is_structured() && depth >= kMaxDepth) return false;
  switch (j.type()) {
    case Json::value_t::null:
      *out = Node::Null();
      return true;
    case Json::value_t::boolean:
      *out = Node::Bool(j.get<bool>());
      return true;
    case Json::value_t::number_integer:
      *out = Node::Int(j.get<int64_t>());
      return true;
    case Json::value_t::number_unsigned: {
      const uint64_t u = j.get<uint64_t>();
      *out = u <= static_cast<uint64_t>(INT64_MAX) ? Node::Int(static_cast<int64_t>(u))
                                                   : Node::Float(static_cast<double>(u));
      return true;
    }
    case Json::value_t::number_float:
      *out = Node::Float(j.get<double>());
      return true;
    case Json::value_t::string:
      *out = Node::String(j.get<std::string>(), StringStyle::kDoubleQuoted);
      return true;
    case Json::value_t::array: {
      Node::Sequence items(j.size());
      for (size_t i = 0; i < j.size(); ++i) {
        if (!ToNode(j[i], depth + 1, &items[i])) return false;
      }
      *out = Node::Seq(std::move(items));
      return true;
    }
    case Json::value_t::object: {
      Node::Mapping entries;
      entries.reserve(j.size());
      for (const auto& [key, value] : j.items()) {
        entries.emplace_back(key, Node());
        if (!ToNode(value, depth + 1, &entries.back().second)) return false;
      }
      *out = Node::Map(std::move(entries));
      return true;
    }
    default:  // binary and discarded values: not produced by parsing text
      return false;
  }
}

}  // namespace

absl::StatusOr<Node> ParseJsonNode(std::string_view text) {
  auto json = ParseJson(text);
  if (!json.ok())
    return absl::InvalidArgumentError(absl::StrCat("json: ", json.status().message()));
  Node out;
  if (!ToNode(*json, 0, &out)) {
    return absl::InvalidArgumentError(
        absl::StrCat("json: nested deeper than ", kMaxDepth, " arrays and objects"));
  }
  return out;
}

}  // namespace cub::config
