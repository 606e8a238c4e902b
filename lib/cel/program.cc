#include "lib/cel/program.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "lib/cel/ast.h"
#include "lib/cel/checker.h"
#include "lib/cel/eval.h"
#include "lib/cel/parser.h"
#include "lib/cel/resolver.h"
#include "lib/cel/source.h"
#include "lib/util/bounded_regex.h"

namespace cub::cel {

struct Program::Impl {
  explicit Impl(std::string text) : source(std::move(text)) {}
  internal::Source source;
  std::unique_ptr<internal::Expr> root;
  Type result_type;
};

Activation& Activation::Bind(std::string name, Value value) {
  values_[std::move(name)] = std::move(value);
  return *this;
}

const Value* Activation::Find(std::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

absl::StatusOr<Program> Program::Compile(std::string_view expr, const Declarations& decls,
                                         const CompileOptions& options) {
  auto impl = std::make_shared<Impl>(std::string(expr));
  absl::StatusOr<std::unique_ptr<internal::Expr>> root = internal::Parse(impl->source);
  if (!root.ok()) return root.status();
  impl->root = *std::move(root);
  absl::Status st =
      internal::Resolve(impl->root, decls.variables, options.check_types, impl->source);
  if (!st.ok()) return st;
  if (options.check_types) {
    absl::StatusOr<Type> type = internal::Check(*impl->root, impl->source);
    if (!type.ok()) return type.status();
    impl->result_type = *type;
  }
  return Program(std::move(impl));
}

Type Program::result_type() const { return impl_->result_type; }

const std::string& Program::source() const { return impl_->source.text(); }

absl::StatusOr<Value> Program::Evaluate(const Activation& vars,
                                        const EvaluateOptions& options) const {
  absl::StatusOr<Value> result = internal::EvaluateTree(*impl_->root, impl_->source, vars, options);
  if (!result.ok()) {
    return absl::Status(result.status().code(),
                        absl::StrCat("cel: evaluating ", QuoteForMessage(impl_->source.text()), " ",
                                     result.status().message()));
  }
  Value& v = *result;
  if (v.is_error()) {
    return absl::InvalidArgumentError(absl::StrCat("cel: evaluated to error: ", v.str()));
  }
  return v;
}

}  // namespace cub::cel
