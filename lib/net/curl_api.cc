#include "lib/net/curl_api.h"

#include <dlfcn.h>

#include <mutex>
#include <string>

#include "absl/strings/str_cat.h"

namespace cub::net {
namespace {

// The names of libcurl 7/8's shared library: the OpenSSL build first (what the project is
// built and packaged with), then the GnuTLS one, which has the same interface.
constexpr const char* kLibraries[] = {"libcurl.so.4", "libcurl-gnutls.so.4"};

// Resolves `name` into `*fn`; false (with `*error` set) when the library lacks it.
template <typename Fn>
bool Bind(void* lib, const char* name, Fn* fn, std::string* error) {
  *fn = reinterpret_cast<Fn>(::dlsym(lib, name));
  if (*fn == nullptr) *error = absl::StrCat("libcurl has no ", name);
  return *fn != nullptr;
}

absl::StatusOr<const CurlApi*> Load() {
  std::string tried;
  void* lib = nullptr;
  for (const char* name : kLibraries) {
    lib = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    const char* why = ::dlerror();
    absl::StrAppend(&tried, tried.empty() ? "" : "; ", why ? why : name);
  }
  if (lib == nullptr) {
    return absl::UnavailableError(
        absl::StrCat("HTTP is unavailable: libcurl could not be loaded (install the libcurl4 "
                     "package): ",
                     tried));
  }
  static CurlApi api;  // filled once, under the call_once of Curl()
  std::string error;
  if (!Bind(lib, "curl_easy_init", &api.easy_init, &error) ||
      !Bind(lib, "curl_easy_cleanup", &api.easy_cleanup, &error) ||
      !Bind(lib, "curl_easy_setopt", &api.easy_setopt, &error) ||
      !Bind(lib, "curl_easy_perform", &api.easy_perform, &error) ||
      !Bind(lib, "curl_easy_getinfo", &api.easy_getinfo, &error) ||
      !Bind(lib, "curl_easy_strerror", &api.easy_strerror, &error) ||
      !Bind(lib, "curl_slist_append", &api.slist_append, &error) ||
      !Bind(lib, "curl_slist_free_all", &api.slist_free_all, &error)) {
    return absl::UnavailableError(absl::StrCat("HTTP is unavailable: ", error));
  }
  CURLcode (*global_init)(long) = nullptr;
  if (!Bind(lib, "curl_global_init", &global_init, &error)) {
    return absl::UnavailableError(absl::StrCat("HTTP is unavailable: ", error));
  }
  if (CURLcode rc = global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
    return absl::UnavailableError(
        absl::StrCat("HTTP is unavailable: libcurl's initialisation failed (code ", rc, ")"));
  }
  return &api;  // the library stays loaded for the life of the process
}

}  // namespace

absl::StatusOr<const CurlApi*> Curl() {
  static std::once_flag once;
  static absl::StatusOr<const CurlApi*>* loaded = nullptr;
  std::call_once(once, [] { loaded = new absl::StatusOr<const CurlApi*>(Load()); });
  return *loaded;
}

}  // namespace cub::net
