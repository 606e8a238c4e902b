// Unit tests for the rules of identities from OpenID providers (lib/ops/identity_rules.h,
// lib/ops/oidc_config.h, workflow::IsValidGroupName): usernames, group names, the subject glob
// of service accounts, --claim values and the --oidc-* flags' pairing and config file.
#include "lib/ops/identity_rules.h"

#include <catch2/catch.hpp>
#include <string>

#include "lib/ops/oidc_config.h"
#include "lib/workflow/names.h"

namespace cub::ops {
namespace {

TEST_CASE("GlobMatches: '*' is any run of characters, everything else itself") {
  CHECK(GlobMatches("repo:acme/app:*", "repo:acme/app:ref:refs/heads/main"));
  CHECK(GlobMatches("repo:acme/app:*", "repo:acme/app:"));
  CHECK_FALSE(GlobMatches("repo:acme/app:*", "repo:acme/app"));
  CHECK_FALSE(GlobMatches("repo:acme/app:*", "repo:acme/application:ref"));
  CHECK(GlobMatches("*", ""));
  CHECK(GlobMatches("*", "anything at all"));
  CHECK(GlobMatches("exact", "exact"));
  CHECK_FALSE(GlobMatches("exact", "exactly"));
  CHECK_FALSE(GlobMatches("exact", "exac"));
  CHECK_FALSE(GlobMatches("", "x"));
  CHECK(GlobMatches("", ""));
  CHECK(GlobMatches("a*b*c", "aXbYc"));
  CHECK(GlobMatches("a*b*c", "abc"));
  CHECK(GlobMatches("a*b*c", "abbbcbc"));
  CHECK_FALSE(GlobMatches("a*b*c", "abcd"));
  CHECK(GlobMatches("project_path:grp/*:ref_type:branch:ref:main",
                    "project_path:grp/sub/app:ref_type:branch:ref:main"));
  CHECK_FALSE(GlobMatches("project_path:grp/*:ref_type:branch:ref:main",
                          "project_path:grp/app:ref_type:tag:ref:main"));
  // No other wildcard: '?' and '[' are themselves.
  CHECK_FALSE(GlobMatches("a?c", "abc"));
  CHECK(GlobMatches("a?c", "a?c"));
  CHECK(GlobMatches("[x]", "[x]"));
  // Many stars against a long subject finish (no exponential backtracking).
  CHECK_FALSE(GlobMatches("*a*a*a*a*a*a*a*a*b", std::string(5000, 'a')));
}

TEST_CASE("IsValidOidcUsername: letters, digits and - _ . @ : +, starting alphanumeric") {
  CHECK(IsValidOidcUsername("alice"));
  CHECK(IsValidOidcUsername("dex:alice"));
  CHECK(IsValidOidcUsername("alice@example.com"));
  CHECK(IsValidOidcUsername("gitlab:alice.smith+ci_1-x"));
  CHECK(IsValidOidcUsername(std::string(256, 'a')));
  CHECK_FALSE(IsValidOidcUsername(std::string(257, 'a')));
  CHECK_FALSE(IsValidOidcUsername(""));
  CHECK_FALSE(IsValidOidcUsername(":alice"));
  CHECK_FALSE(IsValidOidcUsername("-alice"));
  CHECK_FALSE(IsValidOidcUsername("alice smith"));
  CHECK_FALSE(IsValidOidcUsername("alice,bob"));
  CHECK_FALSE(IsValidOidcUsername("al=ice"));
  CHECK_FALSE(IsValidOidcUsername("ali'ce"));
  CHECK_FALSE(IsValidOidcUsername("a/b"));
  CHECK(CheckUsernamePrefix("--oidc-username-prefix", "").ok());
  CHECK(CheckUsernamePrefix("--oidc-username-prefix", "dex:").ok());
  CHECK(CheckUsernamePrefix("--oidc-username-prefix", ":x").message() ==
        "--oidc-username-prefix ':x' cannot begin a username: use letters, digits, '-', '_', "
        "'.', '@', ':' or '+', starting with a letter or digit");
}

TEST_CASE("IsValidGroupName: provider groups with prefixes and paths") {
  CHECK(workflow::IsValidGroupName("admins"));
  CHECK(workflow::IsValidGroupName("dex:admins"));
  CHECK(workflow::IsValidGroupName("/platform/oncall"));
  CHECK(workflow::IsValidGroupName("acme/release-managers"));
  CHECK(workflow::IsValidGroupName("@acme"));
  CHECK_FALSE(workflow::IsValidGroupName(""));
  CHECK_FALSE(workflow::IsValidGroupName("ops team"));
  CHECK_FALSE(workflow::IsValidGroupName("a,b"));
  CHECK_FALSE(workflow::IsValidGroupName("a;b"));
  CHECK_FALSE(workflow::IsValidGroupName("a=b"));
  CHECK_FALSE(workflow::IsValidGroupName("-x"));
  CHECK_FALSE(workflow::IsValidGroupName(std::string(257, 'g')));
  CHECK(workflow::InvalidGroupNameMessage("ops team") ==
        "group name 'ops team' is not valid: use 1-256 letters, digits, '-', '_', '.', ':', '/', "
        "'@' or '+', starting with a letter, digit, '/' or '@'");
}

TEST_CASE("ParseClaimRequirement and CheckSubjectPattern") {
  auto kv = ParseClaimRequirement("repository=acme/app");
  REQUIRE(kv.ok());
  CHECK(kv->first == "repository");
  CHECK(kv->second == "acme/app");
  auto eq = ParseClaimRequirement("ref=a=b");
  REQUIRE(eq.ok());
  CHECK(eq->second == "a=b");
  auto empty_value = ParseClaimRequirement("ref_protected=");
  REQUIRE(empty_value.ok());
  CHECK(empty_value->second.empty());
  CHECK(ParseClaimRequirement("repository").status().message() ==
        "--claim 'repository': give KEY=VALUE, e.g. repository=acme/app");
  CHECK(ParseClaimRequirement("=x").status().message() ==
        "--claim '=x': give KEY=VALUE, e.g. repository=acme/app");
  CHECK(ParseClaimRequirement("sub=x").status().message() ==
        "--claim 'sub=x': 'sub' is checked by cubd itself; use --oidc-issuer, --audience and "
        "--subject");
  CHECK(CheckSubjectPattern("repo:acme/*").ok());
  CHECK(CheckSubjectPattern("").message() == "--subject is empty: give a pattern");
  CHECK(!CheckSubjectPattern("a b").ok());
}

TEST_CASE("IssuersFromFlags pairs the flags by position") {
  OidcFlagValues f;
  f.issuers = {"https://a.example", "http://127.0.0.1:5556"};
  f.client_ids = {"cub-a", "cub-b"};
  f.groups_prefixes = {"a:", "b:"};
  auto issuers = IssuersFromFlags(f);
  REQUIRE(issuers.ok());
  REQUIRE(issuers->size() == 2);
  CHECK((*issuers)[1].issuer == "http://127.0.0.1:5556");
  CHECK((*issuers)[1].client_id == "cub-b");
  CHECK((*issuers)[1].groups_prefix == "b:");
  CHECK((*issuers)[1].username_claim == "preferred_username");
  CHECK((*issuers)[0].groups_claim == "groups");
  CHECK(CheckIssuers(*issuers).ok());

  f.username_claims = {"email"};
  CHECK(IssuersFromFlags(f).status().message() ==
        "--oidc-username-claim is given 1 time(s) for 2 --oidc-issuer: give it once per issuer, "
        "in the same order (or not at all, for every issuer's default)");
  f.username_claims.clear();
  f.client_ids = {"cub-a"};
  CHECK(IssuersFromFlags(f).status().message() ==
        "--oidc-client-id is given 1 time(s) for 2 --oidc-issuer: give it once per issuer, in "
        "the same order");
  OidcFlagValues orphan;
  orphan.client_ids = {"x"};
  CHECK(!IssuersFromFlags(orphan).ok());
}

TEST_CASE("CheckIssuers refuses what cannot work") {
  OidcIssuer plain;
  plain.issuer = "http://idp.example.com";
  plain.client_id = "cub";
  CHECK(!CheckIssuers({plain}).ok());  // http only on loopback
  OidcIssuer ok = plain;
  ok.issuer = "https://idp.example.com";
  CHECK(CheckIssuers({ok}).ok());
  CHECK(CheckIssuers({ok, ok}).message() ==
        "OpenID issuer https://idp.example.com is configured twice");
  OidcIssuer bad_prefix = ok;
  bad_prefix.groups_prefix = "a b";
  CHECK(!CheckIssuers({bad_prefix}).ok());
}

TEST_CASE("ParseOidcConfig reads a YAML list of issuers, refusing unknown keys") {
  auto issuers = ParseOidcConfig(
      "- Issuer: https://dex.example.com\n"
      "  ClientID: cub-cli\n"
      "  UsernamePrefix: 'dex:'\n"
      "  GroupsPrefix: 'dex:'\n"
      "  Scopes: [openid, email]\n"
      "- Issuer: https://kc.example.com/realms/acme\n"
      "  ClientID: cub\n"
      "  UsernameClaim: email\n",
      "oidc.yaml");
  REQUIRE(issuers.ok());
  REQUIRE(issuers->size() == 2);
  CHECK((*issuers)[0].username_prefix == "dex:");
  CHECK((*issuers)[0].scopes == std::vector<std::string>{"openid", "email"});
  CHECK((*issuers)[1].username_claim == "email");
  CHECK((*issuers)[1].scopes.size() == 5);  // the default
  CHECK(ParseOidcConfig("- Issuer: https://x\n  ClientID: c\n  ClientSecret: s\n", "f.yaml")
            .status()
            .message() ==
        "f.yaml[0]: unknown key 'ClientSecret' (known: Issuer, ClientID, UsernameClaim, "
        "GroupsClaim, UsernamePrefix, GroupsPrefix, Scopes)");
  CHECK(ParseOidcConfig("- Issuer: https://x\n", "f.yaml").status().message() ==
        "f.yaml[0]: ClientID is missing");
  CHECK(ParseOidcConfig("Issuer: https://x\n", "f.yaml").status().message() ==
        "f.yaml: must be one YAML list of issuers, each a mapping with Issuer and ClientID");
  CHECK(ParseOidcConfig("- Issuer: 7\n  ClientID: c\n", "f.yaml").status().message() ==
        "f.yaml[0].Issuer: must be a string");
  CHECK(ParseOidcConfig("", "f.yaml")->empty());
}

TEST_CASE("ResolveIdentity joins flags and file and checks them together") {
  IdentityOptions base;
  base.oidc_ca_file = "/ca.pem";
  OidcFlagValues f;
  f.issuers = {"https://a.example"};
  f.client_ids = {"cub"};
  f.config_file = "more.yaml";
  auto both = ResolveIdentity(base, f, "- Issuer: https://b.example\n  ClientID: cub\n");
  REQUIRE(both.ok());
  CHECK(both->issuers.size() == 2);
  CHECK(both->oidc_ca_file == "/ca.pem");
  auto dup = ResolveIdentity(base, f, "- Issuer: https://a.example\n  ClientID: cub\n");
  CHECK(dup.status().message() == "OpenID issuer https://a.example is configured twice");
}

}  // namespace
}  // namespace cub::ops
