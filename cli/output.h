// Rendering of command results for `cub -o table|json|yaml`.
//
// json and yaml print the API's JSON shape: the response message as protobuf's JSON mapping
// (PascalCase json_name, every field present), pretty-printed with two-space indents; a list is
// printed as a JSON array of the entities, not the response wrapper. yaml is the same document,
// converted by lib/config's YAML emitter. table prints aligned columns under a header row, a
// single entity as a FIELD VALUE table, and a create or update as one confirmation line.
// --quiet suppresses everything a command would print on success.
//
// Besides the format, PrintOptions carries --jq (json output filtered by a jq program: string
// results printed raw, others as compact JSON, one per line), --names (lists: the first column
// only; a single object: its Slug, Name, Username or ID) and --no-header (tables without their
// header row).
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
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace cub::cli {

enum class Format { kTable, kJson, kYaml };

// "table", "json" or "yaml"; anything else is kTable (the flag is validated by CLI11).
// "mutations" is a table for the commands that show changes path by path, and a table
// elsewhere.
Format ParseFormat(std::string_view name);

// What the output flags other than the format ask for.
struct PrintOptions {
  std::string jq;          // --jq EXPR; non-empty means json output through jq
  bool names = false;      // --names
  bool no_header = false;  // --no-header
};

// Runs the jq program `expr` on the JSON text `json`. Each result becomes one line: a string
// as its raw text, anything else as compact JSON. INVALID_ARGUMENT naming --jq when the program
// does not compile or fails on this input.
absl::StatusOr<std::string> RunJq(std::string_view expr, std::string_view json);

// Rows of cells rendered as left-aligned columns separated by three spaces, header first.
// Newlines inside a cell are shown as spaces so that one row stays one line.
struct Table {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  std::string Render() const;
  // Without the header row (--no-header); an empty table renders as nothing.
  std::string RenderRows() const;
  // The width of each column: its widest cell, the header's included.
  std::vector<size_t> Widths() const;
  // With the given column widths (so that the pages of a streamed list line up with the
  // first); a wider cell pushes the rest of its row right.
  std::string RenderWith(const std::vector<size_t>& widths, bool with_header) const;
};

// The compact JSON text of `message` (json_name keys, default-valued fields included), as
// util::ProtoJson prints it.
std::string MessageToCompactJson(const google::protobuf::Message& message);

// Re-indents JSON as PrettyJsonText (lib/util/json.h) writes it: two-space indents, one member
// per line, `{}`/`[]` kept together; strings and scalars are copied as they are. Text whose
// brackets do not balance, or with a string left open, is returned as it is.
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
  Printer(Format format, bool quiet, PrintOptions options = {})
      : format_(options.jq.empty() ? format : Format::kJson),
        quiet_(quiet),
        options_(std::move(options)) {}

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
    if (!table() && !options_.names) {
      std::vector<const google::protobuf::Message*> pointers;
      for (const T& item : items) pointers.push_back(&item);
      return Array(pointers);
    }
    Table t{std::move(header), {}};
    for (const T& item : items) t.rows.push_back(row(item));
    return Rows(t);
  }

  // json/yaml: `doc` as a document (ignores the table format); with --names, its name.
  int Document(const google::protobuf::Message& doc) const;

  // json/yaml: the document whose compact JSON text is `compact` (for documents that are no
  // API message).
  int RawJson(const std::string& compact) const {
    if (quiet_) return 0;
    return EmitJson(compact);
  }

  // Writes `text` as is, in any format (nothing with --quiet).
  int Text(std::string_view text) const;

  // A table as the flags ask: the first column only (--names), without the header
  // (--no-header), or whole.
  int Rows(const Table& t) const;

  const PrintOptions& options() const { return options_; }

  // The JSON document of a list of `items`, printed as List prints it (EmitJson).
  int Array(const std::vector<const google::protobuf::Message*>& items) const;

 private:
  // --names for a single object: its Slug, Name, Username or ID (the first one set, looking
  // into the message and then into its message fields); false when it has none of them.
  bool NameOf(const google::protobuf::Message& doc) const;
  int EmitJson(const std::string& compact) const;

  Format format_;
  bool quiet_;
  PrintOptions options_;
};

}  // namespace cub::cli

#endif  // CUB_CLI_OUTPUT_H_
