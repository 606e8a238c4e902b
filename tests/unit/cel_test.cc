// Tests for the CEL subset (lib/cel): the gate expressions ChangeWorkflows are written in,
// compile errors with their positions, evaluation errors, CEL's error absorption in && and
// ||, macros, literals (including the whitespace and comment cases the conformance suite can
// only express with protobuf messages), timestamps and durations, JSON input, limits, and
// concurrent evaluation of one Program.

#include "lib/cel/cel.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace cub::cel {
namespace {

Declarations GateDecls() {
  Declarations d;
  d.variables = {{"Space", Type::Dyn()},
                 {"ChangeOrder", Type::Dyn()},
                 {"Release", Type::Dyn()},
                 {"now", Type::Timestamp()}};
  return d;
}

Value Json(std::string_view text) {
  absl::StatusOr<Value> v = Value::FromJson(text);
  REQUIRE(v.ok());
  return *v;
}

absl::Time At(const char* rfc3339) {
  absl::Time t;
  std::string err;
  REQUIRE(absl::ParseTime(absl::RFC3339_full, rfc3339, &t, &err));
  return t;
}

Activation GateVars(std::string_view space_json, const char* now = "2026-06-01T12:00:00Z") {
  Activation a;
  a.Bind("Space", Json(space_json));
  a.Bind("ChangeOrder", Json(R"({"Slug":"co-1","Labels":{"team":"payments"}})"));
  a.Bind("Release", Json(R"({"ReleaseNum":3,"Annotations":{"approved-by":"alice","risk":"low"},)"
                         R"("Labels":["hotfix","payments"]})"));
  a.Bind("now", Value::Timestamp(At(now)));
  return a;
}

// Compiles as a gate and evaluates; REQUIREs both to succeed.
bool Gate(std::string_view expr, const Activation& vars) {
  absl::StatusOr<Program> p = CompileGate(expr, GateDecls());
  INFO(expr);
  REQUIRE(p.ok());
  absl::StatusOr<bool> r = EvaluateGate(*p, vars);
  INFO((r.ok() ? "" : std::string(r.status().message())));
  REQUIRE(r.ok());
  return *r;
}

// The compile error message for `expr` (gate declarations), or "" when it compiles.
std::string CompileError(std::string_view expr) {
  absl::StatusOr<Program> p = Program::Compile(expr, GateDecls());
  return p.ok() ? "" : std::string(p.status().message());
}

// The evaluation result as CEL text, or the error message.
std::string Eval(std::string_view expr, const Activation& vars = GateVars("{}"),
                 const CompileOptions& options = CompileOptions()) {
  absl::StatusOr<Program> p = Program::Compile(expr, GateDecls(), options);
  if (!p.ok()) return std::string(p.status().message());
  absl::StatusOr<Value> v = p->Evaluate(vars);
  return v.ok() ? v->DebugString() : std::string(v.status().message());
}

const char* kFreezeGate =
    "!('code-freeze' in Space.Annotations) || Space.Annotations['code-freeze'] != 'true'";

TEST_CASE("code-freeze annotation gate", "[cel][gate]") {
  CHECK(Gate(kFreezeGate, GateVars(R"({"Annotations":{}})")));
  CHECK(Gate(kFreezeGate, GateVars(R"({"Annotations":{"code-freeze":"false"}})")));
  CHECK_FALSE(Gate(kFreezeGate, GateVars(R"({"Annotations":{"code-freeze":"true"}})")));
  // has() is the other way to write it.
  const char* with_has =
      "!has(Space.Annotations.`code-freeze`) || Space.Annotations.`code-freeze` != 'true'";
  CHECK(Gate(with_has, GateVars(R"({"Annotations":{"other":"x"}})")));
  CHECK_FALSE(Gate(with_has, GateVars(R"({"Annotations":{"code-freeze":"true"}})")));
}

TEST_CASE("freeze window gate with now", "[cel][gate]") {
  const char* window =
      "now < timestamp('2026-12-24T00:00:00Z') || now > timestamp('2027-01-02T00:00:00Z')";
  CHECK(Gate(window, GateVars("{}", "2026-12-23T23:59:59Z")));
  CHECK_FALSE(Gate(window, GateVars("{}", "2026-12-24T00:00:00Z")));
  CHECK_FALSE(Gate(window, GateVars("{}", "2026-12-31T10:00:00+01:00")));
  CHECK(Gate(window, GateVars("{}", "2027-01-02T00:00:01Z")));
  // Weekends, in a time zone, and a window relative to now.
  const char* weekday = "now.getDayOfWeek('Europe/Berlin') in [1, 2, 3, 4, 5]";
  CHECK(Gate(weekday, GateVars("{}", "2026-06-01T12:00:00Z")));  // a Monday
  CHECK_FALSE(Gate(weekday, GateVars("{}", "2026-06-06T12:00:00Z")));
  CHECK(Gate("now - duration('72h') > timestamp('2026-05-29T00:00:00Z')", GateVars("{}")));
  CHECK(Gate("now.getHours() >= 9 && now.getHours() < 17", GateVars("{}")));
}

TEST_CASE("Release and ChangeOrder gates", "[cel][gate]") {
  Activation vars = GateVars(R"({"Labels":{"tier":"prod"},"Annotations":{}})");
  CHECK(
      Gate("Release.Annotations['approved-by'] != '' && Release.Annotations.risk == 'low'", vars));
  CHECK(Gate("Release.Labels.exists(l, l == 'hotfix')", vars));
  CHECK_FALSE(Gate("Release.Labels.exists(l, l.startsWith('team-'))", vars));
  CHECK(Gate("Release.Labels.all(l, l.matches('^[a-z]+$'))", vars));
  CHECK(Gate("Release.ReleaseNum > 2 && size(Release.Labels) == 2", vars));
  CHECK(
      Gate("ChangeOrder.Labels.team in ['payments', 'core'] && Space.Labels.tier == 'prod'", vars));
  CHECK(Gate("Space.Labels.exists(k, k == 'tier' && Space.Labels[k] == 'prod')", vars));
  CHECK(Gate("has(Release.Annotations.risk) ? Release.Annotations.risk != 'high' : false", vars));
}

TEST_CASE("a gate must be bool", "[cel][gate]") {
  absl::StatusOr<Program> p = CompileGate("1 + 2", GateDecls());
  REQUIRE_FALSE(p.ok());
  CHECK(p.status().message() == "cel: gate expression must be bool, got int");
  // Dyn is accepted at compile time and checked when evaluated.
  p = CompileGate("Space.Labels.tier", GateDecls());
  REQUIRE(p.ok());
  absl::StatusOr<bool> r = EvaluateGate(*p, GateVars(R"({"Labels":{"tier":"prod"}})"));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "cel: evaluated to string, want bool");
}

TEST_CASE("compile errors name the position", "[cel][errors]") {
  CHECK(CompileError("Spce.Annotations") == "cel: 1:1: undeclared reference to 'Spce'");
  CHECK(CompileError("size(Spce.x) > 0") == "cel: 1:6: undeclared reference to 'Spce'");
  CHECK(CompileError("1 + 'a'") ==
        "cel: 1:3: no matching overload for '_+_' applied to (int, "
        "string)");
  CHECK(CompileError("now < 'tomorrow'") ==
        "cel: 1:5: no matching overload for '_<_' applied to (google.protobuf.Timestamp, "
        "string)");
  CHECK(CompileError("'abc'.contains(1)") ==
        "cel: 1:7: no matching overload for 'contains' applied to string.(int)");
  CHECK(CompileError("true &&\n  (1 == 'x')") ==
        "cel: 2:6: no matching overload for '_==_' applied to (int, string)");
  CHECK(CompileError("frobnicate(1)") == "cel: 1:1: undeclared reference to 'frobnicate'");
  CHECK(CompileError("1 +") == "cel: 1:4: syntax error: unexpected end of expression");
  CHECK(CompileError("(1 + 2") == "cel: 1:7: syntax error: expected ')', got end of expression");
  CHECK(CompileError("a = 1") == "cel: 1:3: unexpected '=' (use == to compare)");
  CHECK(CompileError("'abc") == "cel: 1:1: unterminated string literal");
  CHECK(CompileError("'\\q'") == "cel: 1:2: invalid escape sequence");
  CHECK(CompileError("9223372036854775808") == "cel: 1:1: integer literal out of range");
  CHECK(CompileError("'é' + x") == "cel: 1:7: undeclared reference to 'x'");  // code points
  CHECK(CompileError("'x'.matches('(')") ==
        "cel: 1:13: invalid regular expression '(': missing ')'");
  CHECK(CompileError("Space{a: 1}") ==
        "cel: 1:6: message construction (Name{...}) is not "
        "supported");
  CHECK(CompileError("[1, 2].all(x.y, true)") ==
        "cel: 1:14: argument 1 of all() must be a "
        "simple name");
  CHECK(CompileError("[1].all(x, x + 1)") ==
        "cel: 1:14: the condition of all() must be bool, got 'int'");
  CHECK(CompileError("(1).foo") == "cel: 1:5: field selection on type 'int'");
  CHECK(CompileError("{1.5: 'x'}") ==
        "cel: 1:2: unsupported map key type 'double' (want int, uint, bool or string)");
  CHECK(CompileError("var") == "cel: 1:1: reserved word 'var' cannot be used as a name");
  CHECK(CompileError("1 == 1u") ==
        "cel: 1:3: no matching overload for '_==_' applied to (int, uint)");
}

TEST_CASE("nesting is bounded", "[cel][limits]") {
  auto nested = [](int n) { return std::string(n, '(') + "1" + std::string(n, ')'); };
  CHECK(CompileError(nested(99)).empty());
  CHECK(CompileError(nested(100)).find("nested too deeply") != std::string::npos);
  CHECK(CompileError(nested(100000)).find("nested too deeply") != std::string::npos);
  CHECK(CompileError(std::string(100000, '[')).find("nested too deeply") != std::string::npos);
  CHECK(CompileError(std::string(100000, '-') + "!1").find("nested too deeply") ==
        std::string::npos);  // a run of one operator is one level
  std::string selects = "Space";
  for (int i = 0; i < 200; ++i) selects += ".a";
  CHECK(CompileError(selects).find("nested too deeply") != std::string::npos);
  // || and && chains are balanced, so long ones are fine.
  std::string ors = "false";
  for (int i = 0; i < 5000; ++i) ors += " || false";
  CHECK(Eval(ors + " || true") == "true");
}

// An expression that doubles `seed` `doublings` times (nested map()s, one level per doubling,
// as CEL has no variables) and hands the result, as s, to `body`.
std::string Doubled(const std::string& seed, int doublings, const std::string& body) {
  std::string expr = "['" + seed + "'].map(s, ";
  std::string close = ")";
  for (int i = 0; i < doublings; ++i) {
    expr += "[s + s].map(s, ";
    close += ")";
  }
  return expr + body + close;
}

std::string Hundred() {
  std::string list = "[";
  for (int i = 0; i < 100; ++i) list += (i ? ", " : "") + std::to_string(i);
  return list + "]";
}

TEST_CASE("evaluation has a memory budget", "[cel][limits]") {
  // 8 MiB, then 100 fresh copies of it: 800 MiB without a budget.
  const std::string bomb = Doubled("abcdefgh", 20, Hundred() + ".map(i, s + string(i))");
  absl::StatusOr<Program> p = Program::Compile(bomb, GateDecls());
  REQUIRE(p.ok());
  absl::StatusOr<Value> v = p->Evaluate(GateVars("{}"));
  REQUIRE_FALSE(v.ok());
  CHECK(v.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(v.status().message() ==
        "cel: evaluating '['abcdefgh'].map(s, [s + s].map(s, [s + \xE2\x80\xA6' exceeded its "
        "memory budget of 16 MiB");
  // Not absorbed by || (true || x would be true) or exists().
  p = Program::Compile(Doubled("abcdefgh", 22, "size(s)") + ".size() == 1 || true", GateDecls());
  REQUIRE(p.ok());
  absl::StatusOr<bool> gate = EvaluateGate(*p, GateVars("{}"));
  REQUIRE_FALSE(gate.ok());
  CHECK(gate.status().code() == absl::StatusCode::kResourceExhausted);
  // A smaller doubling fits, and a larger budget admits the bomb's first half.
  CHECK(Eval(Doubled("abcdefgh", 10, "size(s)")) == "[[[[[[[[[[[8192]]]]]]]]]]]");
  p = Program::Compile(Doubled("abcdefgh", 20, "size(s)"), GateDecls());
  REQUIRE(p.ok());
  EvaluateOptions roomy;
  roomy.max_memory_bytes = int64_t{64} << 20;
  CHECK(p->Evaluate(GateVars("{}"), roomy).ok());
  // Lists, maps and conversions count too.
  EvaluateOptions tiny;
  tiny.max_memory_bytes = 100;
  for (const char* expr : {"'abcdefghijklmnopqrstuvwxyz' + 'abcdefghijklmnopqrstuvwxyz"
                           "abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz'",
                           "[1, 2, 3].map(x, x * 2)", "{'a': 1, 'b': 2}",
                           "string(b'0123456789012345678901234567890123456789"
                           "0123456789012345678901234567890123456789')"}) {
    p = Program::Compile(expr, GateDecls());
    REQUIRE(p.ok());
    INFO(expr);
    CHECK(p->Evaluate(GateVars("{}")).ok());
    v = p->Evaluate(GateVars("{}"), tiny);
    REQUIRE_FALSE(v.ok());
    CHECK(v.status().message().find("exceeded its memory budget of 100 bytes") !=
          std::string::npos);
  }
  // Values read from the variables are shared, not built: they cost nothing.
  Activation big = GateVars(R"({"Annotations":{"x":")" + std::string(1000, 'x') + R"("}})");
  p = Program::Compile("Space.Annotations.x.startsWith('x') && [Space].size() == 1", GateDecls());
  REQUIRE(p.ok());
  CHECK(p->Evaluate(big, tiny).ok());
}

TEST_CASE("evaluation has a cost budget", "[cel][limits]") {
  // A 1 MiB string read 1000 times: 1 GiB scanned, 16 million steps at 64 bytes a step.
  std::string thousand = "[";
  for (int i = 0; i < 1000; ++i) thousand += (i ? ", " : "") + std::to_string(i);
  thousand += "]";
  const std::string expr = Doubled("abcdefghijklmnop", 16, thousand + ".all(i, !s.contains('z'))");
  absl::StatusOr<Program> p = Program::Compile(expr, GateDecls());
  REQUIRE(p.ok());
  absl::StatusOr<Value> v = p->Evaluate(GateVars("{}"));
  REQUIRE_FALSE(v.ok());
  CHECK(v.status().code() == absl::StatusCode::kResourceExhausted);
  CHECK(v.status().message().find("exceeded its cost budget of 10000000 steps") !=
        std::string::npos);
  // Ten scans fit.
  CHECK(Eval(Doubled("abcdefghijklmnop", 16, "[1,2,3,4,5,6,7,8,9,10].all(i, !s.contains('z'))"))
            .find("true") != std::string::npos);
  // The budget is the caller's: a tight one stops a plain loop.
  EvaluateOptions tight;
  tight.max_cost = 50;
  p = Program::Compile(Hundred() + ".all(i, i >= 0)", GateDecls());
  REQUIRE(p.ok());
  CHECK(p->Evaluate(GateVars("{}")).ok());
  v = p->Evaluate(GateVars("{}"), tight);
  REQUIRE_FALSE(v.ok());
  CHECK(v.status().message() ==
        "cel: evaluating '[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 1\xE2\x80\xA6' exceeded its "
        "cost budget of 50 steps");
}

TEST_CASE("error messages are cut at 1 KiB, on a character boundary", "[cel][limits]") {
  Activation vars =
      GateVars(R"({"Annotations":{"k":")" + std::string(3000, 'x') + "\xC3\xA9" + R"("}})");
  const std::string message = Eval("int(Space.Annotations.k)", vars);
  CHECK(message.rfind("cel: evaluated to error: 1:1: type conversion error: 'xxx", 0) == 0);
  CHECK(message.size() < 1100);
  CHECK(message.substr(message.size() - 3) == "...");
  // With 994 x's byte 1024 is inside the two-byte character: the cut moves before it.
  Activation shifted =
      GateVars(R"({"Annotations":{"k":")" + std::string(994, 'x') + "\xC3\xA9xx" + R"("}})");
  const std::string cut = Eval("int(Space.Annotations.k)", shifted);
  CHECK(cut.find('\xC3') == std::string::npos);
}

TEST_CASE("regular expressions are compiled within a budget", "[cel][limits]") {
  const std::string deep = std::string(30000, '(') + "a" + std::string(30000, ')');
  CHECK(CompileError("'a'.matches('" + deep + "')") ==
        "cel: 1:13: regular expression '" + std::string(40, '(') +
            "\xE2\x80\xA6' is 60001 bytes long; the limit is 1024");
  // A pattern known only at evaluation time is held to the same budget.
  Activation vars = GateVars(R"({"Annotations":{"p":"(.{250}){4}"}})");
  CHECK(Eval("'a'.matches(Space.Annotations.p)", vars).find("is too complex: it compiles to") !=
        std::string::npos);
  CHECK(Eval("('a' + 'b').matches('^(a|b)*$')") == "true");
}

TEST_CASE("evaluation errors", "[cel][errors]") {
  Activation vars = GateVars(R"({"Annotations":{"a":"1"},"Labels":["x"]})");
  CHECK(Eval("Space.Annotations['code-freeze'] == 'true'", vars) ==
        "cel: evaluated to error: 1:18: no such key: 'code-freeze'");
  CHECK(Eval("Space.Annotations.missing", vars) ==
        "cel: evaluated to error: 1:19: no such key: 'missing'");
  CHECK(Eval("Space.Labels[3]", vars) ==
        "cel: evaluated to error: 1:13: index out of range: 3 (list size 1)");
  CHECK(Eval("Space.Labels.x", vars) == "cel: evaluated to error: 1:14: field selection on list");
  CHECK(Eval("10 / (5 - 5)") == "cel: evaluated to error: 1:4: division by zero");
  CHECK(Eval("10 % 0") == "cel: evaluated to error: 1:4: modulus by zero");
  CHECK(Eval("9223372036854775807 + 1") == "cel: evaluated to error: 1:21: integer overflow");
  CHECK(Eval("-9223372036854775808 * -1") == "cel: evaluated to error: 1:22: integer overflow");
  CHECK(Eval("0u - 1u") == "cel: evaluated to error: 1:4: integer overflow");
  CHECK(Eval("int('12x')") ==
        "cel: evaluated to error: 1:1: type conversion error: '12x' is not an int");
  CHECK(Eval("int(1e99)").find("range error") != std::string::npos);
  CHECK(Eval("timestamp('2026-13-01T00:00:00Z')").find("invalid timestamp") != std::string::npos);
  CHECK(Eval("timestamp('9999-12-31T23:59:59Z') + duration('1s')").find("range error") !=
        std::string::npos);
  CHECK(Eval("Space.Labels + 1", vars) ==
        "cel: evaluated to error: 1:14: no matching overload for '_+_' applied to (list, int)");
  CHECK(Eval("{'a': 1, 'a': 2}") == "cel: evaluated to error: 1:1: repeated map key: 'a'");
  // Unbound or mistyped variables.
  Activation partial;
  partial.Bind("now", Value::String("yesterday"));
  CHECK(Eval("Space.x", partial) ==
        "cel: evaluated to error: 1:1: no value bound for variable 'Space'");
  CHECK(Eval("now", partial) ==
        "cel: evaluated to error: 1:1: variable 'now' is declared "
        "google.protobuf.Timestamp but bound to string");
}

TEST_CASE("&& and || absorb errors when the other side decides", "[cel][logic]") {
  Activation vars = GateVars(R"({"Annotations":{}})");
  const char* err = "Space.Annotations.missing == 'x'";
  auto with = [&](const std::string& pattern) {
    std::string out;
    for (char c : pattern) {
      if (c == 'E') {
        out += err;
      } else {
        out += c;
      }
    }
    return Eval(out, vars);
  };
  CHECK(with("false && E") == "false");
  CHECK(with("E && false") == "false");
  CHECK(with("true || E") == "true");
  CHECK(with("E || true") == "true");
  CHECK(with("E || false").find("no such key") != std::string::npos);
  CHECK(with("true && E").find("no such key") != std::string::npos);
  CHECK(with("E && E").find("1:19: no such key") != std::string::npos);  // the left one
  CHECK(with("(E ? 1 : 2) == 1 || true") == "true");
  // A non-bool operand behaves as an error (possible only when unchecked or dynamic).
  CHECK(Eval("Space.Annotations || true", vars) == "true");
  CHECK(Eval("false && Space.Annotations", vars) == "false");
  CHECK(Eval("Space.Annotations && true", vars) ==
        "cel: evaluated to error: 1:7: operand of && must be bool, got map");
  // Unchecked programs defer undeclared names and unknown functions to evaluation.
  CompileOptions unchecked;
  unchecked.check_types = false;
  CHECK(Eval("nope || true", vars, unchecked) == "true");
  CHECK(Eval("f_unknown(1) || true", vars, unchecked) == "true");
  CHECK(Eval("f_unknown(1)", vars, unchecked) ==
        "cel: evaluated to error: 1:1: unbound function 'f_unknown'");
  CHECK(Eval("1 + 'a'", vars, unchecked) ==
        "cel: evaluated to error: 1:3: no matching overload for '_+_' applied to (int, string)");
}

TEST_CASE("macros", "[cel][macros]") {
  CHECK(Eval("[1, 2, 3].all(x, x > 0)") == "true");
  CHECK(Eval("[1, 2, 3].exists(x, x == 2)") == "true");
  CHECK(Eval("[1, 2, 3].exists_one(x, x > 1)") == "false");
  CHECK(Eval("[1, 2, 3].map(x, x * 10)") == "[10, 20, 30]");
  CHECK(Eval("[1, 2, 3, 4].map(x, x % 2 == 0, x * 10)") == "[20, 40]");
  CHECK(Eval("[1, 2, 3, 4].filter(x, x % 2 == 1)") == "[1, 3]");
  CHECK(Eval("{'a': 1, 'b': 2}.map(k, k + '!')") == "['a!', 'b!']");
  CHECK(Eval("{'a': 1, 'b': 2}.filter(k, k == 'b')") == "['b']");
  CHECK(Eval("[[1, 2], [3]].map(l, l.map(x, x + 1))") == "[[2, 3], [4]]");
  CHECK(Eval("[1, 2].exists(x, [3, 4].exists(y, x + y == 6))") == "true");
  // Iteration variables shadow declared variables.
  CHECK(Eval("['a'].all(Space, Space == 'a')") == "true");
  // all() and exists() absorb errors when some element decides; others do not.
  CHECK(Eval("[0, 1].exists(x, 1 / x == 1)") == "true");
  CHECK(Eval("[0, 2].all(x, 1 / x == 1)") == "false");
  CHECK(Eval("[0, 1].all(x, 1 / x == 1)") == "cel: evaluated to error: 1:17: division by zero");
  CHECK(Eval("[0, 1].filter(x, 1 / x == 1)") == "cel: evaluated to error: 1:20: division by zero");
  CHECK(Eval("Space.Labels.exists(l, l == 'x')", GateVars(R"({"Labels":"oops"})")) ==
        "cel: evaluated to error: 1:14: exists() needs a list or map, got string");
}

TEST_CASE("literals", "[cel][literals]") {
  CHECK(Eval("[1, 2u, 2.5, -0x10, 0x10u, 1e3, .5, true, null]") ==
        "[1, 2u, 2.5, -16, 16u, 1000.0, 0.5, true, null]");
  CHECK(Eval("-9223372036854775808") == "-9223372036854775808");
  CHECK(Eval("18446744073709551615u") == "18446744073709551615u");
  CHECK(Eval("'a\\tb\\n\\'\\\"\\\\\\u00e9\\U0001F431\\x41\\101'") == "'a\\tb\\n\\'\"\\\\é🐱AA'");
  CHECK(Eval("r'\\d+\\n'") == "'\\\\d+\\\\n'");
  CHECK(Eval("'''it's\na \"test\"'''") == "'it\\'s\\na \"test\"'");
  CHECK(Eval("\"\"\"x\"\"\" + \"y\"") == "'xy'");
  CHECK(Eval("b'\\xff\\000a' + b'b'") == "b'\\xff\\x00ab'");
  CHECK(Eval("{'k': [1, {'n': null}]}") == "{'k': [1, {'n': null}]}");
  CHECK(Eval("[1, 2, 3,][2]") == "3");
  CHECK(Eval("{'a': 1,}.a") == "1");
  // Whitespace and comments.
  CHECK(Eval(" 1\t+\n2\r+\f3 // three\n + 4 // four") == "10");
  CHECK(Eval("[// a list\n 1, // one\n 2 // two\n ][1]") == "2");
}

TEST_CASE("strings and functions", "[cel][functions]") {
  CHECK(Eval("size('πέντε') == 5 && size(b'abc') == 3 && 'abc'.size() == 3") == "true");
  CHECK(Eval("'prod-eu-1'.startsWith('prod') && 'prod-eu-1'.endsWith('-1')") == "true");
  CHECK(Eval("'prod-eu-1'.contains('eu') && !'prod'.contains('dev')") == "true");
  CHECK(Eval("'prod-eu-1'.matches('^prod-[a-z]+-[0-9]+$') && matches('ab', 'b')") == "true");
  CHECK(Eval("'z' < 'é' && 'a' < 'b' && b'\\x00' < b'\\x01'") == "true");
  CHECK(Eval("[int('42'), uint('7'), double('2.5'), string(1.5), string(true)]") ==
        "[42, 7u, 2.5, '1.5', 'true']");
  CHECK(Eval("[int(2.9), int(-2.9), uint(2.9), int(timestamp('1970-01-01T00:01:00Z'))]") ==
        "[2, -2, 2u, 60]");
  CHECK(Eval("[bool('true'), bool('0'), bytes('é'), string(b'\\xc3\\xa9')]") ==
        "[true, false, b'\\xc3\\xa9', 'é']");
  CHECK(Eval("[type(1), type('a'), type([]), type(now)]") ==
        "[int, string, list, google.protobuf.Timestamp]");
  CHECK(Eval("type(1) == int && type(dyn(1u)) == uint") == "true");
  CHECK(Eval("dyn(1) == 1.0 && dyn(1u) < 2 && 1 < 1.5") == "true");
  CHECK(Eval("{1: 'a', 2u: 'b'}[2] + {1: 'a'}[dyn(1.0)]") == "'ba'");
  CHECK(CompileError("{1: 'a'}[1.0]") ==
        "cel: 1:9: no matching overload for '_[_]' applied to (map(int, string), double)");
  CHECK(Eval("[1, 2] + [3] == [1, 2, 3] && 3 in [1, 2, 3] && 'k' in {'k': 1}") == "true");
  CHECK(Eval("[string(1e6), string(123456.0), string(0.0001), string(1e-5)]") ==
        "['1e+06', '123456', '0.0001', '1e-05']");
}

TEST_CASE("timestamps and durations", "[cel][time]") {
  CHECK(Eval("timestamp('2026-12-24T00:00:00Z') + duration('72h')") ==
        "timestamp('2026-12-27T00:00:00Z')");
  CHECK(Eval("timestamp('2026-12-24T01:00:00+01:00') == timestamp('2026-12-24T00:00:00Z')") ==
        "true");
  CHECK(Eval("timestamp('2027-01-02T00:00:00Z') - timestamp('2026-12-24T00:00:00Z')") ==
        "duration('777600s')");
  CHECK(Eval("duration('1h30m') + duration('1.5s') - duration('250ms')") == "duration('5401.25s')");
  CHECK(Eval("duration('90m') > duration('1h') && duration('-1ns') < duration('0s')") == "true");
  CHECK(Eval("string(timestamp('2026-12-24T00:00:00.120Z'))") == "'2026-12-24T00:00:00.12Z'");
  CHECK(Eval("string(duration('-1.5s'))") == "'-1.5s'");
  CHECK(Eval("timestamp(1800000000)") == "timestamp('2027-01-15T08:00:00Z')");
  const char* t = "timestamp('2009-02-13T23:31:30.123Z')";
  CHECK(Eval(std::string("[") + t + ".getFullYear(), " + t + ".getMonth(), " + t + ".getDate(), " +
             t + ".getDayOfMonth(), " + t + ".getDayOfWeek(), " + t + ".getDayOfYear(), " + t +
             ".getHours(), " + t + ".getMinutes(), " + t + ".getSeconds(), " + t +
             ".getMilliseconds()]") == "[2009, 1, 13, 12, 5, 43, 23, 31, 30, 123]");
  CHECK(Eval(std::string(t) + ".getHours('Asia/Kolkata')") == "5");
  CHECK(Eval(std::string(t) + ".getHours('-02:00')") == "21");
  CHECK(Eval(std::string(t) + ".getHours('Mars/Olympus')").find("unknown time zone") !=
        std::string::npos);
  CHECK(Eval(std::string(t) + ".getHours('../../../etc/passwd')").find("unknown time zone") !=
        std::string::npos);
  CHECK(Eval("duration('3730s').getMinutes() == 62 && duration('3h').getHours() == 3") == "true");
  CHECK(Eval("duration('72x')").find("invalid duration") != std::string::npos);
  CHECK(Eval("duration('inf')").find("invalid duration") != std::string::npos);
}

TEST_CASE("Value::FromJson", "[cel][json]") {
  Value v = Json(R"( {"i": 7, "big": 9223372036854775808, "d": 1.5, "e": 1e2, "neg": -3,
                     "s": "a\"\u00e9\ud83d\ude00\n", "b": [true, false, null], "o": {}} )");
  CHECK(v.DebugString() ==
        "{'i': 7, 'big': 9.223372036854776e+18, 'd': 1.5, 'e': 100.0, 'neg': -3, "
        "'s': 'a\"é😀\\n', 'b': [true, false, null], 'o': {}}");
  CHECK(v.map().Find("i")->kind() == Value::Kind::kInt);
  CHECK(v.map().Find("e")->kind() == Value::Kind::kDouble);
  for (const char* bad : {"", "{", "[1,]", "{\"a\":1,\"a\":2}", "01", "1.", "\"\\x\"",
                          "\"\\ud800\"", "nul", "[1] x", "\"\xff\""}) {
    INFO(bad);
    CHECK_FALSE(Value::FromJson(bad).ok());
  }
  std::string deep = std::string(101, '[') + std::string(101, ']');
  CHECK_FALSE(Value::FromJson(deep).ok());
  CHECK(Value::FromJson(std::string(100, '[') + std::string(100, ']')).ok());
}

TEST_CASE("constructed values", "[cel][values]") {
  CHECK_FALSE(Value::Map({{Value::Double(1.0), Value::Null()}}).ok());
  CHECK_FALSE(Value::Map({{Value::Int(1), Value::Null()}, {Value::Uint(1), Value::Null()}}).ok());
  Value m = Value::StringMap({{"a", Value::Int(1)}});
  CHECK(m.map().Find(Value::String("a"))->int_value() == 1);
  CHECK(Equal(Value::List({Value::Int(1)}), Value::List({Value::Double(1.0)})));
  CHECK_FALSE(Equal(Value::Double(std::nan("")), Value::Double(std::nan(""))));
  Declarations d;
  d.variables = {{"labels", Type::Map(Type::String(), Type::String())},
                 {"a.b", Type::List(Type::Int())}};
  absl::StatusOr<Program> p = Program::Compile("labels.tier + string(a.b[0])", d);
  REQUIRE(p.ok());
  CHECK(p->result_type() == Type::String());
  Activation vars;
  vars.Bind("labels", m = Value::StringMap({{"tier", Value::String("prod")}}));
  vars.Bind("a.b", Value::List({Value::Int(7)}));
  absl::StatusOr<Value> v = p->Evaluate(vars);
  REQUIRE(v.ok());
  CHECK(v->str() == "prod7");
  CHECK(Program::Compile("labels.tier + 1", d).status().message() ==
        "cel: 1:13: no matching overload for '_+_' applied to (string, int)");
}

TEST_CASE("one Program evaluates concurrently", "[cel][threads]") {
  absl::StatusOr<Program> p = CompileGate(
      "Space.Labels.exists(k, k == 'tier' && Space.Labels[k] == 'prod') && "
      "now > timestamp('2026-01-01T00:00:00Z')",
      GateDecls());
  REQUIRE(p.ok());
  // Activations are built here: Catch2 assertions are not thread-safe.
  const Activation prod = GateVars(R"({"Labels":{"tier":"prod"}})");
  const Activation dev = GateVars(R"({"Labels":{"tier":"dev"}})");
  std::vector<std::thread> threads;
  std::vector<int> passes(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const Activation& vars = t % 2 == 0 ? prod : dev;
      for (int i = 0; i < 500; ++i) {
        absl::StatusOr<bool> r = EvaluateGate(*p, vars);
        if (r.ok() && *r == (t % 2 == 0)) ++passes[t];
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int n : passes) CHECK(n == 500);
}

}  // namespace
}  // namespace cub::cel
