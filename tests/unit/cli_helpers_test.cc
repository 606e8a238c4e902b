// Unit tests for the cub CLI's pure helpers: table rendering, JSON pretty-printing, FIELD VALUE
// tables from messages, and the config file format.
// They link cub_cli, the whole CLI but its main().
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "cli/config.h"
#include "cli/output.h"
#include "cub/v1/common.pb.h"

namespace cub::cli {
namespace {

TEST_CASE("Table aligns columns and trims trailing blanks", "[cli]") {
  Table t{{"NAME", "STAGE", "ID"}, {{"acme-base", "", "1"}, {"a", "Production", ""}}};
  CHECK(t.Render() ==
        "NAME        STAGE        ID\n"
        "acme-base                1\n"
        "a           Production\n");
}

TEST_CASE("Table measures UTF-8 by code point and keeps rows on one line", "[cli]") {
  Table t{{"K", "V"}, {{"é", "multi\nline"}, {"ab", "x"}}};
  CHECK(t.Render() ==
        "K    V\n"
        "é    multi line\n"
        "ab   x\n");
}

TEST_CASE("PrettyJson indents by two and keeps empty containers together", "[cli]") {
  CHECK(PrettyJson(R"({"A":1,"B":[],"C":{},"D":[{"E":"x"}]})") ==
        "{\n"
        "  \"A\": 1,\n"
        "  \"B\": [],\n"
        "  \"C\": {},\n"
        "  \"D\": [\n"
        "    {\n"
        "      \"E\": \"x\"\n"
        "    }\n"
        "  ]\n"
        "}");
}

TEST_CASE("PrettyJson leaves string contents alone", "[cli]") {
  CHECK(PrettyJson(R"({"A":"{,:[ \"q\" \\"})") == "{\n  \"A\": \"{,:[ \\\"q\\\" \\\\\"\n}");
  CHECK(PrettyJson("[]") == "[]");
  CHECK(PrettyJson("[ ]") == "[]");
}

TEST_CASE("PrettyJson returns text that is not JSON as it is", "[cli]") {
  CHECK(PrettyJson(R"({"A":[1,2})") == R"({"A":[1,2})");
  CHECK(PrettyJson(R"({"A":"open)") == R"({"A":"open)");
  CHECK(PrettyJson("]") == "]");
  CHECK(PrettyJson(R"([1,{"B":null,"C":-2.5e3}])") ==
        "[\n  1,\n  {\n    \"B\": null,\n    \"C\": -2.5e3\n  }\n]");
}

TEST_CASE("MessageToCompactJson uses json_name and prints default values", "[cli]") {
  cub::v1::Space space;
  space.set_slug("acme-base");
  space.set_version(3);
  const std::string json = MessageToCompactJson(space);
  CHECK(json.find(R"("Slug":"acme-base")") != std::string::npos);
  CHECK(json.find(R"("SpaceID":"")") != std::string::npos);
  CHECK(json.find(R"("Labels":{})") != std::string::npos);
  CHECK(json.find(R"("Version":3)") != std::string::npos);
}

TEST_CASE("FieldTable lists fields in order, maps sorted, repeated joined", "[cli]") {
  cub::v1::User user;
  user.set_user_id("u1");
  user.set_username("alice");
  user.add_groups("ops");
  user.add_groups("dev");
  user.set_admin(true);
  Table t = FieldTable(user, {"CreatedAt", "Issuer", "Subject", "Email"});
  REQUIRE(t.rows.size() == 5);
  CHECK(t.rows[0] == std::vector<std::string>{"UserID", "u1"});
  CHECK(t.rows[2] == std::vector<std::string>{"Groups", "ops, dev"});
  CHECK(t.rows[3] == std::vector<std::string>{"Admin", "true"});
  CHECK(t.rows[4] == std::vector<std::string>{"ServiceAccount", "false"});

  cub::v1::Space space;
  (*space.mutable_labels())["Stage"] = "Production";
  (*space.mutable_labels())["Region"] = "us-east1";
  Table s = FieldTable(space);
  CHECK(s.rows[3] == std::vector<std::string>{"Labels", "Region=us-east1,Stage=Production"});
}

TEST_CASE("Config text round-trips, escapes included", "[cli]") {
  CliConfig config;
  config.current_context = "prod";
  config.contexts["prod"] = ContextConfig{"cubd:443", "t\"ok\\en", "/etc/ca.pem", false};
  config.contexts["dev"] = ContextConfig{"localhost:9090", "d", "", true};
  const std::string text = FormatConfig(config);
  auto parsed = ParseConfig(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->current_context == "prod");
  REQUIRE(parsed->contexts.size() == 2);
  CHECK(parsed->contexts["prod"].token == "t\"ok\\en");
  CHECK(parsed->contexts["prod"].tls_ca == "/etc/ca.pem");
  CHECK_FALSE(parsed->contexts["prod"].tls);
  CHECK(parsed->contexts["dev"].tls);
  CHECK(FormatConfig(*parsed) == text);
}

TEST_CASE("Config parsing ignores unknown fields and rejects malformed files", "[cli]") {
  auto empty = ParseConfig("  \n");
  REQUIRE(empty.ok());
  CHECK(empty->contexts.empty());

  auto extra = ParseConfig(
      R"({"CurrentContext":"a","X":[1],"Contexts":{"a":{"Server":"s:1","Token":"t","Y":2}}})");
  REQUIRE(extra.ok());
  CHECK(extra->contexts["a"].server == "s:1");

  CHECK_FALSE(ParseConfig("{\"CurrentContext\":").ok());
  CHECK_FALSE(ParseConfig(R"({"Contexts":[]})").ok());
  CHECK_FALSE(ParseConfig(R"({"Contexts":{"a":"b"}})").ok());
}

TEST_CASE("SaveConfig writes 0600 and LoadConfig reads it back", "[cli]") {
  char dir_template[] = "/tmp/cub_cli_test_XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  REQUIRE(dir != nullptr);
  const std::string path = std::string(dir) + "/nested/config.json";

  auto missing = LoadConfig(path);
  REQUIRE(missing.ok());
  CHECK(missing->contexts.empty());

  CliConfig config;
  config.current_context = "c";
  config.contexts["c"] = ContextConfig{"s:1", "secret", "", false};
  REQUIRE(SaveConfig(path, config).ok());
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  auto loaded = LoadConfig(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->contexts["c"].token == "secret");

  ::unlink(path.c_str());
  ::rmdir((std::string(dir) + "/nested").c_str());
  ::rmdir(dir);
}

TEST_CASE("Config keeps an OIDC context's issuer, client and refresh token", "[cli]") {
  CliConfig config;
  config.current_context = "idp";
  ContextConfig oidc{"cubd:443", "eyJ.id.token", "", true};
  oidc.oidc_issuer = "https://idp.example.com";
  oidc.oidc_client_id = "cub-cli";
  oidc.refresh_token = "r1";
  oidc.oidc_ca_file = "/etc/idp-ca.pem";
  config.contexts["idp"] = oidc;
  config.contexts["plain"] = ContextConfig{"s:1", "cub_x", "", false};
  const std::string text = FormatConfig(config);
  auto parsed = ParseConfig(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->contexts["idp"].oidc_issuer == "https://idp.example.com");
  CHECK(parsed->contexts["idp"].oidc_client_id == "cub-cli");
  CHECK(parsed->contexts["idp"].refresh_token == "r1");
  CHECK(parsed->contexts["idp"].oidc_ca_file == "/etc/idp-ca.pem");
  CHECK(parsed->contexts["idp"].token == "eyJ.id.token");
  CHECK(parsed->contexts["plain"].refresh_token.empty());
  CHECK(FormatConfig(*parsed) == text);
  // A context of cub's own token is written as before: no OIDC keys at all.
  CHECK(text.find("OidcIssuer") != std::string::npos);
  CHECK(FormatConfig(CliConfig{"p", {{"p", ContextConfig{"s:1", "t", "", false}}}}).find("Oidc") ==
        std::string::npos);
}

TEST_CASE("A config file written before OIDC contexts still loads", "[cli]") {
  auto old = ParseConfig(R"({"CurrentContext": "prod", "Contexts": {"prod": {
      "Server": "cubd:443", "Token": "t", "TlsCa": "/ca.pem"}}})");
  REQUIRE(old.ok());
  CHECK(old->contexts["prod"].token == "t");
  CHECK(old->contexts["prod"].oidc_issuer.empty());
  CHECK(old->contexts["prod"].refresh_token.empty());
}

TEST_CASE("SaveContextTokens replaces one context's tokens and keeps the file's other changes",
          "[cli]") {
  char dir_template[] = "/tmp/cub_cli_test_XXXXXX";
  const char* dir = ::mkdtemp(dir_template);
  REQUIRE(dir != nullptr);
  const std::string path = std::string(dir) + "/config.json";
  CliConfig config;
  config.current_context = "a";
  ContextConfig a{"s:1", "old-id", "", false};
  a.oidc_issuer = "https://idp";
  a.refresh_token = "old-refresh";
  config.contexts["a"] = a;
  REQUIRE(SaveConfig(path, config).ok());
  // Another process adds a context after this one read the file.
  CliConfig other = config;
  other.contexts["b"] = ContextConfig{"s:2", "tb", "", false};
  other.current_context = "b";
  REQUIRE(SaveConfig(path, other).ok());

  REQUIRE(SaveContextTokens(path, "a", "new-id", "new-refresh").ok());
  auto loaded = LoadConfig(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->current_context == "b");
  CHECK(loaded->contexts["b"].token == "tb");
  CHECK(loaded->contexts["a"].token == "new-id");
  CHECK(loaded->contexts["a"].refresh_token == "new-refresh");
  CHECK(loaded->contexts["a"].oidc_issuer == "https://idp");
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);

  // No rotated refresh token: the saved one stays.
  REQUIRE(SaveContextTokens(path, "a", "newer-id", "").ok());
  loaded = LoadConfig(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->contexts["a"].token == "newer-id");
  CHECK(loaded->contexts["a"].refresh_token == "new-refresh");

  auto gone = SaveContextTokens(path, "zzz", "x", "");
  CHECK(gone.code() == absl::StatusCode::kNotFound);

  ::unlink(path.c_str());
  ::unlink((path + ".lock").c_str());
  ::rmdir(dir);
}

}  // namespace
}  // namespace cub::cli
