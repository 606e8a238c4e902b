// ShortList and CapMessage (lib/util/short_list.h): how messages name large sets.
#include "lib/util/short_list.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace cub {
namespace {

TEST_CASE("ShortList names the first items and counts the rest") {
  CHECK(ShortList({}).empty());
  CHECK(ShortList({"a"}) == "a");
  CHECK(ShortList({"a", "b", "c"}, 3) == "a, b, c");
  CHECK(ShortList({"a", "b", "c", "d", "e"}, 2) == "a, b (and 3 more)");
  std::vector<std::string> many;
  for (int i = 0; i < 10000; ++i) many.push_back("space-" + std::to_string(i));
  const std::string out = ShortList(many);
  CHECK(out.rfind("space-0, space-1, ", 0) == 0);
  CHECK(out.find("space-19 (and 9980 more)") != std::string::npos);
  CHECK(out.find("space-20") == std::string::npos);
}

TEST_CASE("CapMessage keeps what fits and cuts the rest at a character") {
  CHECK(CapMessage("short", 100) == "short");
  const std::string exact(100, 'x');
  CHECK(CapMessage(exact, 100) == exact);
  const std::string cut = CapMessage(std::string(1000, 'x'), 100);
  CHECK(cut.size() <= 100);
  CHECK(cut == std::string(60, 'x') + " ... (940 more bytes)");
  // Two-byte characters: the cut falls between them.
  std::string wide;
  for (int i = 0; i < 200; ++i) wide += "\xc3\xa9";
  const std::string w = CapMessage(wide, 101);
  const size_t tail = w.find(" ... (");
  REQUIRE(tail != std::string::npos);
  CHECK(tail % 2 == 0);
  CHECK(w.size() <= 101);
}

}  // namespace
}  // namespace cub
