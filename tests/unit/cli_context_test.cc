// Tests for the CLI's context Space and User fields (cli/config.h), DefaultSpace
// (cli/contexts.h), the Unit data flags (cli/unit_input.h), Count (cli/count.h) and the editor
// helpers of `cub unit edit` (cli/editor.h).

#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "cli/config.h"
#include "cli/contexts.h"
#include "cli/count.h"
#include "cli/editor.h"
#include "cli/unit_input.h"

namespace cub::cli {
namespace {

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A temporary directory with CUB_CONFIG pointing into it for the test's lifetime.
struct TempConfig {
  std::string dir, path;
  TempConfig() {
    char tmpl[] = "/tmp/cub_ctx_test_XXXXXX";
    dir = ::mkdtemp(tmpl);
    path = dir + "/config.json";
    ::setenv("CUB_CONFIG", path.c_str(), 1);
  }
  ~TempConfig() {
    ::unsetenv("CUB_CONFIG");
    ::unlink(path.c_str());
    ::unlink((path + ".lock").c_str());
    ::rmdir(dir.c_str());
  }
};

TEST_CASE("A context's Space and User round-trip and are left out when empty", "[cli]") {
  CliConfig config;
  config.current_context = "prod";
  ContextConfig prod{"cubd:443", "t", "", false};
  prod.space = "acme-prod";
  prod.user = "alice";
  config.contexts["prod"] = prod;
  config.contexts["dev"] = ContextConfig{"localhost:9090", "d", "", false};
  const std::string text = FormatConfig(config);
  CHECK(text.find("\"Space\": \"acme-prod\"") != std::string::npos);
  CHECK(text.find("\"User\": \"alice\"") != std::string::npos);
  auto parsed = ParseConfig(text);
  REQUIRE(parsed.ok());
  CHECK(parsed->contexts["prod"].space == "acme-prod");
  CHECK(parsed->contexts["prod"].user == "alice");
  CHECK(parsed->contexts["dev"].space.empty());
  CHECK(FormatConfig(*parsed) == text);
  // A file from before these fields existed.
  auto old = ParseConfig(R"({"CurrentContext":"a","Contexts":{"a":{"Server":"s:1","Token":"t"}}})");
  REQUIRE(old.ok());
  CHECK(old->contexts["a"].space.empty());
  CHECK(old->contexts["a"].user.empty());
}

TEST_CASE("DefaultSpace takes the context in use and names the way out", "[cli]") {
  TempConfig tmp;
  auto none = DefaultSpace("");
  REQUIRE_FALSE(none.ok());
  CHECK(none.status().message().find("no current context") != std::string::npos);

  CliConfig config;
  config.current_context = "a";
  config.contexts["a"] = ContextConfig{"s:1", "t", "", false};
  config.contexts["b"] = ContextConfig{"s:2", "t", "", false};
  config.contexts["b"].space = "bee";
  REQUIRE(SaveConfig(tmp.path, config).ok());

  auto a = DefaultSpace("");
  REQUIRE_FALSE(a.ok());
  CHECK(a.status().message() ==
        "no --space given and context a has no Space (cub context set --space S)");
  auto b = DefaultSpace("b");
  REQUIRE(b.ok());
  CHECK(*b == "bee");
  auto c = DefaultSpace("c");
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().message() == "no context c in " + tmp.path + " (known: a, b)");

  config.current_context = "gone";
  REQUIRE(SaveConfig(tmp.path, config).ok());
  auto gone = DefaultSpace("");
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.status().message().find("the current context gone is not in") != std::string::npos);
}

TEST_CASE("Unit data comes from one of FILE, --filename and --from-stdin", "[cli]") {
  DataFlags none;
  CHECK_FALSE(none.given());
  CHECK_FALSE(DataFlagsError(none).has_value());
  auto nothing = ReadDataFlags(none);
  REQUIRE(nothing.ok());
  CHECK_FALSE(nothing->has_value());

  DataFlags two{"a.yaml", "b.yaml", false};
  REQUIRE(DataFlagsError(two).has_value());
  CHECK(*DataFlagsError(two) ==
        "give the data one way, FILE, --filename or --from-stdin; got FILE a.yaml and "
        "--filename b.yaml");
  DataFlags three{"a.yaml", "", true};
  CHECK(DataFlagsError(three)->find("FILE a.yaml and --from-stdin") != std::string::npos);

  TempConfig tmp;  // for its directory
  const std::string file = tmp.dir + "/data.yaml";
  std::ofstream(file) << "a: 1\n";
  DataFlags by_name{"", file, false};
  auto data = ReadDataFlags(by_name);
  REQUIRE(data.ok());
  REQUIRE(data->has_value());
  CHECK(**data == "a: 1\n");
  ::unlink(file.c_str());
  auto missing = ReadDataFlags(by_name);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().message().find("cannot read " + file) == 0);
}

TEST_CASE("Count is singular for one only", "[cli]") {
  CHECK(Count(0, "unit") == "0 units");
  CHECK(Count(1, "unit") == "1 unit");
  CHECK(Count(2, "Space") == "2 Spaces");
}

TEST_CASE("The editor is $VISUAL, else $EDITOR, else vi", "[cli]") {
  ::setenv("VISUAL", "code --wait", 1);
  ::setenv("EDITOR", "nano", 1);
  CHECK(EditorCommand() == "code --wait");
  ::setenv("VISUAL", "  ", 1);
  CHECK(EditorCommand() == "nano");
  ::unsetenv("VISUAL");
  ::unsetenv("EDITOR");
  CHECK(EditorCommand() == "vi");
}

TEST_CASE("EditFile is private, edited in place by the editor and removed", "[cli]") {
  std::string path;
  {
    auto file = EditFile::Create("we/b", ".yaml", "v: 1\n");
    REQUIRE(file.ok());
    path = file->path();
    CHECK(path.find("/cub-edit-we_b-") != std::string::npos);
    CHECK(path.substr(path.size() - 5) == ".yaml");
    struct stat st;
    REQUIRE(::stat(path.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    CHECK(Slurp(path) == "v: 1\n");
    // Words split by the shell, as git does; the file is the last argument.
    REQUIRE(RunEditor("sed -i s/1/2/", path).ok());
    CHECK(Slurp(path) == "v: 2\n");
    auto failed = RunEditor("exit 4; :", path);
    REQUIRE_FALSE(failed.ok());
    CHECK(failed.message() == "editor exit 4; : exited with status 4");
  }
  CHECK(::access(path.c_str(), F_OK) != 0);
}

}  // namespace
}  // namespace cub::cli
