#include "lib/cel/value.h"

#include <cmath>
#include <functional>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/cel/numbers.h"
#include "lib/cel/time_util.h"

namespace cub::cel {

Value Value::List(std::vector<Value> elems) {
  Value v;
  v.kind_ = Kind::kList;
  v.rep_ = std::make_shared<const std::vector<Value>>(std::move(elems));
  return v;
}

absl::StatusOr<Value> Value::Map(std::vector<std::pair<Value, Value>> entries) {
  auto m = std::make_shared<MapValue>();
  m->entries_ = std::move(entries);
  m->index_.reserve(m->entries_.size());
  for (size_t i = 0; i < m->entries_.size(); ++i) {
    const Value& key = m->entries_[i].first;
    MapValue::KeyRep rep;
    if (key.kind() == Kind::kDouble || !MapValue::ToKeyRep(key, &rep)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unsupported map key type: ", KindName(key.kind())));
    }
    if (!m->index_.emplace(std::move(rep), i).second) {
      return absl::InvalidArgumentError(absl::StrCat("repeated map key: ", key.DebugString()));
    }
  }
  Value v;
  v.kind_ = Kind::kMap;
  v.rep_ = std::shared_ptr<const MapValue>(std::move(m));
  return v;
}

Value Value::StringMap(const std::map<std::string, Value>& entries) {
  std::vector<std::pair<Value, Value>> list;
  list.reserve(entries.size());
  for (const auto& [k, v] : entries) list.emplace_back(Value::String(k), v);
  return *Map(std::move(list));  // string keys from a std::map are unique
}

Value Value::Timestamp(absl::Time t) {
  Value v;
  v.kind_ = Kind::kTimestamp;
  v.rep_ = t;
  return v;
}

Value Value::Duration(absl::Duration d) {
  Value v;
  v.kind_ = Kind::kDuration;
  v.rep_ = d;
  return v;
}

const char* KindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kNull:
      return "null_type";
    case Value::Kind::kBool:
      return "bool";
    case Value::Kind::kInt:
      return "int";
    case Value::Kind::kUint:
      return "uint";
    case Value::Kind::kDouble:
      return "double";
    case Value::Kind::kString:
      return "string";
    case Value::Kind::kBytes:
      return "bytes";
    case Value::Kind::kList:
      return "list";
    case Value::Kind::kMap:
      return "map";
    case Value::Kind::kTimestamp:
      return "google.protobuf.Timestamp";
    case Value::Kind::kDuration:
      return "google.protobuf.Duration";
    case Value::Kind::kType:
      return "type";
    case Value::Kind::kError:
      return "error";
  }
  return "?";
}

namespace {

void AppendQuoted(const std::string& s, bool bytes, std::string* out) {
  out->append(bytes ? "b'" : "'");
  for (unsigned char c : s) {
    switch (c) {
      case '\'':
        out->append("\\'");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
          absl::StrAppendFormat(out, "\\x%02x", c);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
  }
  out->push_back('\'');
}

void AppendDebug(const Value& v, std::string* out) {
  switch (v.kind()) {
    case Value::Kind::kNull:
      out->append("null");
      return;
    case Value::Kind::kBool:
      out->append(v.bool_value() ? "true" : "false");
      return;
    case Value::Kind::kInt:
      absl::StrAppend(out, v.int_value());
      return;
    case Value::Kind::kUint:
      absl::StrAppend(out, v.uint_value(), "u");
      return;
    case Value::Kind::kDouble: {
      std::string d = FormatDouble(v.double_value());
      // Keep doubles recognizable as doubles: 1 -> 1.0.
      if (d.find_first_of(".eIN") == std::string::npos) d.append(".0");
      out->append(d);
      return;
    }
    case Value::Kind::kString:
      AppendQuoted(v.str(), false, out);
      return;
    case Value::Kind::kBytes:
      AppendQuoted(v.str(), true, out);
      return;
    case Value::Kind::kList: {
      out->push_back('[');
      const char* sep = "";
      for (const Value& e : v.list()) {
        out->append(sep);
        AppendDebug(e, out);
        sep = ", ";
      }
      out->push_back(']');
      return;
    }
    case Value::Kind::kMap: {
      out->push_back('{');
      const char* sep = "";
      for (const auto& [k, e] : v.map().entries()) {
        out->append(sep);
        AppendDebug(k, out);
        out->append(": ");
        AppendDebug(e, out);
        sep = ", ";
      }
      out->push_back('}');
      return;
    }
    case Value::Kind::kTimestamp:
      absl::StrAppend(out, "timestamp('", TimestampToString(v.timestamp_value()), "')");
      return;
    case Value::Kind::kDuration:
      absl::StrAppend(out, "duration('", DurationToString(v.duration_value()), "')");
      return;
    case Value::Kind::kType:
      out->append(v.str());
      return;
    case Value::Kind::kError:
      out->append("error(");
      AppendQuoted(v.str(), false, out);
      out->push_back(')');
      return;
  }
}

bool IsNumber(Value::Kind k) {
  return k == Value::Kind::kInt || k == Value::Kind::kUint || k == Value::Kind::kDouble;
}

}  // namespace

size_t Value::UnsharedBytes() const {
  // Rough sizes of the allocations behind each kind: the object, its elements, and for a map
  // the hash index (a node and a bucket per entry).
  constexpr size_t kMapIndexEntry = sizeof(MapValue::KeyRep) + 4 * sizeof(void*);
  if (const auto* s = std::get_if<std::shared_ptr<const std::string>>(&rep_)) {
    return s->use_count() == 1 ? sizeof(std::string) + (*s)->capacity() : 0;
  }
  if (const auto* l = std::get_if<std::shared_ptr<const std::vector<Value>>>(&rep_)) {
    return l->use_count() == 1 ? sizeof(std::vector<Value>) + (*l)->capacity() * sizeof(Value) : 0;
  }
  if (const auto* m = std::get_if<std::shared_ptr<const MapValue>>(&rep_)) {
    return m->use_count() == 1
               ? sizeof(MapValue) + (*m)->size() * (2 * sizeof(Value) + kMapIndexEntry)
               : 0;
  }
  return 0;
}

std::string Value::DebugString() const {
  std::string out;
  AppendDebug(*this, &out);
  return out;
}

bool Equal(const Value& a, const Value& b) {
  if (IsNumber(a.kind()) && IsNumber(b.kind())) return CompareNumbers(a, b) == 0;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case Value::Kind::kNull:
      return true;
    case Value::Kind::kBool:
      return a.bool_value() == b.bool_value();
    case Value::Kind::kString:
    case Value::Kind::kBytes:
    case Value::Kind::kType:
      return a.str() == b.str();
    case Value::Kind::kList: {
      const auto& x = a.list();
      const auto& y = b.list();
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i) {
        if (!Equal(x[i], y[i])) return false;
      }
      return true;
    }
    case Value::Kind::kMap: {
      const MapValue& x = a.map();
      const MapValue& y = b.map();
      if (x.size() != y.size()) return false;
      for (const auto& [k, v] : x.entries()) {
        const Value* other = y.Find(k);
        if (other == nullptr || !Equal(v, *other)) return false;
      }
      return true;
    }
    case Value::Kind::kTimestamp:
      return a.timestamp_value() == b.timestamp_value();
    case Value::Kind::kDuration:
      return a.duration_value() == b.duration_value();
    default:
      return false;
  }
}

size_t MapValue::KeyHash::operator()(const KeyRep& k) const {
  return std::hash<std::string>()(k.str) ^ (std::hash<uint64_t>()(k.num) * 31 + k.tag);
}

bool MapValue::ToKeyRep(const Value& key, KeyRep* rep) {
  switch (key.kind()) {
    case Value::Kind::kBool:
      rep->tag = 0;
      rep->num = key.bool_value() ? 1 : 0;
      return true;
    case Value::Kind::kInt:
      rep->tag = key.int_value() < 0 ? 1 : 2;
      rep->num = static_cast<uint64_t>(key.int_value());
      return true;
    case Value::Kind::kUint:
      rep->tag = 2;
      rep->num = key.uint_value();
      return true;
    case Value::Kind::kDouble: {
      double d = key.double_value();
      if (!(d >= -9223372036854775808.0 && d < 18446744073709551616.0) || std::trunc(d) != d) {
        return false;
      }
      if (d < 0) {
        rep->tag = 1;
        rep->num = static_cast<uint64_t>(static_cast<int64_t>(d));
      } else {
        rep->tag = 2;
        rep->num = static_cast<uint64_t>(d);
      }
      return true;
    }
    case Value::Kind::kString:
      rep->tag = 3;
      rep->str = key.str();
      return true;
    default:
      return false;
  }
}

const Value* MapValue::Find(const Value& key) const {
  KeyRep rep;
  if (!ToKeyRep(key, &rep)) return nullptr;
  auto it = index_.find(rep);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

const Value* MapValue::Find(std::string_view key) const {
  KeyRep rep;
  rep.tag = 3;
  rep.str = std::string(key);
  auto it = index_.find(rep);
  return it == index_.end() ? nullptr : &entries_[it->second].second;
}

}  // namespace cub::cel
