// Value::FromJson: a strict RFC 8259 reader producing CEL values.

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "lib/util/utf8.h"
#include "lib/cel/value.h"

namespace cub::cel {

namespace {

constexpr int kMaxJsonDepth = 100;

class JsonReader {
 public:
  explicit JsonReader(std::string_view s) : s_(s) {}

  absl::StatusOr<Value> Run() {
    if (!cub::IsValidUtf8(s_)) return Error("invalid UTF-8");
    Value v;
    absl::Status st = Read(0, &v);
    if (!st.ok()) return st;
    SkipSpace();
    if (pos_ != s_.size()) return Error("trailing characters");
    return v;
  }

 private:
  absl::Status Error(std::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("json: ", absl::string_view(what.data(), what.size()), " at offset ", pos_));
  }
  void SkipSpace() {
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Literal(std::string_view word) {
    if (s_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::Status Read(int depth, Value* out) {
    if (depth >= kMaxJsonDepth) return Error("nesting too deep");
    SkipSpace();
    if (pos_ >= s_.size()) return Error("unexpected end");
    char c = s_[pos_];
    if (c == '{') return Object(depth, out);
    if (c == '[') return Array(depth, out);
    if (c == '"') {
      std::string s;
      absl::Status st = String(&s);
      if (st.ok()) *out = Value::String(std::move(s));
      return st;
    }
    if (Literal("true")) {
      *out = Value::Bool(true);
    } else if (Literal("false")) {
      *out = Value::Bool(false);
    } else if (Literal("null")) {
      *out = Value::Null();
    } else if (c == '-' || absl::ascii_isdigit(c)) {
      return Number(out);
    } else {
      return Error("unexpected character");
    }
    return absl::OkStatus();
  }

  absl::Status Object(int depth, Value* out) {
    ++pos_;
    std::vector<std::pair<Value, Value>> entries;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == '}') {
      ++pos_;
    } else {
      while (true) {
        SkipSpace();
        if (pos_ >= s_.size() || s_[pos_] != '"') return Error("expected a string key");
        std::string key;
        absl::Status st = String(&key);
        if (!st.ok()) return st;
        SkipSpace();
        if (pos_ >= s_.size() || s_[pos_] != ':') return Error("expected ':'");
        ++pos_;
        Value v;
        st = Read(depth + 1, &v);
        if (!st.ok()) return st;
        entries.emplace_back(Value::String(std::move(key)), std::move(v));
        SkipSpace();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == '}') {
          ++pos_;
          break;
        }
        return Error("expected ',' or '}'");
      }
    }
    absl::StatusOr<Value> m = Value::Map(std::move(entries));
    if (!m.ok()) return Error(std::string(m.status().message()));
    *out = *std::move(m);
    return absl::OkStatus();
  }

  absl::Status Array(int depth, Value* out) {
    ++pos_;
    std::vector<Value> elems;
    SkipSpace();
    if (pos_ < s_.size() && s_[pos_] == ']') {
      ++pos_;
    } else {
      while (true) {
        Value v;
        absl::Status st = Read(depth + 1, &v);
        if (!st.ok()) return st;
        elems.push_back(std::move(v));
        SkipSpace();
        if (pos_ < s_.size() && s_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < s_.size() && s_[pos_] == ']') {
          ++pos_;
          break;
        }
        return Error("expected ',' or ']'");
      }
    }
    *out = Value::List(std::move(elems));
    return absl::OkStatus();
  }

  bool Hex4(uint32_t* cp) {
    if (pos_ + 4 > s_.size()) return false;
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      char c = s_[pos_ + i];
      int d = absl::ascii_isdigit(c)   ? c - '0'
              : (c >= 'a' && c <= 'f') ? c - 'a' + 10
              : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                       : -1;
      if (d < 0) return false;
      v = v * 16 + d;
    }
    pos_ += 4;
    *cp = v;
    return true;
  }

  absl::Status String(std::string* out) {
    ++pos_;  // opening quote
    while (true) {
      if (pos_ >= s_.size()) return Error("unterminated string");
      char c = s_[pos_++];
      if (c == '"') return absl::OkStatus();
      if (static_cast<unsigned char>(c) < 0x20) return Error("control character in string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ >= s_.size()) return Error("unterminated string");
      char e = s_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t cp;
          if (!Hex4(&cp)) return Error("invalid \\u escape");
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t lo;
            if (!Literal("\\u") || !Hex4(&lo) || lo < 0xDC00 || lo > 0xDFFF) {
              return Error("unpaired surrogate in \\u escape");
            }
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
          }
          if (!cub::AppendUtf8(cp, out)) return Error("invalid \\u escape");
          break;
        }
        default:
          return Error("invalid escape");
      }
    }
  }

  absl::Status Number(Value* out) {
    size_t start = pos_;
    if (s_[pos_] == '-') ++pos_;
    if (pos_ >= s_.size() || !absl::ascii_isdigit(s_[pos_])) return Error("invalid number");
    if (s_[pos_] == '0') {
      ++pos_;
    } else {
      while (pos_ < s_.size() && absl::ascii_isdigit(s_[pos_])) ++pos_;
    }
    bool integral = true;
    if (pos_ < s_.size() && s_[pos_] == '.') {
      integral = false;
      ++pos_;
      if (pos_ >= s_.size() || !absl::ascii_isdigit(s_[pos_])) return Error("invalid number");
      while (pos_ < s_.size() && absl::ascii_isdigit(s_[pos_])) ++pos_;
    }
    if (pos_ < s_.size() && (s_[pos_] == 'e' || s_[pos_] == 'E')) {
      integral = false;
      ++pos_;
      if (pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-')) ++pos_;
      if (pos_ >= s_.size() || !absl::ascii_isdigit(s_[pos_])) return Error("invalid number");
      while (pos_ < s_.size() && absl::ascii_isdigit(s_[pos_])) ++pos_;
    }
    absl::string_view text(s_.data() + start, pos_ - start);
    int64_t i;
    if (integral && absl::SimpleAtoi(text, &i)) {
      *out = Value::Int(i);
      return absl::OkStatus();
    }
    double d;
    if (!absl::SimpleAtod(text, &d)) return Error("invalid number");
    *out = Value::Double(d);
    return absl::OkStatus();
  }

  std::string_view s_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<Value> Value::FromJson(std::string_view json) { return JsonReader(json).Run(); }

}  // namespace cub::cel
