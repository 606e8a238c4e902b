// Output rendering for the cub CLI: tables, pretty JSON and YAML. See output.h.
#include "cli/output.h"

#include <google/protobuf/descriptor.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/yaml.h"
#include "lib/util/proto_json.h"

namespace cub::cli {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;

// Display width of UTF-8 text: code points, not bytes (good enough for aligned columns).
size_t DisplayWidth(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string OneLine(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  std::replace(s.begin(), s.end(), '\r', ' ');
  std::replace(s.begin(), s.end(), '\t', ' ');
  return s;
}

// The value of a scalar or message field; `index` < 0 for a singular field.
std::string FieldValue(const Message& m, const FieldDescriptor* f, int index) {
  const Reflection* r = m.GetReflection();
  const bool rep = index >= 0;
  switch (f->cpp_type()) {
    case FieldDescriptor::CPPTYPE_INT32:
      return absl::StrCat(rep ? r->GetRepeatedInt32(m, f, index) : r->GetInt32(m, f));
    case FieldDescriptor::CPPTYPE_INT64:
      return absl::StrCat(rep ? r->GetRepeatedInt64(m, f, index) : r->GetInt64(m, f));
    case FieldDescriptor::CPPTYPE_UINT32:
      return absl::StrCat(rep ? r->GetRepeatedUInt32(m, f, index) : r->GetUInt32(m, f));
    case FieldDescriptor::CPPTYPE_UINT64:
      return absl::StrCat(rep ? r->GetRepeatedUInt64(m, f, index) : r->GetUInt64(m, f));
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return absl::StrCat(rep ? r->GetRepeatedDouble(m, f, index) : r->GetDouble(m, f));
    case FieldDescriptor::CPPTYPE_FLOAT:
      return absl::StrCat(rep ? r->GetRepeatedFloat(m, f, index) : r->GetFloat(m, f));
    case FieldDescriptor::CPPTYPE_BOOL:
      return (rep ? r->GetRepeatedBool(m, f, index) : r->GetBool(m, f)) ? "true" : "false";
    case FieldDescriptor::CPPTYPE_ENUM:
      return (rep ? r->GetRepeatedEnum(m, f, index) : r->GetEnum(m, f))->name();
    case FieldDescriptor::CPPTYPE_STRING:
      return rep ? r->GetRepeatedString(m, f, index) : r->GetString(m, f);
    case FieldDescriptor::CPPTYPE_MESSAGE:
      if (!rep && !r->HasField(m, f)) return "";
      return MessageToCompactJson(rep ? r->GetRepeatedMessage(m, f, index) : r->GetMessage(m, f));
  }
  return "";
}

// JSON quotes every string; let the YAML emitter choose (plain where that reads back the same,
// literal blocks for multi-line data).
void ClearStringStyles(cub::config::Node& node) {
  switch (node.kind()) {
    case cub::config::Node::Kind::kString:
      node.set_string_style(cub::config::StringStyle::kAuto);
      break;
    case cub::config::Node::Kind::kSequence:
      for (auto& item : node.MutableSequence()) ClearStringStyles(item);
      break;
    case cub::config::Node::Kind::kMapping:
      for (auto& entry : node.MutableMapping()) ClearStringStyles(entry.second);
      break;
    default:
      break;
  }
}

std::string FieldText(const Message& m, const FieldDescriptor* f) {
  const Reflection* r = m.GetReflection();
  if (f->is_map()) {
    std::vector<std::pair<std::string, std::string>> entries;
    for (int i = 0; i < r->FieldSize(m, f); ++i) {
      const Message& e = r->GetRepeatedMessage(m, f, i);
      const Descriptor* d = e.GetDescriptor();
      entries.emplace_back(FieldValue(e, d->map_key(), -1), FieldValue(e, d->map_value(), -1));
    }
    std::sort(entries.begin(), entries.end());
    return absl::StrJoin(entries, ",", absl::PairFormatter("="));
  }
  if (f->is_repeated()) {
    std::vector<std::string> items;
    for (int i = 0; i < r->FieldSize(m, f); ++i) items.push_back(FieldValue(m, f, i));
    return absl::StrJoin(items, ", ");
  }
  return FieldValue(m, f, -1);
}

}  // namespace

Format ParseFormat(std::string_view name) {
  if (name == "json") return Format::kJson;
  if (name == "yaml") return Format::kYaml;
  return Format::kTable;
}

std::vector<size_t> Table::Widths() const {
  std::vector<size_t> widths(header.size(), 0);
  auto measure = [&widths](const std::vector<std::string>& row) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (size_t i = 0; i < row.size(); ++i) {
      widths[i] = std::max(widths[i], DisplayWidth(OneLine(row[i])));
    }
  };
  measure(header);
  for (const auto& row : rows) measure(row);
  return widths;
}

std::string Table::Render() const { return RenderWith(Widths(), true); }

std::string Table::RenderWith(const std::vector<size_t>& widths, bool with_header) const {
  std::string out;
  auto write = [&out, &widths](const std::vector<std::string>& row) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cell = OneLine(row[i]);
      line += cell;
      const size_t width = i < widths.size() ? widths[i] : 0;
      // A cell wider than its column (a later page's) pushes the rest of its row right.
      if (i + 1 < row.size())
        line.append(std::max(width, DisplayWidth(cell)) - DisplayWidth(cell) + 3, ' ');
    }
    // Trailing blanks come from empty last cells; drop them.
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  };
  if (with_header) write(header);
  for (const auto& row : rows) write(row);
  return out;
}

std::string Table::RenderRows() const {
  if (rows.empty()) return "";
  const std::string all = Render();
  return all.substr(all.find('\n') + 1);  // the columns stay as wide as with the header
}

std::string MessageToCompactJson(const Message& message) { return util::ProtoJson(message); }

namespace {

// Re-indents JSON text in one pass, without building a document: a promote's answer at
// 5,000 Spaces is 15 MB of JSON, and parsing it into a tree to print it took a second of the
// command's time and 235 MB. Strings and scalars are copied as they are. False when the
// brackets do not balance or a string is not closed, with `out` then unspecified.
bool ReindentJson(std::string_view json, std::string& out) {
  out.clear();
  out.reserve(json.size() + json.size() / 4);
  std::string closers;  // the brackets open, innermost last
  auto newline = [&] {
    out += '\n';
    out.append(2 * closers.size(), ' ');
  };
  auto next_token = [&](size_t i) {  // the index of the next character that is not a blank
    while (i < json.size() &&
           (json[i] == ' ' || json[i] == '\n' || json[i] == '\r' || json[i] == '\t')) {
      ++i;
    }
    return i;
  };
  for (size_t i = next_token(0); i < json.size(); i = next_token(i)) {
    const char c = json[i];
    if (c == '"') {
      size_t end = i + 1;
      while (end < json.size() && json[end] != '"') end += json[end] == '\\' ? 2 : 1;
      if (end >= json.size()) return false;
      out.append(json.substr(i, end + 1 - i));
      i = end + 1;
    } else if (c == '{' || c == '[') {
      const char closer = c == '{' ? '}' : ']';
      const size_t after = next_token(i + 1);
      if (after < json.size() && json[after] == closer) {  // empty: kept together
        out += c;
        out += closer;
        i = after + 1;
        continue;
      }
      out += c;
      closers += closer;
      newline();
      ++i;
    } else if (c == '}' || c == ']') {
      if (closers.empty() || closers.back() != c) return false;
      closers.pop_back();
      newline();
      out += c;
      ++i;
    } else if (c == ',') {
      out += ',';
      newline();
      ++i;
    } else if (c == ':') {
      out += ": ";
      ++i;
    } else {  // a number, true, false or null
      size_t end = i;
      while (end < json.size() &&
             std::string_view(",:]} \n\r\t").find(json[end]) == std::string_view::npos) {
        ++end;
      }
      out.append(json.substr(i, end - i));
      i = end;
    }
  }
  return closers.empty();
}

}  // namespace

std::string PrettyJson(std::string_view json) {
  std::string out;
  if (ReindentJson(json, out)) return out;
  return std::string(json);  // not JSON: shown as it is
}

Table FieldTable(const Message& message, std::initializer_list<std::string_view> skip) {
  Table t{{"FIELD", "VALUE"}, {}};
  const Descriptor* d = message.GetDescriptor();
  for (int i = 0; i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (std::find(skip.begin(), skip.end(), f->json_name()) != skip.end()) continue;
    t.rows.push_back({f->json_name(), FieldText(message, f)});
  }
  return t;
}

int Printer::Confirm(const Message& doc, std::string_view line) const {
  if (quiet_) return 0;
  if (options_.names && NameOf(doc)) return 0;
  if (!table()) return Document(doc);
  return Text(std::string(line) + "\n");
}

int Printer::Fields(const Message& doc, std::initializer_list<std::string_view> skip) const {
  return Fields(doc, doc, skip);
}

int Printer::Fields(const Message& doc, const Message& fields,
                    std::initializer_list<std::string_view> skip) const {
  if (quiet_) return 0;
  if (options_.names && NameOf(fields)) return 0;
  if (!table()) return Document(doc);
  const Table t = FieldTable(fields, skip);
  return Text(options_.no_header ? t.RenderRows() : t.Render());
}

int Printer::Document(const Message& doc) const {
  if (quiet_) return 0;
  if (options_.names && NameOf(doc)) return 0;
  return EmitJson(MessageToCompactJson(doc));
}

int Printer::Array(const std::vector<const Message*>& items) const {
  std::string array = "[";
  for (const Message* item : items) {
    if (array.size() > 1) array += ',';
    array += MessageToCompactJson(*item);
  }
  array += ']';
  return EmitJson(array);
}

int Printer::Rows(const Table& t) const {
  if (quiet_) return 0;
  if (options_.names) {
    std::string out;
    for (const auto& row : t.rows) {
      if (!row.empty()) absl::StrAppend(&out, OneLine(row[0]), "\n");
    }
    return Text(out);
  }
  return Text(options_.no_header ? t.RenderRows() : t.Render());
}

bool Printer::NameOf(const Message& doc) const {
  static constexpr std::string_view kNameFields[] = {"Slug", "Name", "Username", "ID"};
  auto find = [](const Message& m) -> std::string {
    const Descriptor* d = m.GetDescriptor();
    for (std::string_view want : kNameFields) {
      for (int i = 0; i < d->field_count(); ++i) {
        const FieldDescriptor* f = d->field(i);
        if (f->json_name() != want || f->is_repeated() ||
            f->cpp_type() != FieldDescriptor::CPPTYPE_STRING) {
          continue;
        }
        std::string v = m.GetReflection()->GetString(m, f);
        if (!v.empty()) return v;
      }
    }
    return "";
  };
  std::string name = find(doc);
  const Descriptor* d = doc.GetDescriptor();
  for (int i = 0; name.empty() && i < d->field_count(); ++i) {
    const FieldDescriptor* f = d->field(i);
    if (f->is_repeated() || f->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (!doc.GetReflection()->HasField(doc, f)) continue;
    name = find(doc.GetReflection()->GetMessage(doc, f));
  }
  if (name.empty()) return false;
  Text(OneLine(name) + "\n");
  return true;
}

int Printer::EmitJson(const std::string& compact) const {
  if (!options_.jq.empty()) {
    absl::StatusOr<std::string> out = RunJq(options_.jq, compact);
    if (!out.ok()) {
      std::cerr << "Failed: " << out.status().message() << std::endl;
      return 1;
    }
    return Text(*out);
  }
  const std::string pretty = PrettyJson(compact);
  if (format_ != Format::kYaml) return Text(pretty + "\n");
  // JSON is YAML: parse it as such and emit block-style YAML.
  auto docs = cub::config::ParseYaml(pretty);
  if (!docs.ok()) {
    std::cerr << "Failed: cannot render YAML: " << docs.status().message() << std::endl;
    return 1;
  }
  for (auto& doc : *docs) ClearStringStyles(doc);
  std::string yaml = cub::config::EmitYaml(*docs);
  if (!yaml.empty() && yaml.back() != '\n') yaml += '\n';
  return Text(yaml);
}

int Printer::Text(std::string_view text) const {
  if (quiet_) return 0;
  std::cout << text;
  std::cout.flush();
  return 0;
}

}  // namespace cub::cli
