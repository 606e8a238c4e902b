// Helpers the built-in functions use to build their results: recording the edits of a set
// function as Mutations, recording the values a get function finds, and describing values in
// messages.
//
// Not thread-safe: a DocumentEdits belongs to one call of one function.

#ifndef CUB_LIB_FUNCTIONS_RESULTS_H_
#define CUB_LIB_FUNCTIONS_RESULTS_H_

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "lib/config/json.h"
#include "lib/config/node.h"
#include "lib/functions/function.h"

namespace cub::functions {

// "string \"two\"", "int 3", "float 1.5", "bool true", "null", "a mapping", "a sequence":
// how messages say what was found ("expected an integer, got string \"two\"").
std::string DescribeValue(const config::Node& node);

// Records the edits a set function makes to document `index` of result->docs into
// result->mutations and result->matched. `doc` must stay alive while this object is used.
class DocumentEdits {
 public:
  DocumentEdits(const config::Node& doc, size_t index, SetResult* result)
      : doc_(doc), index_(index), result_(result) {}

  // Counts one place the function applied to (see SetResult::matched).
  void Matched() { ++result_->matched; }

  // The document's ResourceLabel, computed on first use.
  const std::string& label();

  // Makes `target` equal to `value` unless it already is (config::Node equality), and records
  // the change at path_fn() (called only on a change). The target keeps its comments (unless
  // `value` brings its own). When both are strings only the text changes, so the target keeps
  // its quoting; a plain style becomes kAuto, so the writer quotes a new text that a YAML 1.1
  // reader would take for another type ("yes", "0777").
  // Returns whether anything changed.
  template <typename PathFn>
  bool Assign(config::Node& target, config::Node value, PathFn&& path_fn) {
    if (target == value) return false;
    Mutation m = Begin(path_fn(), &target);
    Store(target, std::move(value));
    Finish(std::move(m), target);
    return true;
  }

  // Sets root[keys[0]][keys[1]]... to `value`, creating mappings (and turning nulls into
  // mappings) on the way. Records the change as Assign does, or, when the leaf was absent,
  // as added at its path; `root_path` is the display path of `root` ("" for the document).
  // FailedPrecondition, naming the resource and path, if the way goes through a value that is
  // neither a mapping nor null; nothing is changed then.
  absl::Status SetIn(config::Node& root, std::string_view root_path,
                     std::initializer_list<std::string_view> keys, config::Node value);

  // Records that `value`, now stored at `path`, did not exist before.
  void Added(std::string path, const config::Node& value);

  // FailedPrecondition "<label>: <path>: <problem>".
  absl::Status Error(std::string_view path, std::string_view problem);

 private:
  Mutation Begin(std::string path, const config::Node* old_value);
  void Finish(Mutation m, const config::Node& new_value);
  static void Store(config::Node& target, config::Node value);

  const config::Node& doc_;
  const size_t index_;
  SetResult* const result_;
  std::string label_;
};

// Appends the value found at `path` of document `index` to result->values.
void AddFound(const config::Node& doc, size_t index, std::string path, const config::Node& value,
              GetResult* result);

}  // namespace cub::functions

#endif  // CUB_LIB_FUNCTIONS_RESULTS_H_
