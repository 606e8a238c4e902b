// The cub CLI's config file (contexts). See config.h.
#include "cli/config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "lib/util/json.h"

namespace cub::cli {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

std::string Errno(int err) { return std::strerror(err); }

// Creates `dir` and its missing parents with mode 0700.
absl::Status MakeDirs(const std::string& dir) {
  if (dir.empty()) return absl::OkStatus();
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return absl::OkStatus();
    return absl::FailedPreconditionError(absl::StrCat(dir, " is not a directory"));
  }
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0) {
    absl::Status parent = MakeDirs(dir.substr(0, slash));
    if (!parent.ok()) return parent;
  }
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::InternalError(absl::StrCat("cannot create ", dir, ": ", Errno(errno)));
  }
  return absl::OkStatus();
}

// The string (or bool) member `key` of the object `o`; "" (false) when absent or of another type.
std::string StringField(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

bool BoolField(const Json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

std::string ConfigPath() {
  if (std::string p = Env("CUB_CONFIG"); !p.empty()) return p;
  if (std::string x = Env("XDG_CONFIG_HOME"); !x.empty()) return x + "/cub/config.json";
  std::string home = Env("HOME");
  if (home.empty()) {
    if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr && pw->pw_dir != nullptr) {
      home = pw->pw_dir;
    }
  }
  if (home.empty()) return "";
  return home + "/.config/cub/config.json";
}

absl::StatusOr<CliConfig> ParseConfig(const std::string& text) {
  CliConfig config;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) return config;
  absl::StatusOr<Json> root = ParseJson(text);
  if (!root.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("not valid JSON: ", root.status().message()));
  }
  if (!root->is_object()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not valid JSON: the file holds a ", JsonKindName(*root), ", not an object"));
  }
  config.current_context = StringField(*root, "CurrentContext");
  auto it = root->find("Contexts");
  if (it != root->end()) {
    if (!it->is_object()) return absl::InvalidArgumentError("Contexts is not an object");
    for (const auto& [name, c] : it->items()) {
      if (!c.is_object()) {
        return absl::InvalidArgumentError(absl::StrCat("context ", name, " is not an object"));
      }
      ContextConfig& ctx = config.contexts[name];
      ctx.server = StringField(c, "Server");
      ctx.token = StringField(c, "Token");
      ctx.tls_ca = StringField(c, "TlsCa");
      ctx.tls = BoolField(c, "Tls");
      ctx.oidc_issuer = StringField(c, "OidcIssuer");
      ctx.oidc_client_id = StringField(c, "OidcClientID");
      ctx.refresh_token = StringField(c, "RefreshToken");
      ctx.oidc_ca_file = StringField(c, "OidcCaFile");
      ctx.space = StringField(c, "Space");
      ctx.user = StringField(c, "User");
    }
  }
  return config;
}

std::string FormatConfig(const CliConfig& config) {
  // Members in a fixed order (contexts sorted by name), so the file reads and diffs well.
  Json contexts = Json::object();
  for (const auto& [name, c] : config.contexts) {
    Json one = {{"Server", c.server}, {"Token", c.token}};
    if (!c.tls_ca.empty()) one["TlsCa"] = c.tls_ca;
    if (c.tls) one["Tls"] = true;
    if (!c.oidc_issuer.empty()) one["OidcIssuer"] = c.oidc_issuer;
    if (!c.oidc_client_id.empty()) one["OidcClientID"] = c.oidc_client_id;
    if (!c.refresh_token.empty()) one["RefreshToken"] = c.refresh_token;
    if (!c.oidc_ca_file.empty()) one["OidcCaFile"] = c.oidc_ca_file;
    if (!c.space.empty()) one["Space"] = c.space;
    if (!c.user.empty()) one["User"] = c.user;
    contexts[name] = std::move(one);
  }
  Json root = Json::object();
  root["CurrentContext"] = config.current_context;
  root["Contexts"] = std::move(contexts);
  return PrettyJsonText(root) + "\n";
}

absl::StatusOr<CliConfig> LoadConfig(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    if (errno == ENOENT) return CliConfig{};
    return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", Errno(errno)));
  }
  std::string text;
  char buf[8192];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  std::fclose(f);
  if (failed) return absl::NotFoundError(absl::StrCat("cannot read ", path, ": ", Errno(err)));
  auto config = ParseConfig(text);
  if (!config.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot parse ", path, ": ", config.status().message()));
  }
  return config;
}

absl::Status SaveConfig(const std::string& path, const CliConfig& config) {
  if (path.empty()) {
    return absl::FailedPreconditionError(
        "no config file location: set CUB_CONFIG, XDG_CONFIG_HOME or HOME");
  }
  const size_t slash = path.find_last_of('/');
  if (slash != std::string::npos) {
    absl::Status dirs = MakeDirs(path.substr(0, slash));
    if (!dirs.ok()) return dirs;
  }
  const std::string text = FormatConfig(config);
  const std::string tmp = absl::StrCat(path, ".tmp.", ::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return absl::InternalError(absl::StrCat("cannot write ", tmp, ": ", Errno(errno)));
  ::fchmod(fd, 0600);  // In case a stale temporary file had wider permissions.
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return absl::InternalError(absl::StrCat("cannot write ", tmp, ": ", Errno(err)));
    }
    written += static_cast<size_t>(n);
  }
  int err = ::fsync(fd) == 0 ? 0 : errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", tmp, ": ", Errno(err)));
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    err = errno;
    ::unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", Errno(err)));
  }
  return absl::OkStatus();
}

absl::Status UpdateConfig(const std::string& path,
                          const std::function<absl::StatusOr<bool>(CliConfig&)>& edit) {
  if (path.empty()) {
    return absl::FailedPreconditionError(
        "no config file location: set CUB_CONFIG, XDG_CONFIG_HOME or HOME");
  }
  if (const size_t slash = path.find_last_of('/'); slash != std::string::npos) {
    absl::Status dirs = MakeDirs(path.substr(0, slash));
    if (!dirs.ok()) return dirs;
  }
  // The lock file, not the config itself: the config is replaced by rename, so a lock on it
  // would be held on a file no longer in place.
  const std::string lock_path = path + ".lock";
  const int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (lock < 0) {
    return absl::InternalError(absl::StrCat("cannot open ", lock_path, ": ", Errno(errno)));
  }
  while (::flock(lock, LOCK_EX) != 0) {
    if (errno != EINTR) {
      const int err = errno;
      ::close(lock);
      return absl::InternalError(absl::StrCat("cannot lock ", lock_path, ": ", Errno(err)));
    }
  }
  absl::Status result = [&]() -> absl::Status {
    absl::StatusOr<CliConfig> config = LoadConfig(path);
    if (!config.ok()) return config.status();
    absl::StatusOr<bool> changed = edit(*config);
    if (!changed.ok()) return changed.status();
    return *changed ? SaveConfig(path, *config) : absl::OkStatus();
  }();
  ::close(lock);  // Releases the lock.
  return result;
}

absl::Status UpdateContext(const std::string& path, const std::string& name,
                           const std::function<absl::StatusOr<bool>(ContextConfig&)>& edit) {
  return UpdateConfig(path, [&](CliConfig& config) -> absl::StatusOr<bool> {
    auto it = config.contexts.find(name);
    if (it == config.contexts.end()) {
      return absl::NotFoundError(absl::StrCat("context ", name, " is no longer in ", path));
    }
    return edit(it->second);
  });
}

absl::Status SaveContextTokens(const std::string& path, const std::string& name,
                               const std::string& token, const std::string& refresh_token) {
  return UpdateContext(path, name, [&](ContextConfig& ctx) -> absl::StatusOr<bool> {
    ctx.token = token;
    if (!refresh_token.empty()) ctx.refresh_token = refresh_token;
    return true;
  });
}

}  // namespace cub::cli
