#include "lib/cel/resolver.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/util/bounded_regex.h"
#include "re2/re2.h"

namespace cub::cel::internal {

bool IsTypeName(const std::string& name) {
  static const char* const kNames[] = {"bool",
                                       "int",
                                       "uint",
                                       "double",
                                       "string",
                                       "bytes",
                                       "list",
                                       "map",
                                       "null_type",
                                       "type",
                                       "google.protobuf.Timestamp",
                                       "google.protobuf.Duration"};
  return std::find(std::begin(kNames), std::end(kNames), name) != std::end(kNames);
}

namespace {

class Resolver {
 public:
  Resolver(const std::map<std::string, Type>& variables, bool strict, const Source& source)
      : variables_(variables), strict_(strict), source_(source) {}

  absl::Status Run(std::unique_ptr<Expr>& e) {
    switch (e->kind) {
      case Expr::Kind::kIdent:
        return Ident(e.get());
      case Expr::Kind::kSelect:
        if (!e->test_only && Qualified(e)) return absl::OkStatus();
        return Run(e->args[0]);
      case Expr::Kind::kComprehension: {
        absl::Status st = Run(e->args[0]);
        if (!st.ok()) return st;
        locals_.push_back(e->iter_var);
        for (size_t i = 1; i < e->args.size() && st.ok(); ++i) st = Run(e->args[i]);
        locals_.pop_back();
        return st;
      }
      case Expr::Kind::kCall: {
        for (auto& a : e->args) {
          absl::Status st = Run(a);
          if (!st.ok()) return st;
        }
        if (e->name == "matches" && !e->args.empty() &&
            e->args.back()->kind == Expr::Kind::kLiteral &&
            e->args.back()->literal.kind() == Value::Kind::kString) {
          return CompileRegex(e.get());
        }
        return absl::OkStatus();
      }
      default:
        for (auto& a : e->args) {
          absl::Status st = Run(a);
          if (!st.ok()) return st;
        }
        return absl::OkStatus();
    }
  }

 private:
  bool IsLocal(const std::string& name) const {
    return std::find(locals_.begin(), locals_.end(), name) != locals_.end();
  }

  absl::Status Ident(Expr* e) {
    if (!e->root_scoped && IsLocal(e->name)) {
      e->ref = Expr::Ref::kLocal;
    } else if (auto it = variables_.find(e->name); it != variables_.end()) {
      e->ref = Expr::Ref::kVariable;
      e->declared_type = it->second;
    } else if (IsTypeName(e->name)) {
      e->ref = Expr::Ref::kTypeName;
    } else if (strict_) {
      return source_.Error(e->offset, absl::StrCat("undeclared reference to '", e->name, "'"));
    }
    return absl::OkStatus();
  }

  // For a chain of selects over an identifier (a.b.c), replaces the longest prefix of two or
  // more parts that names a variable or type by one identifier. True when it did.
  bool Qualified(std::unique_ptr<Expr>& outer) {
    std::vector<std::unique_ptr<Expr>*> chain;  // outermost first
    std::unique_ptr<Expr>* cur = &outer;
    while ((*cur)->kind == Expr::Kind::kSelect && !(*cur)->test_only) {
      chain.push_back(cur);
      cur = &(*cur)->args[0];
    }
    const Expr& root = **cur;
    if (root.kind != Expr::Kind::kIdent || (!root.root_scoped && IsLocal(root.name))) {
      return false;
    }
    std::vector<std::string> parts = {root.name};
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) parts.push_back((**it)->name);
    for (size_t k = parts.size(); k >= 2; --k) {
      std::string name = absl::StrJoin(parts.begin(), parts.begin() + k, ".");
      auto var = variables_.find(name);
      if (var == variables_.end() && !IsTypeName(name)) continue;
      auto ident = std::make_unique<Expr>();
      ident->kind = Expr::Kind::kIdent;
      ident->offset = root.offset;
      ident->name = name;
      if (var != variables_.end()) {
        ident->ref = Expr::Ref::kVariable;
        ident->declared_type = var->second;
      } else {
        ident->ref = Expr::Ref::kTypeName;
      }
      *chain[parts.size() - k] = std::move(ident);
      return true;
    }
    return false;
  }

  absl::Status CompileRegex(Expr* call) {
    absl::StatusOr<std::shared_ptr<const RE2>> re =
        CompileBoundedRegex(call->args.back()->literal.str(), RE2::Options(), RegexBudget());
    if (!re.ok()) {
      return source_.Error(call->args.back()->offset, std::string(re.status().message()));
    }
    call->regex = *std::move(re);
    return absl::OkStatus();
  }

  const std::map<std::string, Type>& variables_;
  bool strict_;
  const Source& source_;
  std::vector<std::string> locals_;
};

}  // namespace

absl::Status Resolve(std::unique_ptr<Expr>& root, const std::map<std::string, Type>& variables,
                     bool strict, const Source& source) {
  return Resolver(variables, strict, source).Run(root);
}

}  // namespace cub::cel::internal
