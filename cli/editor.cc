// The user's editor on a temporary file. See editor.h.
#include "cli/editor.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace cub::cli {
namespace {

std::string Getenv(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

// Letters, digits, '-', '_' and '.' of `name`, so a Unit slug cannot make an odd file name.
std::string SafeName(const std::string& name) {
  std::string out;
  for (char ch : name) {
    const bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.';
    out.push_back(ok ? ch : '_');
  }
  return out.substr(0, 64);
}

absl::Status WriteAll(int fd, const std::string& text, const std::string& path) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
    }
    written += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

}  // namespace

std::string EditorCommand() {
  for (const char* name : {"VISUAL", "EDITOR"}) {
    std::string v = Getenv(name);
    if (v.find_first_not_of(" \t") != std::string::npos) return v;
  }
  return "vi";
}

absl::StatusOr<EditFile> EditFile::Create(const std::string& name, const std::string& suffix,
                                          const std::string& text) {
  std::string dir = Getenv("TMPDIR");
  if (dir.empty()) dir = "/tmp";
  std::string path = absl::StrCat(dir, "/cub-edit-", SafeName(name), "-XXXXXX", suffix);
  std::vector<char> buf(path.begin(), path.end());
  buf.push_back('\0');
  // mkstemps creates the file with mode 0600 and O_EXCL: nobody else can read or swap it.
  const int fd = ::mkstemps(buf.data(), static_cast<int>(suffix.size()));
  if (fd < 0) {
    return absl::InternalError(
        absl::StrCat("cannot create a temporary file in ", dir, ": ", std::strerror(errno)));
  }
  EditFile file{std::string(buf.data())};
  absl::Status wrote = WriteAll(fd, text, file.path());
  if (::close(fd) != 0 && wrote.ok()) {
    wrote =
        absl::InternalError(absl::StrCat("cannot write ", file.path(), ": ", std::strerror(errno)));
  }
  if (!wrote.ok()) return wrote;
  return absl::StatusOr<EditFile>(std::move(file));
}

EditFile::~EditFile() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

absl::Status RunEditor(const std::string& editor, const std::string& path) {
  // As git does: the shell splits the editor's words (and honours quotes), "$@" is the file.
  const std::string script = editor + " \"$@\"";
  const pid_t pid = ::fork();
  if (pid < 0) return absl::InternalError(absl::StrCat("cannot fork: ", std::strerror(errno)));
  if (pid == 0) {
    ::execl("/bin/sh", "sh", "-c", script.c_str(), editor.c_str(), path.c_str(),
            static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return absl::InternalError(
          absl::StrCat("cannot wait for the editor: ", std::strerror(errno)));
    }
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return absl::OkStatus();
  if (WIFSIGNALED(status)) {
    return absl::FailedPreconditionError(
        absl::StrCat("editor ", editor, " was killed by signal ", WTERMSIG(status)));
  }
  return absl::FailedPreconditionError(
      absl::StrCat("editor ", editor, " exited with status ", WEXITSTATUS(status)));
}

}  // namespace cub::cli
