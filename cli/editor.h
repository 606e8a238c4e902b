// Editing text in the user's editor, for `cub unit edit`: the text goes into a temporary file
// (mode 0600, in $TMPDIR or /tmp), the editor runs on it with the terminal, and the file's text
// afterwards is the result.
//
// The editor is $VISUAL, else $EDITOR, else vi, run as git runs it: through `sh -c 'EDITOR
// "$@"'`, so "code --wait" or a quoted path with spaces works as it does for git.
#ifndef CUB_CLI_EDITOR_H_
#define CUB_CLI_EDITOR_H_

#include <string>

#include "absl/status/statusor.h"

namespace cub::cli {

// The editor command line from the environment (see above).
std::string EditorCommand();

// A temporary file holding text, removed when this object goes unless Keep() was called (so
// that an edit the server refused is not lost).
class EditFile {
 public:
  // Creates the file "cub-edit-<name>-XXXXXX<suffix>" holding `text`.
  static absl::StatusOr<EditFile> Create(const std::string& name, const std::string& suffix,
                                         const std::string& text);
  EditFile(EditFile&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }
  EditFile(const EditFile&) = delete;
  EditFile& operator=(const EditFile&) = delete;
  ~EditFile();

  const std::string& path() const { return path_; }
  void Keep() { path_.clear(); }

 private:
  explicit EditFile(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// Runs `editor` (EditorCommand's form) on `path` with this process's terminal and waits for it.
// FAILED_PRECONDITION "editor EDITOR exited with status N" (or "was killed by signal N") when
// it does not succeed.
absl::Status RunEditor(const std::string& editor, const std::string& path);

}  // namespace cub::cli

#endif  // CUB_CLI_EDITOR_H_
