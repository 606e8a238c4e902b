// Unit tests for the cub CLI's output and argument flags: --jq (through libjq), --no-header
// rows, --timeout durations, and `--label a=b,c=d` splitting.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/output.h"
#include "cli/timeout.h"

namespace cub::cli {
namespace {

TEST_CASE("RunJq prints strings raw and other values as compact JSON, one a line", "[cli]") {
  const std::string doc = R"([{"Slug":"a","N":1,"L":{"x":"y"}},{"Slug":"b","N":2,"L":{}}])";
  CHECK(*RunJq(".[].Slug", doc) == "a\nb\n");
  CHECK(*RunJq(".[] | .N", doc) == "1\n2\n");
  CHECK(*RunJq(".[0].L", doc) == "{\"x\":\"y\"}\n");
  CHECK(*RunJq("map(select(.N > 1)) | length", doc) == "1\n");
  CHECK(*RunJq("empty", doc) == "");
}

TEST_CASE("RunJq refuses a bad program and a failing one, naming --jq", "[cli]") {
  absl::StatusOr<std::string> bad = RunJq(".[", "[]");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(bad.status().message()).rfind("--jq '.[' is not a jq program: ", 0) == 0);
  absl::StatusOr<std::string> fails = RunJq(".a.b", R"({"a":"text"})");
  REQUIRE_FALSE(fails.ok());
  CHECK(std::string(fails.status().message()).find("--jq '.a.b': Cannot index string") !=
        std::string::npos);
}

TEST_CASE("Table::RenderRows drops the header but keeps the column widths", "[cli]") {
  Table t{{"NAME", "STAGE"}, {{"a", "Dev"}, {"bb", "Prod"}}};
  CHECK(t.RenderRows() ==
        "a      Dev\n"
        "bb     Prod\n");
  CHECK(Table{{"NAME"}, {}}.RenderRows() == "");
}

TEST_CASE("ParseTimeoutSeconds reads seconds and durations within a day", "[cli]") {
  CHECK(*ParseTimeoutSeconds("60") == 60);
  CHECK(*ParseTimeoutSeconds("2m") == 120);
  CHECK(*ParseTimeoutSeconds("90s") == 90);
  CHECK(*ParseTimeoutSeconds("1h30m") == 5400);
  CHECK(*ParseTimeoutSeconds("1d") == 86400);
  for (const char* bad : {"0", "-5", "86401", "2d", "", "2 m", "1.5m", "m"}) {
    INFO(bad);
    CHECK_FALSE(ParseTimeoutSeconds(bad).ok());
  }
  CHECK(ParseTimeoutSeconds("2w").status().message() ==
        "'2w' is not a timeout: write seconds (60) or a duration such as 90s, 2m, 1h");
  CHECK(ParseTimeoutSeconds("2d").status().message() ==
        "timeout '2d' is out of range: from 1s to 1d (86400 seconds)");
}

std::vector<std::string> ParseFlag(const std::string& flag, std::vector<std::string> args) {
  CLI::App app;
  std::vector<std::string> out;
  AddKeyValueFlag(&app, flag, &out, "");
  std::reverse(args.begin(), args.end());
  app.parse(args);
  return out;
}

TEST_CASE("--label takes several KEY=VALUE separated by commas; other flags one", "[cli]") {
  CHECK(ParseFlag("--label", {"--label", "a=b,c=d"}) == std::vector<std::string>{"a=b", "c=d"});
  CHECK(ParseFlag("--label", {"--label", "a=b", "--label", "c="}) ==
        std::vector<std::string>{"a=b", "c="});
  CHECK(ParseFlag("--param", {"--param", "a=b,c=d"}) == std::vector<std::string>{"a=b,c=d"});
  CHECK_THROWS_AS(ParseFlag("--label", {"--label", "a=b,c"}), CLI::ValidationError);
}

}  // namespace
}  // namespace cub::cli
