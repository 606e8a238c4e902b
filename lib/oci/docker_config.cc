// CredentialsFromDockerConfig (lib/oci/registry.h): the "auths" section of a docker
// config.json, as `docker login`, `podman login` and `skopeo login` write it.
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/oci/registry.h"
#include "lib/sign/base64.h"
#include "lib/util/json.h"

namespace cub::oci {
namespace {

// "https://HOST/v1/" -> "host": the spellings docker uses for one registry's key.
std::string KeyHost(const std::string& entry) {
  absl::string_view key = entry;
  absl::ConsumePrefix(&key, "https://");
  absl::ConsumePrefix(&key, "http://");
  key = key.substr(0, key.find('/'));
  return absl::AsciiStrToLower(key);
}

absl::StatusOr<RegistryCredentials> EntryCredentials(const std::string& key, const Json& entry) {
  const std::string where = absl::StrCat("docker config: auths[", JsonQuote(key), "]");
  if (!entry.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " is not an object"));
  }
  auto text = [&](const char* name) -> std::string {
    auto it = entry.find(name);
    return it != entry.end() && it->is_string() ? it->get<std::string>() : "";
  };
  RegistryCredentials c;
  if (std::string auth = text("auth"); !auth.empty()) {
    absl::StatusOr<std::string> decoded = sign::Base64Decode(auth);
    size_t colon = decoded.ok() ? decoded->find(':') : std::string::npos;
    if (colon == std::string::npos || colon == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": \"auth\" is not the base64 of \"user:password\""));
    }
    c.username = decoded->substr(0, colon);
    c.password = decoded->substr(colon + 1);
    return c;
  }
  c.username = text("username");
  c.password = text("password");
  if (c.password.empty()) c.password = text("identitytoken");
  if (c.username.empty() || c.password.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(where,
                     " has neither \"auth\" nor \"username\" and \"password\" (credential helpers "
                     "and stores are not read)"));
  }
  return c;
}

}  // namespace

absl::StatusOr<std::optional<RegistryCredentials>> CredentialsFromDockerConfig(
    std::string_view config_json, std::string_view host) {
  absl::StatusOr<Json> doc = ParseJson(config_json);
  if (!doc.ok()) {
    // The parser's own message ends with the last token it read, which may be part of a
    // password: say only that the document does not parse.
    return absl::InvalidArgumentError(
        "docker config: not JSON (the file does not parse; it may be half-written)");
  }
  if (!doc->is_object()) {
    return absl::InvalidArgumentError("docker config: the document is not a JSON object");
  }
  auto auths = doc->find("auths");
  if (auths == doc->end()) return std::nullopt;
  if (!auths->is_object()) {
    return absl::InvalidArgumentError("docker config: \"auths\" is not an object");
  }
  const std::string want = absl::AsciiStrToLower(std::string(host));
  for (const auto& [key, entry] : auths->items()) {
    if (KeyHost(key) != want) continue;
    absl::StatusOr<RegistryCredentials> c = EntryCredentials(key, entry);
    if (!c.ok()) return c.status();
    return std::optional<RegistryCredentials>(*std::move(c));
  }
  return std::nullopt;
}

}  // namespace cub::oci
