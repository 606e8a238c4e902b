#include "lib/cel/overloads.h"

#include <map>

namespace cub::cel::internal {

namespace {

using Table = std::map<std::string, std::vector<Signature>>;

Table BuildTable() {
  const Type I = Type::Int(), U = Type::Uint(), D = Type::Double(), S = Type::String(),
             By = Type::Bytes(), Bo = Type::Bool(), T = Type::Timestamp(), Du = Type::Duration();
  const Type A = Type::Param("A"), B = Type::Param("B");
  const Type LA = Type::List(A), MAB = Type::Map(A, B);
  Table t;
  auto fn = [&](const std::string& name, std::vector<Type> params, Type result) {
    t[name].push_back({false, std::move(params), std::move(result)});
  };
  auto method = [&](const std::string& name, std::vector<Type> params, Type result) {
    t[name].push_back({true, std::move(params), std::move(result)});
  };

  for (const Type& x : {I, U, D, S, By}) fn("_+_", {x, x}, x);
  fn("_+_", {LA, LA}, LA);
  fn("_+_", {T, Du}, T);
  fn("_+_", {Du, T}, T);
  fn("_+_", {Du, Du}, Du);
  for (const Type& x : {I, U, D}) fn("_-_", {x, x}, x);
  fn("_-_", {T, T}, Du);
  fn("_-_", {T, Du}, T);
  fn("_-_", {Du, Du}, Du);
  for (const Type& x : {I, U, D}) {
    fn("_*_", {x, x}, x);
    fn("_/_", {x, x}, x);
  }
  fn("_%_", {I, I}, I);
  fn("_%_", {U, U}, U);
  fn("-_", {I}, I);
  fn("-_", {D}, D);
  fn("!_", {Bo}, Bo);
  fn("_&&_", {Bo, Bo}, Bo);
  fn("_||_", {Bo, Bo}, Bo);
  fn("_?_:_", {Bo, A, A}, A);
  fn("_==_", {A, A}, Bo);
  fn("_!=_", {A, A}, Bo);
  for (const char* op : {"_<_", "_<=_", "_>_", "_>=_"}) {
    for (const Type& x : {I, U, D, S, By, Bo, T, Du}) fn(op, {x, x}, Bo);
    for (const Type& x : {I, U, D}) {
      for (const Type& y : {I, U, D}) {
        if (x != y) fn(op, {x, y}, Bo);
      }
    }
  }
  fn("_[_]", {LA, I}, A);
  fn("_[_]", {MAB, A}, B);
  fn("@in", {A, LA}, Bo);
  fn("@in", {A, MAB}, Bo);
  for (const Type& x : {S, By, LA, MAB}) {
    fn("size", {x}, I);
    method("size", {x}, I);
  }
  for (const char* name : {"contains", "startsWith", "endsWith", "matches"}) {
    method(name, {S, S}, Bo);
  }
  fn("matches", {S, S}, Bo);
  for (const Type& x : {I, U, D, S, T, Du}) fn("int", {x}, I);
  for (const Type& x : {I, U, D, S}) fn("uint", {x}, U);
  for (const Type& x : {I, U, D, S}) fn("double", {x}, D);
  for (const Type& x : {I, U, D, S, By, Bo, T, Du}) fn("string", {x}, S);
  for (const Type& x : {Bo, S}) fn("bool", {x}, Bo);
  for (const Type& x : {By, S}) fn("bytes", {x}, By);
  for (const Type& x : {S, I, T}) fn("timestamp", {x}, T);
  for (const Type& x : {S, Du}) fn("duration", {x}, Du);
  fn("dyn", {A}, Type::Dyn());
  fn("type", {A}, Type::TypeType());
  for (const char* name :
       {"getFullYear", "getMonth", "getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear",
        "getHours", "getMinutes", "getSeconds", "getMilliseconds"}) {
    method(name, {T}, I);
    method(name, {T, S}, I);
  }
  for (const char* name : {"getHours", "getMinutes", "getSeconds", "getMilliseconds"}) {
    method(name, {Du}, I);
  }
  return t;
}

}  // namespace

const std::vector<Signature>& SignaturesOf(const std::string& function) {
  static const Table* table = new Table(BuildTable());
  static const std::vector<Signature>* none = new std::vector<Signature>();
  auto it = table->find(function);
  return it == table->end() ? *none : it->second;
}

}  // namespace cub::cel::internal
