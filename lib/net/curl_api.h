// libcurl, loaded the first time it is needed rather than when the program starts.
//
// Only a few commands speak plain HTTP (OpenID logins, registries, the token checks of an
// identity provider), while every `cub` command paid for loading libcurl and the two dozen
// libraries it links (TLS, Kerberos, LDAP, IDN...): about 4 ms of a 27 ms `cub whoami`. So the
// project links libcurl's headers only and opens the shared library with dlopen on first use.
#ifndef CUB_LIB_NET_CURL_API_H_
#define CUB_LIB_NET_CURL_API_H_

#include <curl/curl.h>

#include "absl/status/statusor.h"

namespace cub::net {

// The entry points of libcurl that the project calls.
struct CurlApi {
  CURL* (*easy_init)();
  void (*easy_cleanup)(CURL*);
  CURLcode (*easy_setopt)(CURL*, CURLoption, ...);
  CURLcode (*easy_perform)(CURL*);
  CURLcode (*easy_getinfo)(CURL*, CURLINFO, ...);
  const char* (*easy_strerror)(CURLcode);
  curl_slist* (*slist_append)(curl_slist*, const char*);
  void (*slist_free_all)(curl_slist*);
};

// libcurl, loaded and globally initialised once per process (thread-safe; Debian's libcurl is
// built thread-safe, so the global initialisation may run after other threads started).
// UNAVAILABLE naming the library and the loader's words when it cannot be loaded.
absl::StatusOr<const CurlApi*> Curl();

}  // namespace cub::net

#endif  // CUB_LIB_NET_CURL_API_H_
