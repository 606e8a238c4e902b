// Rendering of command results for `cub -o table|json|yaml`.
//
// json and yaml print the API's JSON shape: the response message as protobuf's JSON mapping
// (PascalCase json_name, every field present), pretty-printed with two-space indents; a list is
// printed as a JSON array of the entities, not the response wrapper. yaml is the same document,
// converted by lib/config's YAML emitter. table prints aligned columns under a header row, a
// single entity as a FIELD VALUE table, and a create or update as one confirmation line.
// --quiet suppresses everything a command would print on success.
//
// Nothing here talks to the network or reads flags; the helpers are pure apart from writing
// to stdout/stderr in Printer.
#ifndef CUB_CLI_OUTPUT_H_
#define CUB_CLI_OUTPUT_H_

#include <google/protobuf/message.h>
#include <google/protobuf/repeated_ptr_field.h>

#include <functional>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace cub::cli {

enum class Format { kTable, kJson, kYaml };

// "table", "json" or "yaml"; anything else is kTable (the flag is validated by CLI11).
// "mutations" is a table for the commands that show changes path by path, and a table
// elsewhere.
Format ParseFormat(std::string_view name);

// Rows of cells rendered as left-aligned columns separated by three spaces, header first.
// Newlines inside a cell are shown as spaces so that one row stays one line.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::string Render() const;
};

// The compact JSON text of `message` (json_name keys, default-valued fields included).
std::string MessageToCompactJson(const google::protobuf::Message& message);

// Re-indents JSON as PrettyJsonText (lib/util/json.h) writes it: two-space indents, one member
// per line, `{}`/`[]` kept together. Text that is not JSON is returned as it is.
std::string PrettyJson(std::string_view json);

// A FIELD VALUE table of the message's fields, in declaration order, named by json_name.
// Maps print as k=v pairs sorted by key, repeated scalars comma-separated, nested messages
// as compact JSON. Fields named in `skip` (json names) are left out.
Table FieldTable(const google::protobuf::Message& message,
                 std::initializer_list<std::string_view> skip = {});

// Writes results in the chosen format. Every method returns the exit code to use: 0, or 1 if
// the document could not be converted to YAML (with "Failed: ..." on stderr).
class Printer {
 public:
  Printer(Format format, bool quiet) : format_(format), quiet_(quiet) {}

  Format format() const { return format_; }
  bool table() const { return format_ == Format::kTable; }
  bool quiet() const { return quiet_; }

  // json/yaml: `doc`. table: `line` followed by a newline.
  int Confirm(const google::protobuf::Message& doc, std::string_view line) const;

  // json/yaml: `doc`. table: the FieldTable of `doc`, less `skip`.
  int Fields(const google::protobuf::Message& doc,
             std::initializer_list<std::string_view> skip = {}) const;

  // json/yaml: `doc`. table: the FieldTable of `fields` (e.g. the Unit inside UnitWithData).
  int Fields(const google::protobuf::Message& doc, const google::protobuf::Message& fields,
             std::initializer_list<std::string_view> skip = {}) const;

  // json/yaml: a JSON array of `items`. table: `header` and one `row(item)` per item.
  template <typename T>
  int List(const google::protobuf::RepeatedPtrField<T>& items, std::vector<std::string> header,
           const std::function<std::vector<std::string>(const T&)>& row) const {
    if (quiet_) return 0;
    if (!table()) {
      std::vector<const google::protobuf::Message*> pointers;
      for (const T& item : items) pointers.push_back(&item);
      return Array(pointers);
    }
    Table t{std::move(header), {}};
    for (const T& item : items) t.rows.push_back(row(item));
    return Text(t.Render());
  }

  // json/yaml: `doc` as a document (ignores the table format).
  int Document(const google::protobuf::Message& doc) const;

  // Writes `text` as is, in any format (nothing with --quiet).
  int Text(std::string_view text) const;

 private:
  int Array(const std::vector<const google::protobuf::Message*>& items) const;
  int EmitJson(const std::string& compact) const;

  Format format_;
  bool quiet_;
};

}  // namespace cub::cli

#endif  // CUB_CLI_OUTPUT_H_
