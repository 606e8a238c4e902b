#include "lib/store/conninfo.h"

#include <fcntl.h>
#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cub::store {
namespace {

constexpr size_t kMaxPasswordFileSize = 4096;

absl::Status Refused(const std::string& path, const std::string& why) {
  return absl::FailedPreconditionError(absl::StrCat("--database-password-file ", path, ": ", why));
}

// Reads at most kMaxPasswordFileSize + 1 bytes of the open `fd`.
absl::StatusOr<std::string> ReadBounded(const std::string& path, int fd) {
  std::string text;
  char buf[1024];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Refused(path, absl::StrCat("cannot read it: ", std::strerror(errno)));
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxPasswordFileSize) return Refused(path, "over 4 KiB, not a password");
  }
  return text;
}

// The value quoted for a libpq key=value string: in single quotes, \ and ' escaped.
std::string Quoted(const char* value) {
  std::string out = "'";
  for (const char* p = value; *p != '\0'; ++p) {
    if (*p == '\\' || *p == '\'') out += '\\';
    out += *p;
  }
  return out + "'";
}

struct ConninfoFree {
  void operator()(PQconninfoOption* o) const { PQconninfoFree(o); }
};

// The content of the open `fd`, if it is a regular file others have no access to.
absl::StatusOr<std::string> ReadPrivate(const std::string& path, int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0)
    return Refused(path, absl::StrCat("cannot stat it: ", std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return Refused(path, "not a regular file");
  if ((st.st_mode & S_IRWXO) != 0) {
    return Refused(path, absl::StrFormat("has mode %04o, which lets others at it; chmod o= it",
                                         st.st_mode & 07777));
  }
  // Group read is what a Kubernetes Secret under fsGroup gets; group write is never needed.
  if ((st.st_mode & (S_IWGRP | S_IXGRP)) != 0) {
    return Refused(path, absl::StrFormat("has mode %04o, which lets its group change it; chmod "
                                         "g-wx it",
                                         st.st_mode & 07777));
  }
  return ReadBounded(path, fd);
}

}  // namespace

absl::StatusOr<std::string> ReadPasswordFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Refused(path, std::strerror(errno));
  absl::StatusOr<std::string> text = ReadPrivate(path, fd);
  ::close(fd);
  if (!text.ok()) return text;
  if (!text->empty() && text->back() == '\n') text->pop_back();
  if (!text->empty() && text->back() == '\r') text->pop_back();
  if (text->empty()) return Refused(path, "empty; it must hold the password");
  if (text->find('\0') != std::string::npos) {
    return Refused(path, "holds a NUL byte, which no PostgreSQL password can");
  }
  if (text->find_first_of("\r\n") != std::string::npos) {
    return Refused(path, "more than one line; it must hold the password alone");
  }
  return text;
}

absl::StatusOr<std::string> ConninfoWithPassword(const std::string& conninfo,
                                                 const std::string& password) {
  char* err = nullptr;
  std::unique_ptr<PQconninfoOption, ConninfoFree> opts(PQconninfoParse(conninfo.c_str(), &err));
  if (opts == nullptr) {
    std::string why = err != nullptr ? err : "out of memory";
    PQfreemem(err);
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return absl::InvalidArgumentError(absl::StrCat("--database-url does not parse: ", why));
  }
  std::string out;
  for (PQconninfoOption* o = opts.get(); o->keyword != nullptr; ++o) {
    if (o->val == nullptr || std::strcmp(o->keyword, "password") == 0) continue;
    absl::StrAppend(&out, o->keyword, "=", Quoted(o->val), " ");
  }
  absl::StrAppend(&out, "password=", Quoted(password.c_str()));
  return out;
}

}  // namespace cub::store
