// The Directory provider: <path>/<space>/<file> on the local file system, with the manifest
// .cub-files beside the files (space_files.h): a later Release removes the files the manifest
// lists that its bundle lacks, and nothing else.
//
// Each file is replaced atomically (a temporary file in the same directory, fsync, rename), so a
// reader never sees a half-written manifest. The directory as a whole is not switched
// atomically: a reader listing it during a Deliver may see some files of the new Release next to
// some of the old one. New and changed files are written before stale ones are removed, so the
// directory never looks emptier than either Release. A file whose content is already what the
// bundle says is not rewritten (its mtime stays), so watchers see only real changes.
//
// Lock file: <path>/.<space>.cub-lock, beside the Space's directory rather than in it, so that
// the directory an operator deploys holds nothing cub did not put there on purpose.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/targets/internal.h"
#include "lib/targets/space_files.h"
#include "lib/util/status_macros.h"

namespace cub::targets::internal {
namespace {

namespace fs = std::filesystem;

// Temporary files start with this; they are ours, so leftovers of a killed Deliver are removed
// by the next one. They start with '.', so an operator never applies one.
constexpr char kTempPrefix[] = ".cub-tmp-";

absl::Status FsyncPath(const std::string& path, int flags) {
  int fd = ::open(path.c_str(), flags | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return absl::InternalError(absl::StrCat("cannot open ", path, ": ", ErrnoText(err)));
  }
  int rc = ::fsync(fd);
  int err = errno;
  ::close(fd);
  if (rc != 0)
    return absl::InternalError(absl::StrCat("cannot fsync ", path, ": ", ErrnoText(err)));
  return absl::OkStatus();
}

absl::Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      int err = errno;
      if (err == EINTR) continue;
      return absl::InternalError(absl::StrCat("cannot write ", path, ": ", ErrnoText(err)));
    }
    done += static_cast<size_t>(n);
  }
  return absl::OkStatus();
}

// Writes `content` to dir/name through a temporary file in dir: create (mode 0666 less the
// umask, like any new file), write, fsync, rename over the old file. The caller fsyncs dir.
absl::Status WriteFileAtomically(const std::string& dir, const std::string& name,
                                 const std::string& content) {
  const std::string target = dir + "/" + name;
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    tmp = absl::StrCat(dir, "/", kTempPrefix, name, ".", ::getpid(), ".", attempt);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
      int err = errno;
      if (err == EEXIST && attempt < 100) continue;
      return absl::InternalError(absl::StrCat("cannot create ", tmp, ": ", ErrnoText(err)));
    }
  }
  absl::Status s = WriteAll(fd, content, tmp);
  if (s.ok() && ::fsync(fd) != 0) {
    int err = errno;
    s = absl::InternalError(absl::StrCat("cannot fsync ", tmp, ": ", ErrnoText(err)));
  }
  if (::close(fd) != 0 && s.ok()) {
    int err = errno;
    s = absl::InternalError(absl::StrCat("cannot close ", tmp, ": ", ErrnoText(err)));
  }
  if (s.ok() && ::rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    s = absl::InternalError(
        absl::StrCat("cannot rename ", tmp, " to ", target, ": ", ErrnoText(err)));
  }
  if (!s.ok()) ::unlink(tmp.c_str());
  return s;
}

// True when `path` is a regular file holding exactly `content`.
bool HasContent(const std::string& path, const std::string& content) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::symlink_status(path, ec))) return false;
  if (fs::file_size(path, ec) != content.size() || ec) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return !in.bad() && have == content;
}

// The regular files of `dir` (our leftover temporaries aside, which are removed).
absl::StatusOr<std::set<std::string>> ListFiles(const std::string& dir) {
  std::error_code ec;
  std::set<std::string> leftovers;
  std::set<std::string> files;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    std::error_code sec;
    fs::file_status st = it->symlink_status(sec);
    if (sec || !fs::is_regular_file(st)) continue;
    (name.rfind(kTempPrefix, 0) == 0 ? leftovers : files).insert(std::move(name));
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("Directory target: cannot list ", dir, ": ", ec.message()));
  }
  for (const std::string& name : leftovers) ::unlink((dir + "/" + name).c_str());
  return files;
}

absl::Status Prefixed(const absl::Status& s) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat("Directory target: ", s.message()));
}

class DirectoryProvider : public Provider {
 public:
  explicit DirectoryProvider(std::string root) : root_(std::move(root)) {}

  // Checks the whole batch, then writes each Space's last Release of it, Space by Space, each
  // under its own lock.
  absl::StatusOr<DeliveryResult> Deliver(const std::vector<Delivery>& batch) override {
    DeliveryResult out;
    std::map<std::string, size_t> last;  // space -> index of its last Release in the batch
    for (size_t i = 0; i < batch.size(); ++i) {
      CUB_RETURN_IF_ERROR(ValidateDelivery(batch[i]));
      out.releases.push_back(DeliveredRelease{batch[i].release_id, SpaceDir(batch[i].space)});
      last[batch[i].space] = i;
    }
    if (batch.empty()) return out;
    std::error_code ec;
    fs::create_directories(root_, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("Directory target: cannot create ", root_, ": ", ec.message()));
    }
    for (const auto& [space, i] : last) CUB_RETURN_IF_ERROR(DeliverSpace(batch[i]));
    return out;
  }

 private:
  std::string SpaceDir(const std::string& space) const {
    return (root_ == "/" ? "" : root_) + "/" + space;
  }

  // Puts `d` in its Space's directory. Crash-safe for the manifest: before anything else
  // changes, it lists the old files and the new ones, so whatever a killed Deliver leaves behind
  // is listed, and the next one removes what its bundle lacks; after, it lists the new ones.
  absl::Status DeliverSpace(const Delivery& d) {
    const std::string dir = SpaceDir(d.space);
    CUB_ASSIGN_OR_RETURN(
        auto lock, LocationLock::Acquire(
                       "dir:" + dir, (root_ == "/" ? "" : root_) + "/." + d.space + ".cub-lock"));
    std::error_code ec;
    if (fs::exists(fs::symlink_status(dir, ec)) && !fs::is_directory(dir, ec)) {
      return absl::FailedPreconditionError(
          absl::StrCat("Directory target: ", dir, " exists and is not a directory"));
    }
    bool created = fs::create_directory(dir, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("Directory target: cannot create ", dir, ": ", ec.message()));
    }
    CUB_ASSIGN_OR_RETURN(const std::set<std::string> files, ListFiles(dir));
    std::set<std::string> before;
    if (files.count(kManifestName) != 0) {
      std::ifstream in(dir + "/" + kManifestName, std::ios::binary);
      before = ParseManifest(
          std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
    } else {
      for (const std::string& name : files) {
        if (OwnedWithoutManifest(name)) before.insert(name);
      }
    }
    const std::set<std::string> names = NamesWritten(d, /*kustomization=*/false);
    std::set<std::string> both = before;
    both.insert(names.begin(), names.end());
    const std::string manifest = dir + "/" + kManifestName;
    if (both != before || (files.count(kManifestName) == 0 && !both.empty())) {
      CUB_RETURN_IF_ERROR(Prefixed(
          WriteFileAtomically(dir, kManifestName, ManifestContent(d.space, d.release_num, both))));
    }
    for (const BundleFile& f : d.files) {
      if (HasContent(dir + "/" + f.name, f.content)) continue;
      CUB_RETURN_IF_ERROR(Prefixed(WriteFileAtomically(dir, f.name, f.content)));
    }
    for (const std::string& name : before) {
      if (names.count(name) != 0) continue;
      std::string path = dir + "/" + name;
      if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
        int err = errno;
        return absl::InternalError(
            absl::StrCat("Directory target: cannot remove ", path, ": ", ErrnoText(err)));
      }
    }
    if (names.empty()) {
      if (::unlink(manifest.c_str()) != 0 && errno != ENOENT) {
        int err = errno;
        return absl::InternalError(
            absl::StrCat("Directory target: cannot remove ", manifest, ": ", ErrnoText(err)));
      }
    } else {
      const std::string text = ManifestContent(d.space, d.release_num, names);
      if (!HasContent(manifest, text)) {
        CUB_RETURN_IF_ERROR(Prefixed(WriteFileAtomically(dir, kManifestName, text)));
      }
    }
    // Renames and unlinks are durable only once the directory itself is synced; a new directory
    // also needs its entry in the parent synced.
    CUB_RETURN_IF_ERROR(FsyncPath(dir, O_RDONLY | O_DIRECTORY));
    if (created) CUB_RETURN_IF_ERROR(FsyncPath(root_, O_RDONLY | O_DIRECTORY));
    return absl::OkStatus();
  }

  const std::string root_;
};

}  // namespace

std::unique_ptr<Provider> MakeDirectoryProvider(const std::map<std::string, std::string>& params) {
  // Lexically normalized, without a trailing '/', so that location keys (and the reported
  // location) are the same however the path was spelled.
  std::string root = fs::path(params.at("path")).lexically_normal().string();
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  return std::make_unique<DirectoryProvider>(std::move(root));
}

}  // namespace cub::targets::internal
