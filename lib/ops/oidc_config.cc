#include "lib/ops/oidc_config.h"

#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/config/yaml.h"
#include "lib/net/http_client.h"
#include "lib/ops/identity_rules.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

// Copies the flag's values into each issuer's field, if it was given once per issuer.
absl::Status Pair(const char* flag, const std::vector<std::string>& values, bool required,
                  std::vector<OidcIssuer>& out, std::string OidcIssuer::*field) {
  if (values.empty() && !required) return absl::OkStatus();
  if (values.size() != out.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(flag, " is given ", values.size(), " time(s) for ", out.size(),
                     " --oidc-issuer: give it once per issuer, in the same order",
                     required ? "" : " (or not at all, for every issuer's default)"));
  }
  for (size_t i = 0; i < out.size(); ++i) out[i].*field = values[i];
  return absl::OkStatus();
}

absl::Status ReadString(const config::Node& v, const std::string& where, std::string* out) {
  if (!v.IsString()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": must be a string"));
  }
  *out = v.AsString();
  return absl::OkStatus();
}

absl::StatusOr<OidcIssuer> IssuerFromNode(const config::Node& item, const std::string& where) {
  if (!item.IsMapping()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": must be a mapping"));
  }
  OidcIssuer out;
  bool has_issuer = false, has_client = false;
  for (const auto& [key, v] : item.AsMapping()) {
    const std::string at = absl::StrCat(where, ".", key);
    if (key == "Issuer") {
      CUB_RETURN_IF_ERROR(ReadString(v, at, &out.issuer));
      has_issuer = true;
    } else if (key == "ClientID") {
      CUB_RETURN_IF_ERROR(ReadString(v, at, &out.client_id));
      has_client = true;
    } else if (key == "UsernameClaim") {
      CUB_RETURN_IF_ERROR(ReadString(v, at, &out.username_claim));
    } else if (key == "GroupsClaim") {
      CUB_RETURN_IF_ERROR(ReadString(v, at, &out.groups_claim));
    } else if (key == "UsernamePrefix") {
      CUB_RETURN_IF_ERROR(ReadString(v, at, &out.username_prefix));
    } else if (key == "GroupsPrefix") {
      CUB_RETURN_IF_ERROR(ReadString(v, at, &out.groups_prefix));
    } else if (key == "Scopes") {
      if (!v.IsSequence()) {
        return absl::InvalidArgumentError(absl::StrCat(at, ": must be a list of strings"));
      }
      out.scopes.clear();
      for (size_t i = 0; i < v.AsSequence().size(); ++i) {
        std::string s;
        CUB_RETURN_IF_ERROR(ReadString(v.AsSequence()[i], absl::StrCat(at, "[", i, "]"), &s));
        out.scopes.push_back(std::move(s));
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": unknown key '", key,
                       "' (known: Issuer, ClientID, UsernameClaim, GroupsClaim, UsernamePrefix, "
                       "GroupsPrefix, Scopes)"));
    }
  }
  if (!has_issuer) return absl::InvalidArgumentError(absl::StrCat(where, ": Issuer is missing"));
  if (!has_client) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ClientID is missing"));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<OidcIssuer>> IssuersFromFlags(const OidcFlagValues& f) {
  std::vector<OidcIssuer> out(f.issuers.size());
  for (size_t i = 0; i < out.size(); ++i) out[i].issuer = f.issuers[i];
  if (out.empty()) {
    for (const auto* v : {&f.client_ids, &f.username_claims, &f.groups_claims, &f.username_prefixes,
                          &f.groups_prefixes}) {
      if (!v->empty()) {
        return absl::InvalidArgumentError(
            "the --oidc-client-id, --oidc-*-claim and --oidc-*-prefix flags belong to an "
            "--oidc-issuer: give --oidc-issuer URL before them");
      }
    }
    return out;
  }
  CUB_RETURN_IF_ERROR(Pair("--oidc-client-id", f.client_ids, true, out, &OidcIssuer::client_id));
  CUB_RETURN_IF_ERROR(
      Pair("--oidc-username-claim", f.username_claims, false, out, &OidcIssuer::username_claim));
  CUB_RETURN_IF_ERROR(
      Pair("--oidc-groups-claim", f.groups_claims, false, out, &OidcIssuer::groups_claim));
  CUB_RETURN_IF_ERROR(Pair("--oidc-username-prefix", f.username_prefixes, false, out,
                           &OidcIssuer::username_prefix));
  CUB_RETURN_IF_ERROR(
      Pair("--oidc-groups-prefix", f.groups_prefixes, false, out, &OidcIssuer::groups_prefix));
  return out;
}

absl::StatusOr<std::vector<OidcIssuer>> ParseOidcConfig(std::string_view text,
                                                        const std::string& file) {
  auto docs = config::ParseYaml(text);
  if (!docs.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(file, ": ", docs.status().message()));
  }
  std::vector<OidcIssuer> out;
  if (docs->empty()) return out;
  if (docs->size() != 1 || !(*docs)[0].IsSequence()) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, ": must be one YAML list of issuers, each a mapping with Issuer and ClientID"));
  }
  const auto& items = (*docs)[0].AsSequence();
  for (size_t i = 0; i < items.size(); ++i) {
    CUB_ASSIGN_OR_RETURN(OidcIssuer issuer,
                         IssuerFromNode(items[i], absl::StrCat(file, "[", i, "]")));
    out.push_back(std::move(issuer));
  }
  return out;
}

absl::Status CheckIssuers(const std::vector<OidcIssuer>& issuers) {
  std::set<std::string> seen;
  for (const auto& i : issuers) {
    const std::string what = absl::StrCat("OpenID issuer ", i.issuer);
    CUB_RETURN_IF_ERROR(net::CheckIssuerUrl("--oidc-issuer", i.issuer));
    if (!seen.insert(i.issuer).second) {
      return absl::InvalidArgumentError(absl::StrCat(what, " is configured twice"));
    }
    if (i.client_id.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(what, ": the client ID is empty"));
    }
    if (i.username_claim.empty() || i.groups_claim.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": the username and groups claims must not be empty"));
    }
    CUB_RETURN_IF_ERROR(CheckUsernamePrefix(what + ": the username prefix", i.username_prefix));
    CUB_RETURN_IF_ERROR(CheckGroupsPrefix(what + ": the groups prefix", i.groups_prefix));
    for (const auto& s : i.scopes) {
      if (s.empty() || s.find_first_of(" \t\r\n") != std::string::npos) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, ": scope '", s, "' is empty or holds a space"));
      }
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<IdentityOptions> ResolveIdentity(IdentityOptions base, const OidcFlagValues& flags,
                                                std::string_view config_text) {
  CUB_ASSIGN_OR_RETURN(std::vector<OidcIssuer> issuers, IssuersFromFlags(flags));
  if (!flags.config_file.empty()) {
    CUB_ASSIGN_OR_RETURN(std::vector<OidcIssuer> more,
                         ParseOidcConfig(config_text, "--oidc-config " + flags.config_file));
    issuers.insert(issuers.end(), more.begin(), more.end());
  }
  CUB_RETURN_IF_ERROR(CheckIssuers(issuers));
  base.issuers = std::move(issuers);
  return base;
}

}  // namespace cub::ops
