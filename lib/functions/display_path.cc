#include "lib/functions/display_path.h"

namespace cub::functions {
namespace {

// Characters that make a name need quotes (as lib/config/path.h's FormatPath decides).
constexpr std::string_view kSpecials = ".[]=\"\\:";

void AppendName(std::string* path, std::string_view name) {
  bool bare = !name.empty() && name != "*" && name != "**";
  for (char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (u <= 0x20 || u == 0x7f || kSpecials.find(c) != std::string_view::npos) bare = false;
  }
  if (bare) {
    path->append(name);
    return;
  }
  path->push_back('"');
  for (char c : name) {
    if (c == '"' || c == '\\') path->push_back('\\');
    path->push_back(c);
  }
  path->push_back('"');
}

}  // namespace

void AppendKey(std::string* path, std::string_view key) {
  if (!path->empty()) path->push_back('.');
  AppendName(path, key);
}

void AppendSelector(std::string* path, std::string_view field, std::string_view value) {
  AppendKey(path, field);
  path->push_back('=');
  AppendName(path, value);
}

void AppendItem(std::string* path, const config::Node& item, size_t index) {
  const config::Node* name = item.Find("name");
  if (name != nullptr && name->IsString() && !name->AsString().empty()) {
    AppendSelector(path, "name", name->AsString());
  } else {
    *path += '[';
    *path += std::to_string(index);
    *path += ']';
  }
}

std::string JoinKey(std::string_view prefix, std::string_view key) {
  std::string out(prefix);
  AppendKey(&out, key);
  return out;
}

}  // namespace cub::functions
