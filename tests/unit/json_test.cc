// lib/util/json.h: the bytes cub's JSON writer produces are pinned here, since signed
// statements, jsonb parameters and files are written with it. The expected texts are what the
// hand-written writer (lib/util/json_text.cc, now deleted) produced for the same input, except
// where noted.
#include "lib/util/json.h"

#include <catch2/catch.hpp>
#include <map>
#include <string>
#include <vector>

#include "lib/sign/statement.h"

using cub::Json;
using cub::JsonQuote;
using cub::JsonText;

TEST_CASE("JsonQuote writes the bytes the old writer wrote", "[json]") {
  CHECK(JsonQuote("plain") == R"("plain")");
  CHECK(JsonQuote("q\"b\\s/") == R"("q\"b\\s/")");
  CHECK(JsonQuote("\n\r\t") == R"("\n\r\t")");
  CHECK(JsonQuote("\x01\x1f\x7f") == "\"\\u0001\\u001f\x7f\"");
  CHECK(JsonQuote("\xc3\xa9\xe2\x9c\x8c\xf0\x9f\x98\x80") ==
        "\"\xc3\xa9\xe2\x9c\x8c\xf0\x9f\x98\x80\"");
  CHECK(JsonQuote("") == R"("")");
  // Changed: the old writer spelled these two \u0008 and \u000c, and copied malformed UTF-8
  // through (which PostgreSQL's jsonb refuses). Both spellings read back as the same string.
  CHECK(JsonQuote("\b\f") == R"("\b\f")");
  CHECK(JsonQuote("x\xff") == "\"x\xef\xbf\xbd\"");
}

TEST_CASE("JsonText writes maps, lists and documents compactly in member order", "[json]") {
  CHECK(JsonText(std::map<std::string, std::string>{{"z", "1"}, {"a", "\"x\""}}) ==
        R"({"a":"\"x\"","z":"1"})");
  CHECK(JsonText(std::vector<std::string>{"a", "b\n"}) == R"(["a","b\n"])");
  CHECK(JsonText(std::vector<std::string>{}) == "[]");
  CHECK(JsonText(std::map<std::string, std::string>{}) == "{}");
  Json doc = Json::object();
  doc["Space"] = "s";
  doc["ReleaseNum"] = int64_t{7};
  doc["Counted"] = false;
  doc["Units"] = Json::array({{{"Unit", "u"}, {"RevisionNum", 3}}});
  doc["A"] = true;
  CHECK(JsonText(doc) ==
        R"({"Space":"s","ReleaseNum":7,"Counted":false,"Units":[{"Unit":"u","RevisionNum":3}],)"
        R"("A":true})");
  CHECK(cub::PrettyJsonText(Json{{"A", 1}, {"B", Json::array()}, {"C", Json::object()}}) ==
        "{\n  \"A\": 1,\n  \"B\": [],\n  \"C\": {}\n}");
}

// An approval statement of the shape lib/ops/releases.cc signs, with the bytes the StrCat
// builder produced for this input before it was replaced.
TEST_CASE("A statement built through Json has the bytes of the old StrCat builder", "[json]") {
  Json release = Json::object();
  release["Space"] = "acme/prod";
  release["ReleaseNum"] = int64_t{12};
  release["BundleDigest"] = "sha256:" + std::string(64, 'e');
  Json policy = Json::object();
  policy["Name"] = "two-approvers";
  policy["Type"] = "approve";
  policy["Count"] = 2;
  policy["FromUserIDs"] = std::vector<std::string>{"u-1", "u\"2"};
  policy["FromGroups"] = std::vector<std::string>{};
  policy["DistinctGroups"] = true;
  policy["MaxAge"] = "";
  Json predicate = Json::object();
  predicate["Release"] = std::move(release);
  predicate["Policy"] = Json::array({std::move(policy)});
  predicate["Votes"] = Json::array();
  predicate["SealedAt"] = "2026-12-01T11:00:00Z";
  const std::string statement = cub::sign::Statement(
      {{"acme/prod/release-12", std::string(64, 'e')}}, "https://cub.dev/Approvals/v1", predicate);
  // clang-format off
  CHECK(statement ==
        "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"acme/prod/"
        "release-12\",\"digest\":{\"sha256\":\"" + std::string(64, 'e') + "\"}}],"
        "\"predicateType\":\"https://cub.dev/Approvals/v1\",\"predicate\":{\"Release\":{"
        "\"Space\":\"acme/prod\",\"ReleaseNum\":12,\"BundleDigest\":\"sha256:" +
        std::string(64, 'e') + "\"},\"Policy\":[{\"Name\":\"two-approvers\",\"Type\":\"approve\","
        "\"Count\":2,\"FromUserIDs\":[\"u-1\",\"u\\\"2\"],\"FromGroups\":[],"
        "\"DistinctGroups\":true,\"MaxAge\":\"\"}],\"Votes\":[],"
        "\"SealedAt\":\"2026-12-01T11:00:00Z\"}}");
  // clang-format on
}

TEST_CASE("ParseJson reads RFC 8259 JSON and refuses duplicate keys", "[json]") {
  auto ok = cub::ParseJson(R"( {"a":"\u00e9\/","n":[1,2.5,null,true]} )");
  REQUIRE(ok.ok());
  CHECK((*ok)["a"] == "\xc3\xa9/");
  CHECK(std::string(cub::JsonKindName((*ok)["n"])) == "sequence");
  CHECK(std::string(cub::JsonKindName((*ok)["n"][0])) == "int");
  CHECK(std::string(cub::JsonKindName((*ok)["n"][1])) == "float");
  CHECK(std::string(cub::JsonKindName((*ok)["n"][2])) == "null");
  CHECK(std::string(cub::JsonKindName(*ok)) == "mapping");

  auto dup = cub::ParseJson(R"({"a":1,"b":{"a":2,"a":3}})");
  REQUIRE_FALSE(dup.ok());
  CHECK(dup.status().message() == R"(duplicate key "a" in an object)");
  // The same key in sibling objects is fine.
  CHECK(cub::ParseJson(R"([{"a":1},{"a":2}])").ok());

  auto bad = cub::ParseJson(R"({"a":)");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message().find("parse error at line 1") == 0);
  CHECK_FALSE(cub::ParseJson("").ok());
  CHECK_FALSE(cub::ParseJson("{} {}").ok());
}

TEST_CASE("AppendJsonString escapes what a JSON string must, and reads back as the text") {
  std::string out = "x";
  cub::AppendJsonString(out, "a\"b\\c\nd\re\tf\x01g\x1f h \xc3\xa9\x7f");
  CHECK(out == "x\"a\\\"b\\\\c\\nd\\re\\tf\\u0001g\\u001f h \xc3\xa9\x7f\"");
  auto back = cub::ParseJson(out.substr(1));
  REQUIRE(back.ok());
  CHECK(back->get<std::string>() == "a\"b\\c\nd\re\tf\x01g\x1f h \xc3\xa9\x7f");
  std::string empty;
  cub::AppendJsonString(empty, "");
  CHECK(empty == "\"\"");
}

TEST_CASE("JsonObjectWriter writes the bytes JsonText writes for the same members") {
  const std::string odd = "q\"\\\b\f\n\x01 \xc3\xa9 \xff";  // escapes, UTF-8, not UTF-8
  std::string out;
  cub::JsonObjectWriter w(out);
  w.String("s", odd).Int("n", -42).Bool("t", true).Bool("f", false);
  w.Strings("list", {"a", odd, ""}).Strings("none", {}).Raw("raw", R"({"x":[1]})");
  cub::JsonObjectWriter(w.Key(odd)).String("in", "side").Close();
  w.Close();
  cub::Json j = cub::Json::object();
  j["s"] = odd;
  j["n"] = -42;
  j["t"] = true;
  j["f"] = false;
  j["list"] = {"a", odd, ""};
  j["none"] = cub::Json::array();
  j["raw"] = {{"x", {1}}};
  j[odd] = {{"in", "side"}};
  CHECK(out == cub::JsonText(j));
  std::string empty;
  cub::JsonObjectWriter(empty).Close();
  CHECK(empty == "{}");
}
