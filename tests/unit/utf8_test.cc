// lib/util/utf8: strict and tolerant decoding, counting, the first invalid offset, and
// replacement for display.
#include "lib/util/utf8.h"

#include <catch2/catch.hpp>
#include <string>

namespace cub {
namespace {

TEST_CASE("FindInvalidUtf8 finds the first bad sequence") {
  CHECK(FindInvalidUtf8("plain ascii") == std::string_view::npos);
  CHECK(FindInvalidUtf8("caf\xC3\xA9") == std::string_view::npos);
  CHECK(FindInvalidUtf8("ab\xFFzz") == 2);
  CHECK(FindInvalidUtf8("\xC0\x80") == 0);          // overlong NUL
  CHECK(FindInvalidUtf8("x\xED\xA0\x80") == 1);     // a surrogate
  CHECK(FindInvalidUtf8("\xF4\x90\x80\x80") == 0);  // past U+10FFFF
  CHECK(FindInvalidUtf8("\xE2\x82") == 0);          // truncated
}

TEST_CASE("ValidUtf8 keeps valid text and replaces each bad byte with U+FFFD") {
  CHECK(ValidUtf8("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(ValidUtf8("a\xFF"
                  "b") ==
        "a\xEF\xBF\xBD"
        "b");
  CHECK(ValidUtf8("\xE2\x82") == "\xEF\xBF\xBD\xEF\xBF\xBD");
  CHECK(ValidUtf8(std::string("n\0l", 3)) == std::string("n\0l", 3));  // NUL is valid UTF-8
  CHECK(FindInvalidUtf8(ValidUtf8("\x80\xC3\x28\xF0\x9F\x98")) == std::string_view::npos);
}

TEST_CASE("NextCodePoint steps over a bad byte as one character") {
  const std::string s = "a\xC3\xA9\xFF\xE2\x82";
  size_t pos = 0;
  char32_t cp = 0;
  CHECK(NextCodePoint(s, &pos, &cp));
  CHECK(cp == U'a');
  CHECK(NextCodePoint(s, &pos, &cp));
  CHECK((cp == 0xE9 && pos == 3));
  CHECK_FALSE(NextCodePoint(s, &pos, &cp));
  CHECK((cp == 0xFF && pos == 4));
  CHECK_FALSE(NextCodePoint(s, &pos, &cp));  // a truncated sequence: its first byte
  CHECK((cp == 0xE2 && pos == 5));
}

TEST_CASE("CodePointCount counts characters, a stray byte as one") {
  CHECK(CodePointCount("") == 0);
  CHECK(CodePointCount("caf\xC3\xA9") == 4);
  CHECK(CodePointCount("\xF0\x9F\x98\x80!") == 2);
  CHECK(CodePointCount("a\xFF\xE2\x82") == 4);
  CHECK(IsValidUtf8("caf\xC3\xA9"));
  CHECK_FALSE(IsValidUtf8("a\xFF"));
}

}  // namespace
}  // namespace cub

namespace cub {
namespace {

TEST_CASE("Utf8CutPoint backs off to the start of a character") {
  const std::string s =
      "a\xc3\xa9"
      "b\xe2\x82\xac";  // a é b €
  CHECK(Utf8CutPoint(s, 0) == 0);
  CHECK(Utf8CutPoint(s, 1) == 1);
  CHECK(Utf8CutPoint(s, 2) == 1);  // inside é
  CHECK(Utf8CutPoint(s, 3) == 3);
  CHECK(Utf8CutPoint(s, 5) == 4);  // inside €
  CHECK(Utf8CutPoint(s, 6) == 4);
  CHECK(Utf8CutPoint(s, s.size()) == s.size());
}

}  // namespace
}  // namespace cub
