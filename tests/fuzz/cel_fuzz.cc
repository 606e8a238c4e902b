// libFuzzer target for lib/cel: any input must compile (or be refused) and evaluate (or fail)
// without crashing, hanging, or overflowing the stack; the same bytes are also fed to
// Value::FromJson.
//
// Build and run with tests/fuzz/run.sh (see docs/operations.md, "Fuzzing"). Seeds are in
// tests/fuzz/corpus/cel.

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lib/cel/cel.h"

namespace {

using cub::cel::Activation;
using cub::cel::CompileOptions;
using cub::cel::Declarations;
using cub::cel::Program;
using cub::cel::Type;
using cub::cel::Value;

const Declarations& Decls() {
  static const Declarations* d = [] {
    auto* decls = new Declarations();
    decls->variables = {{"Space", Type::Dyn()},
                        {"Release", Type::Dyn()},
                        {"now", Type::Timestamp()},
                        {"x", Type::Int()},
                        {"s", Type::String()},
                        {"l", Type::List(Type::Int())},
                        {"m", Type::Map(Type::String(), Type::Dyn())},
                        {"a.b", Type::Map(Type::String(), Type::String())}};
    return decls;
  }();
  return *d;
}

const Activation& Vars() {
  static const Activation* a = [] {
    auto* vars = new Activation();
    vars->Bind("Space", *Value::FromJson(
                            R"({"Slug":"prod-eu","Labels":{"tier":"prod","n":3},)"
                            R"("Annotations":{"code-freeze":"true"},"Tags":["a","b"],"N":null})"));
    vars->Bind("Release", *Value::FromJson(R"({"ReleaseNum":7,"Labels":["x","y"]})"));
    vars->Bind("now", Value::Timestamp(absl::FromUnixSeconds(1800000000)));
    vars->Bind("x", Value::Int(42));
    vars->Bind("s", Value::String("héllo"));
    vars->Bind("l", Value::List({Value::Int(1), Value::Int(2), Value::Int(3)}));
    vars->Bind("m", Value::StringMap({{"k", Value::Double(1.5)}}));
    vars->Bind("a.b", Value::StringMap({{"c", Value::String("d")}}));
    return vars;
  }();
  return *a;
}

void Run(std::string_view text, bool check) {
  CompileOptions options;
  options.check_types = check;
  absl::StatusOr<Program> p = Program::Compile(text, Decls(), options);
  if (!p.ok()) return;
  absl::StatusOr<Value> v = p->Evaluate(Vars());
  if (v.ok()) (void)v->DebugString();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  Run(text, /*check=*/true);
  Run(text, /*check=*/false);
  absl::StatusOr<Value> json = Value::FromJson(text);
  if (json.ok()) (void)json->DebugString();
  return 0;
}
