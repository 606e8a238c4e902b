// PgArrayLiteral (lib/util/pg_array.h): every element quoted, with quotes and backslashes escaped.
#include "lib/util/pg_array.h"

#include <catch2/catch.hpp>
#include <string>
#include <vector>

namespace cub {
namespace {

TEST_CASE("PgArrayLiteral quotes every element and escapes quotes and backslashes") {
  CHECK(PgArrayLiteral({}) == "{}");
  CHECK(PgArrayLiteral({""}) == "{\"\"}");
  CHECK(PgArrayLiteral({"a", "b c", "NULL"}) == "{\"a\",\"b c\",\"NULL\"}");
  CHECK(PgArrayLiteral({"say \"hi\"", "back\\slash", "\"", "\\\\", "end\""}) ==
        "{\"say \\\"hi\\\"\",\"back\\\\slash\",\"\\\"\",\"\\\\\\\\\",\"end\\\"\"}");
  // Long text with escapes spread through it comes out byte for byte, escapes added.
  std::string data, want;
  for (int i = 0; i < 1000; ++i) {
    data += "image: \"ghcr.io/acme\\x\"\n";
    want += "image: \\\"ghcr.io/acme\\\\x\\\"\n";
  }
  CHECK(PgArrayLiteral({data}) == "{\"" + want + "\"}");
}

}  // namespace
}  // namespace cub
