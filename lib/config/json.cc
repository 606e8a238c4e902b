#include "lib/config/json.h"

#include <algorithm>
#include <cmath>

#include "lib/config/scalar.h"

namespace cub::config {
namespace {

void AppendJsonString(std::string_view s, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  size_t run = 0;  // start of the pending run of bytes that need no escaping
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out->append(s.data() + run, i - run);
    run = i + 1;
    out->push_back('\\');
    switch (c) {
      case '"':
        out->push_back('"');
        break;
      case '\\':
        out->push_back('\\');
        break;
      case '\b':
        out->push_back('b');
        break;
      case '\f':
        out->push_back('f');
        break;
      case '\n':
        out->push_back('n');
        break;
      case '\r':
        out->push_back('r');
        break;
      case '\t':
        out->push_back('t');
        break;
      default:
        out->append("u00");
        out->push_back(kHex[c >> 4]);
        out->push_back(kHex[c & 0xf]);
    }
  }
  out->append(s.data() + run, s.size() - run);
  out->push_back('"');
}

void AppendNewline(int depth, std::string* out) {
  out->push_back('\n');
  out->append(2 * static_cast<size_t>(depth), ' ');
}

class JsonWriter {
 public:
  JsonWriter(bool canonical, bool pretty, std::string* out)
      : canonical_(canonical), pretty_(pretty), out_(*out) {}

  void Write(const Node& n, int depth) {
    switch (n.kind()) {
      case Node::Kind::kNull:
        out_.append("null");
        break;
      case Node::Kind::kBool:
        out_.append(n.AsBool() ? "true" : "false");
        break;
      case Node::Kind::kInt:
        out_.append(std::to_string(n.AsInt()));
        break;
      case Node::Kind::kFloat:
        WriteFloat(n.AsFloat());
        break;
      case Node::Kind::kString:
        AppendJsonString(n.AsString(), &out_);
        break;
      case Node::Kind::kSequence:
        WriteSequence(n.AsSequence(), depth);
        break;
      case Node::Kind::kMapping:
        WriteMapping(n.AsMapping(), depth);
        break;
    }
  }

 private:
  void WriteFloat(double v) {
    if (std::isfinite(v)) {
      out_.append(FormatFloat(v));
    } else if (canonical_) {
      out_.append(std::isnan(v) ? "NaN" : v < 0 ? "-Infinity" : "Infinity");
    } else {
      out_.append(std::isnan(v) ? "\".nan\"" : v < 0 ? "\"-.inf\"" : "\".inf\"");
    }
  }

  void WriteSequence(const Node::Sequence& items, int depth) {
    out_.push_back('[');
    for (size_t i = 0; i < items.size(); ++i) {
      if (i > 0) out_.push_back(',');
      if (pretty_) AppendNewline(depth + 1, &out_);
      Write(items[i], depth + 1);
    }
    if (pretty_ && !items.empty()) AppendNewline(depth, &out_);
    out_.push_back(']');
  }

  void WriteMapping(const Node::Mapping& entries, int depth) {
    out_.push_back('{');
    if (canonical_ && entries.size() > 1) {
      std::vector<const Node::Entry*> sorted;
      sorted.reserve(entries.size());
      for (const auto& e : entries) sorted.push_back(&e);
      std::stable_sort(
          sorted.begin(), sorted.end(),
          [](const Node::Entry* a, const Node::Entry* b) { return a->first < b->first; });
      for (size_t i = 0; i < sorted.size(); ++i) WriteEntry(*sorted[i], i, depth);
    } else {
      for (size_t i = 0; i < entries.size(); ++i) WriteEntry(entries[i], i, depth);
    }
    if (pretty_ && !entries.empty()) AppendNewline(depth, &out_);
    out_.push_back('}');
  }

  void WriteEntry(const Node::Entry& e, size_t index, int depth) {
    if (index > 0) out_.push_back(',');
    if (pretty_) AppendNewline(depth + 1, &out_);
    AppendJsonString(e.first, &out_);
    out_.append(pretty_ ? ": " : ":");
    Write(e.second, depth + 1);
  }

  const bool canonical_;
  const bool pretty_;
  std::string& out_;
};

}  // namespace

std::string CanonicalJson(const std::vector<Node>& docs) {
  std::string out;
  out.reserve(256);
  JsonWriter writer(/*canonical=*/true, /*pretty=*/false, &out);
  out.push_back('[');
  for (size_t i = 0; i < docs.size(); ++i) {
    if (i > 0) out.push_back(',');
    writer.Write(docs[i], 0);
  }
  out.push_back(']');
  return out;
}

std::string EmitJson(const Node& node, bool pretty) {
  std::string out;
  JsonWriter(/*canonical=*/false, pretty, &out).Write(node, 0);
  return out;
}

}  // namespace cub::config
