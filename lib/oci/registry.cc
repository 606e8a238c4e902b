#include "lib/oci/registry.h"

#include <algorithm>
#include <cctype>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "lib/net/http_client.h"
#include "lib/oci/auth_challenge.h"
#include "lib/sign/base64.h"
#include "lib/util/json.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::oci {
namespace {

constexpr char kManifestAccept[] =
    "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, "
    "application/vnd.docker.distribution.manifest.v2+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json";
constexpr size_t kTokenAnswerBytes = 1 << 20;
constexpr size_t kSmallAnswerBytes = 64 << 10;  // answers whose body cub does not need

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// A repository path component of the distribution spec: [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*.
bool IsPathComponent(absl::string_view c) {
  if (c.empty() || !IsLowerAlnum(c.front()) || !IsLowerAlnum(c.back())) return false;
  for (size_t i = 0; i < c.size(); ++i) {
    if (IsLowerAlnum(c[i])) continue;
    if (c[i] == '.' || c[i] == '_' || c[i] == '-') {
      size_t j = i;
      while (j < c.size() && c[j] == c[i]) ++j;
      size_t run = j - i;
      if ((c[i] == '.' && run > 1) || (c[i] == '_' && run > 2)) return false;
      if (j < c.size() && !IsLowerAlnum(c[j])) return false;  // "a.-b"
      i = j - 1;
      continue;
    }
    return false;
  }
  return true;
}

bool IsHostPort(absl::string_view h) {
  if (h.empty()) return false;
  absl::string_view name = h, port;
  if (h.front() == '[') {
    size_t close = h.find(']');
    if (close == absl::string_view::npos || close == 1) return false;
    for (char c : h.substr(1, close - 1)) {
      if (!std::isxdigit(static_cast<unsigned char>(c)) && c != ':' && c != '.') return false;
    }
    absl::string_view rest = h.substr(close + 1);
    if (rest.empty()) return true;
    if (rest.front() != ':') return false;
    port = rest.substr(1);
  } else {
    size_t colon = h.find(':');
    if (colon != absl::string_view::npos) {
      name = h.substr(0, colon);
      port = h.substr(colon + 1);
      if (port.empty()) return false;
    }
    if (name.empty() || name.front() == '-' || name.front() == '.' || name.back() == '-') {
      return false;
    }
    for (char c : name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') return false;
    }
  }
  if (!port.empty()) {
    int p = 0;
    if (port.size() > 5 || !absl::SimpleAtoi(port, &p) || p < 1 || p > 65535) return false;
    for (char c : port) {
      if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    }
  }
  return true;
}

bool IsTag(absl::string_view t) {
  if (t.empty() || t.size() > 128) return false;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (!word(t.front())) return false;
  for (char c : t) {
    if (!word(c) && c != '.' && c != '-') return false;
  }
  return true;
}

// The registry's own words from an error answer: "CODE: message; CODE: message".
std::string ErrorWords(const net::HttpResponse& r) {
  absl::StatusOr<Json> doc = ParseJson(r.body);
  std::string out;
  if (doc.ok() && doc->is_object() && doc->contains("errors") && (*doc)["errors"].is_array()) {
    for (const Json& e : (*doc)["errors"]) {
      if (!e.is_object()) continue;
      std::string code =
          e.contains("code") && e["code"].is_string() ? e["code"].get<std::string>() : "";
      std::string msg =
          e.contains("message") && e["message"].is_string() ? e["message"].get<std::string>() : "";
      absl::StrAppend(&out, out.empty() ? "" : "; ", code, code.empty() ? "" : ": ", msg);
    }
  }
  if (out.empty()) out = std::string(absl::StripAsciiWhitespace(r.body.substr(0, 200)));
  if (out.size() > 300) out = out.substr(0, 300) + "...";
  return out;
}

std::string BaseMediaType(const std::string& content_type) {
  return std::string(absl::StripAsciiWhitespace(content_type.substr(0, content_type.find(';'))));
}

std::string Header(const net::HttpResponse& r, const char* name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

struct CachedToken {
  std::string token;
  absl::Time expires;
};

}  // namespace

std::string DigestOf(std::string_view data) { return "sha256:" + Sha256Hex(data); }

bool IsDigest(std::string_view digest) {
  absl::string_view d(digest.data(), digest.size());
  if (d.size() != 71 || !absl::StartsWith(d, "sha256:")) return false;
  for (char c : d.substr(7)) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

struct Registry::State {
  std::string host, repository;
  RegistryOptions options;
  std::string origin;  // "https://HOST"

  std::mutex mu;       // guards what follows: copies of a Registry share it
  bool basic = false;  // the registry asked for Basic: send it from the start
  std::map<std::string, CachedToken> tokens;  // Bearer tokens by scope

  std::string Url(absl::string_view suffix) const {
    return absl::StrCat(origin, "/v2/", repository, suffix);
  }
  absl::Status Unavailable(absl::string_view what) const {
    return absl::UnavailableError(absl::StrCat("registry ", host, ": ", what));
  }

  struct Call {
    std::string method;
    std::string url;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string body;
    size_t max_bytes = kSmallAnswerBytes;
    std::string scope;  // "repository:PATH:pull" and so on
    std::string what;   // "PUT manifest x", for messages
  };

  absl::StatusOr<net::HttpResponse> Send(const Call& call);
  absl::StatusOr<net::HttpResponse> SendOnce(const Call& call, const std::string& authorization);
  absl::StatusOr<std::string> Authorization(const std::string& scope);
  absl::Status Answer(const Call& call, const net::HttpResponse& first);
  absl::StatusOr<CachedToken> FetchToken(const AuthChallenge& c, const std::string& scope);
  absl::Status Failed(const Call& call, const net::HttpResponse& r) const;
};

absl::StatusOr<net::HttpResponse> Registry::State::SendOnce(const Call& call,
                                                            const std::string& authorization) {
  net::HttpRequest req;
  req.method = call.method;
  req.url = call.url;
  req.headers = call.headers;
  if (!authorization.empty()) req.headers.emplace_back("Authorization", authorization);
  req.body = call.body;
  req.timeout = options.timeout;
  req.max_response_bytes = call.max_bytes;
  req.ca_file = options.ca_file;
  absl::StatusOr<net::HttpResponse> r = net::Fetch(req);
  if (!r.ok()) {
    // Fetch names the method and URL; neither carries a credential.
    return absl::Status(r.status().code(), absl::StrCat("registry ", host, ": ", call.what, ": ",
                                                        r.status().message()));
  }
  return r;
}

namespace {

// Whether an http(s) URL's host is a loopback address (localhost, 127.0.0.0/8, [::1]).
bool RealmIsLoopback(const std::string& url) {
  size_t start = url.find("://");
  if (start == std::string::npos) return false;
  start += 3;
  std::string host;
  if (start < url.size() && url[start] == '[') {
    size_t end = url.find(']', start);
    if (end == std::string::npos) return false;
    host = url.substr(start + 1, end - start - 1);
    return host == "::1";
  }
  size_t end = url.find_first_of(":/?#", start);
  host = absl::AsciiStrToLower(url.substr(start, end == std::string::npos ? end : end - start));
  return host == "localhost" || absl::StartsWith(host, "127.");
}

}  // namespace

absl::StatusOr<std::string> Registry::State::Authorization(const std::string& scope) {
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = tokens.find(scope); it != tokens.end() && it->second.expires > absl::Now()) {
    return "Bearer " + it->second.token;
  }
  if (basic && options.auth) {
    return "Basic " + sign::Base64Encode(options.auth->username + ":" + options.auth->password);
  }
  return std::string();
}

absl::StatusOr<CachedToken> Registry::State::FetchToken(const AuthChallenge& c,
                                                        const std::string& scope) {
  std::string realm = c.params.count("realm") ? c.params.at("realm") : "";
  if (!absl::StartsWith(realm, "https://") &&
      !(options.insecure && absl::StartsWith(realm, "http://"))) {
    return Unavailable(
        absl::StrCat("the token realm ", JsonQuote(realm), " is not an https:// URL"));
  }
  // A plain-HTTP registry is allowed only on loopback; its realm must be too, or the
  // credentials would cross the network in clear text.
  if (options.insecure && !RealmIsLoopback(realm)) {
    return Unavailable(absl::StrCat("the token realm ", JsonQuote(realm),
                                    " is not on a loopback address, and the registry is reached "
                                    "over plain HTTP (insecure=true)"));
  }
  std::vector<std::pair<std::string, std::string>> query;
  if (c.params.count("service")) query.emplace_back("service", c.params.at("service"));
  query.emplace_back("scope", c.params.count("scope") ? c.params.at("scope") : scope);
  net::HttpRequest req;
  req.url =
      absl::StrCat(realm, realm.find('?') == std::string::npos ? "?" : "&", net::FormEncode(query));
  if (options.auth) {
    req.headers.emplace_back(
        "Authorization",
        "Basic " + sign::Base64Encode(options.auth->username + ":" + options.auth->password));
  }
  req.timeout = options.timeout;
  req.max_response_bytes = kTokenAnswerBytes;
  req.ca_file = options.ca_file;
  absl::StatusOr<net::HttpResponse> r = net::Fetch(req);
  if (!r.ok()) return Unavailable(absl::StrCat("token: ", r.status().message()));
  if (r->status != 200) {
    // Only the status: the realm is the registry's choice, and its pages are not for the
    // Release's error (whoever runs the registry could point it at a host cubd can reach).
    return Unavailable(absl::StrCat("the token service ", realm, " refused (", r->status, ")"));
  }
  absl::StatusOr<Json> doc = ParseJson(r->body);
  CachedToken t;
  if (doc.ok() && doc->is_object()) {
    for (const char* name : {"token", "access_token"}) {
      if (doc->contains(name) && (*doc)[name].is_string()) t.token = (*doc)[name];
      if (!t.token.empty()) break;
    }
  }
  if (t.token.empty()) {
    return Unavailable(absl::StrCat("the token service ", realm, " answered no token"));
  }
  int64_t seconds = 60;
  if (doc->contains("expires_in") && (*doc)["expires_in"].is_number_integer()) {
    seconds = std::max<int64_t>((*doc)["expires_in"].get<int64_t>(), 10);
  }
  t.expires = absl::Now() + absl::Seconds(seconds - 5);
  return t;
}

// After a 401: learns what the registry wants (Basic, or a Bearer token for the scope).
absl::Status Registry::State::Answer(const Call& call, const net::HttpResponse& first) {
  std::string header = Header(first, "www-authenticate");
  absl::StatusOr<AuthChallenge> c = ParseAuthChallenge(header);
  if (!c.ok()) {
    return Unavailable(absl::StrCat(
        call.what, ": refused (401) with an unreadable challenge: ", c.status().message()));
  }
  if (c->scheme == "basic") {
    if (!options.auth) {
      return Unavailable(absl::StrCat(call.what,
                                      ": the registry asks for a user name and password (401), "
                                      "and none is configured"));
    }
    std::lock_guard<std::mutex> lock(mu);
    basic = true;
    return absl::OkStatus();
  }
  if (c->scheme == "bearer") {
    CUB_ASSIGN_OR_RETURN(CachedToken t, FetchToken(*c, call.scope));
    std::lock_guard<std::mutex> lock(mu);
    tokens[call.scope] = std::move(t);
    return absl::OkStatus();
  }
  return Unavailable(
      absl::StrCat(call.what, ": refused (401) asking for the unsupported scheme ", c->scheme));
}

absl::StatusOr<net::HttpResponse> Registry::State::Send(const Call& call) {
  CUB_ASSIGN_OR_RETURN(std::string authorization, Authorization(call.scope));
  CUB_ASSIGN_OR_RETURN(net::HttpResponse r, SendOnce(call, authorization));
  if (r.status != 401) return r;
  CUB_RETURN_IF_ERROR(Answer(call, r));
  CUB_ASSIGN_OR_RETURN(authorization, Authorization(call.scope));
  return SendOnce(call, authorization);
}

absl::Status Registry::State::Failed(const Call& call, const net::HttpResponse& r) const {
  const std::string words = ErrorWords(r);
  if (r.status == 401 || r.status == 403) {
    return Unavailable(absl::StrCat(call.what, ": refused (", r.status, "): ", words));
  }
  if (r.status >= 500) {
    return Unavailable(absl::StrCat(call.what, ": answered ", r.status, ": ", words));
  }
  if (r.status == 404) {
    return absl::NotFoundError(
        absl::StrCat("registry ", host, ": ", call.what, ": not found (404): ", words));
  }
  if (r.status >= 400) {
    return absl::InvalidArgumentError(
        absl::StrCat("registry ", host, ": ", call.what, ": rejected (", r.status, "): ", words));
  }
  return Unavailable(absl::StrCat(call.what, ": unexpected answer ", r.status));
}

absl::StatusOr<Registry> Registry::Open(std::string_view repository_text, RegistryOptions options) {
  absl::string_view repository(repository_text.data(), repository_text.size());
  const std::string named = absl::StrCat("repository ", JsonQuote(repository_text));
  size_t slash = repository.find('/');
  if (slash == absl::string_view::npos) {
    return absl::InvalidArgumentError(
        absl::StrCat(named, ": expected HOST[:PORT]/PATH, e.g. registry.example.com/cub/app"));
  }
  absl::string_view host = repository.substr(0, slash), path = repository.substr(slash + 1);
  if (!IsHostPort(host)) {
    return absl::InvalidArgumentError(absl::StrCat(named, ": ", JsonQuote(std::string(host)),
                                                   " is not a host name or address with an "
                                                   "optional :PORT"));
  }
  if (path.size() > 255) {
    return absl::InvalidArgumentError(absl::StrCat(named, ": the path is over 255 characters"));
  }
  for (absl::string_view c : absl::StrSplit(path, '/')) {
    if (!IsPathComponent(c)) {
      return absl::InvalidArgumentError(absl::StrCat(
          named, ": the path component ", JsonQuote(std::string(c)),
          " is not lowercase letters and digits separated by '.', '_', '__' or dashes (no "
          "tag or digest belongs here)"));
    }
  }
  auto state = std::make_shared<State>();
  state->host = std::string(host);
  state->repository = std::string(path);
  state->origin = absl::StrCat(options.insecure ? "http://" : "https://", host);
  state->options = std::move(options);
  return Registry(std::move(state));
}

const std::string& Registry::host() const { return state_->host; }
const std::string& Registry::repository() const { return state_->repository; }

absl::Status Registry::PutBlob(std::string_view data, const std::string& digest) {
  if (!IsDigest(digest)) {
    return absl::InvalidArgumentError(absl::StrCat("blob digest ", JsonQuote(digest),
                                                   " is not sha256: and 64 lowercase hex digits"));
  }
  if (DigestOf(data) != digest) {
    return absl::InvalidArgumentError(
        absl::StrCat("blob ", digest, ": the data given hashes to ", DigestOf(data)));
  }
  State& s = *state_;
  const std::string push = absl::StrCat("repository:", s.repository, ":pull,push");
  State::Call head{"HEAD", s.Url("/blobs/" + digest), {}, "", 0, push, "HEAD blob " + digest};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse exists, s.Send(head));
  if (exists.status == 200) return absl::OkStatus();
  if (exists.status != 404) return s.Failed(head, exists);

  State::Call start{"POST", s.Url("/blobs/uploads/"), {}, "", kSmallAnswerBytes,
                    push,   "POST blob upload"};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse started, s.Send(start));
  if (started.status != 202) return s.Failed(start, started);
  std::string location = Header(started, "location");
  if (absl::StartsWith(location, "/")) location = s.origin + location;
  // Credentials go to the registry's own origin only.
  if (!absl::StartsWith(location, s.origin + "/")) {
    return s.Unavailable(absl::StrCat("POST blob upload: the upload location ", JsonQuote(location),
                                      " is not on ", s.origin));
  }
  State::Call put{"PUT",
                  absl::StrCat(location, location.find('?') == std::string::npos ? "?" : "&",
                               "digest=", net::UrlEncode(digest)),
                  {{"Content-Type", "application/octet-stream"}},
                  std::string(data),
                  kSmallAnswerBytes,
                  push,
                  "PUT blob " + digest};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse done, s.Send(put));
  if (done.status != 201) return s.Failed(put, done);
  if (std::string got = Header(done, "docker-content-digest"); !got.empty() && got != digest) {
    return absl::DataLossError(
        absl::StrCat("registry ", s.host, ": PUT blob ", digest, ": the registry stored ", got));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> Registry::GetBlob(const std::string& digest, size_t max_bytes) {
  if (!IsDigest(digest)) {
    return absl::InvalidArgumentError(absl::StrCat("blob digest ", JsonQuote(digest),
                                                   " is not sha256: and 64 lowercase hex digits"));
  }
  State& s = *state_;
  // Room for an error answer's body even when the blob's own limit is tiny.
  State::Call get{"GET",
                  s.Url("/blobs/" + digest),
                  {},
                  "",
                  std::max(max_bytes, kSmallAnswerBytes),
                  absl::StrCat("repository:", s.repository, ":pull"),
                  "GET blob " + digest};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse r, s.Send(get));
  if (r.status == 307) {
    // Blob storage elsewhere (a bucket's signed URL): followed once, same scheme, and without
    // the registry's credentials unless it is the registry itself.
    std::string location = Header(r, "location");
    if (absl::StartsWith(location, "/")) location = s.origin + location;
    if (!absl::StartsWith(location, s.options.insecure ? "http://" : "https://")) {
      return s.Unavailable(
          absl::StrCat(get.what, ": redirected to ", JsonQuote(location), ", another scheme"));
    }
    State::Call follow = get;
    follow.url = location;
    if (absl::StartsWith(location, s.origin + "/")) {
      CUB_ASSIGN_OR_RETURN(r, s.Send(follow));
    } else {
      CUB_ASSIGN_OR_RETURN(r, s.SendOnce(follow, ""));
      // Another host's answer is not quoted (see FetchToken).
      if (r.status != 200 && r.status != 404) {
        return s.Unavailable(
            absl::StrCat(get.what, ": the blob store it redirected to answered ", r.status));
      }
    }
  }
  if (r.status == 404) {
    return absl::NotFoundError(
        absl::StrCat("registry ", s.host, ": blob ", digest, " is not in ", s.repository));
  }
  if (r.status != 200) return s.Failed(get, r);
  if (r.body.size() > max_bytes) {
    return absl::ResourceExhaustedError(
        absl::StrCat("registry ", s.host, ": blob ", digest, " is over ", max_bytes, " bytes"));
  }
  if (DigestOf(r.body) != digest) {
    return absl::DataLossError(absl::StrCat("registry ", s.host, ": blob ", digest,
                                            " as served hashes to ", DigestOf(r.body)));
  }
  return std::move(r.body);
}

absl::StatusOr<std::string> Registry::PutManifest(const std::string& reference,
                                                  const std::string& media_type,
                                                  std::string_view body) {
  const std::string digest = DigestOf(body);
  if (IsDigest(reference) ? reference != digest : !IsTag(reference)) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest reference ", JsonQuote(reference),
                     IsDigest(reference)
                         ? " is not the digest of the manifest (" + digest + ")"
                         : " is neither a tag ([A-Za-z0-9_][A-Za-z0-9._-]{0,127}) nor a digest"));
  }
  State& s = *state_;
  State::Call put{"PUT",
                  s.Url("/manifests/" + reference),
                  {{"Content-Type", media_type}},
                  std::string(body),
                  kSmallAnswerBytes,
                  absl::StrCat("repository:", s.repository, ":pull,push"),
                  "PUT manifest " + reference};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse r, s.Send(put));
  if (r.status != 201 && r.status != 200) return s.Failed(put, r);
  if (std::string got = Header(r, "docker-content-digest"); !got.empty() && got != digest) {
    return absl::DataLossError(absl::StrCat("registry ", s.host, ": PUT manifest ", reference,
                                            ": the registry stored ", got, ", not ", digest));
  }
  return digest;
}

absl::StatusOr<std::optional<Manifest>> Registry::GetManifest(const std::string& reference) {
  if (!IsDigest(reference) && !IsTag(reference)) {
    return absl::InvalidArgumentError(absl::StrCat("manifest reference ", JsonQuote(reference),
                                                   " is neither a tag nor a digest"));
  }
  State& s = *state_;
  State::Call get{"GET",
                  s.Url("/manifests/" + reference),
                  {{"Accept", kManifestAccept}},
                  "",
                  s.options.max_manifest_bytes,
                  absl::StrCat("repository:", s.repository, ":pull"),
                  "GET manifest " + reference};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse r, s.Send(get));
  if (r.status == 404) return std::nullopt;
  if (r.status != 200) return s.Failed(get, r);
  Manifest m;
  m.media_type = BaseMediaType(r.content_type);
  m.digest = DigestOf(r.body);
  std::string claimed = Header(r, "docker-content-digest");
  if (IsDigest(reference) && m.digest != reference) claimed = reference;
  if (!claimed.empty() && claimed != m.digest) {
    return absl::DataLossError(absl::StrCat("registry ", s.host, ": manifest ", reference,
                                            " is named ", claimed, " but hashes to ", m.digest));
  }
  m.body = std::move(r.body);
  return m;
}

absl::StatusOr<std::optional<std::string>> Registry::ResolveTag(const std::string& tag) {
  if (!IsTag(tag)) {
    return absl::InvalidArgumentError(absl::StrCat("tag ", JsonQuote(tag), " is not a tag"));
  }
  State& s = *state_;
  State::Call head{"HEAD",
                   s.Url("/manifests/" + tag),
                   {{"Accept", kManifestAccept}},
                   "",
                   0,
                   absl::StrCat("repository:", s.repository, ":pull"),
                   "HEAD manifest " + tag};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse r, s.Send(head));
  if (r.status == 404) return std::nullopt;
  if (r.status != 200) return s.Failed(head, r);
  std::string digest = Header(r, "docker-content-digest");
  if (IsDigest(digest)) return std::optional<std::string>(digest);
  // No digest header (allowed by the spec): the manifest itself says.
  CUB_ASSIGN_OR_RETURN(std::optional<Manifest> m, GetManifest(tag));
  if (!m) return std::nullopt;
  return std::optional<std::string>(m->digest);
}

absl::Status Registry::DeleteManifest(const std::string& digest) {
  if (!IsDigest(digest)) {
    return absl::InvalidArgumentError(
        absl::StrCat("manifest digest ", JsonQuote(digest), " is not a digest"));
  }
  State& s = *state_;
  State::Call del{"DELETE",
                  s.Url("/manifests/" + digest),
                  {},
                  "",
                  kSmallAnswerBytes,
                  absl::StrCat("repository:", s.repository, ":delete"),
                  "DELETE manifest " + digest};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse r, s.Send(del));
  if (r.status == 202 || r.status == 200 || r.status == 204) return absl::OkStatus();
  if (r.status == 405) {
    return absl::UnimplementedError(
        absl::StrCat("registry ", s.host, " does not allow deletes: ", ErrorWords(r)));
  }
  if (r.status == 404) {
    return absl::NotFoundError(
        absl::StrCat("registry ", s.host, ": manifest ", digest, " is not in ", s.repository));
  }
  return s.Failed(del, r);
}

namespace {

absl::StatusOr<Descriptor> ReadDescriptor(const Json& j) {
  if (!j.is_object()) return absl::InvalidArgumentError("a descriptor is not an object");
  Descriptor d;
  if (j.contains("mediaType") && j["mediaType"].is_string()) d.media_type = j["mediaType"];
  if (j.contains("digest") && j["digest"].is_string()) d.digest = j["digest"];
  if (j.contains("size") && j["size"].is_number_integer()) d.size = j["size"];
  if (j.contains("artifactType") && j["artifactType"].is_string()) {
    d.artifact_type = j["artifactType"];
  }
  if (j.contains("annotations") && j["annotations"].is_object()) {
    for (const auto& [k, v] : j["annotations"].items()) {
      if (v.is_string()) d.annotations[k] = v.get<std::string>();
    }
  }
  if (!IsDigest(d.digest)) {
    return absl::InvalidArgumentError(
        absl::StrCat("a descriptor's digest ", JsonQuote(d.digest), " is not a digest"));
  }
  return d;
}

}  // namespace

absl::StatusOr<std::vector<Descriptor>> Registry::Referrers(const std::string& digest,
                                                            const std::string& artifact_type) {
  if (!IsDigest(digest)) {
    return absl::InvalidArgumentError(
        absl::StrCat("subject digest ", JsonQuote(digest), " is not a digest"));
  }
  State& s = *state_;
  std::string url = s.Url("/referrers/" + digest);
  if (!artifact_type.empty())
    absl::StrAppend(&url, "?artifactType=", net::UrlEncode(artifact_type));
  State::Call get{"GET",
                  url,
                  {{"Accept", kOciIndex}},
                  "",
                  s.options.max_manifest_bytes,
                  absl::StrCat("repository:", s.repository, ":pull"),
                  "GET referrers of " + digest};
  CUB_ASSIGN_OR_RETURN(net::HttpResponse r, s.Send(get));
  // A registry without the API answers 404 (or refuses the route); one with it answers 200,
  // with an empty index when nothing refers to the digest.
  if (r.status == 404 || r.status == 405 || r.status == 400) {
    return absl::UnimplementedError(
        absl::StrCat("registry ", s.host, " has no referrers API (", r.status, ")"));
  }
  if (r.status != 200) return s.Failed(get, r);
  absl::StatusOr<Json> doc = ParseJson(r.body);
  if (!doc.ok() || !doc->is_object() ||
      (doc->contains("manifests") && !(*doc)["manifests"].is_array())) {
    return s.Unavailable(absl::StrCat(get.what, ": the answer is not an image index"));
  }
  std::vector<Descriptor> out;
  if (!doc->contains("manifests")) return out;
  for (const Json& j : (*doc)["manifests"]) {
    absl::StatusOr<Descriptor> d = ReadDescriptor(j);
    if (!d.ok()) return s.Unavailable(absl::StrCat(get.what, ": ", d.status().message()));
    // Filtered here too: a registry may ignore the filter (OCI-Filters-Applied absent).
    if (!artifact_type.empty() && d->artifact_type != artifact_type) continue;
    out.push_back(*std::move(d));
  }
  return out;
}

}  // namespace cub::oci
