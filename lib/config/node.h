// A value type for one YAML/JSON document tree: the in-memory form of a Unit's data that the
// config functions read and edit, and that yaml.h parses, emits, canonicalizes and hashes.
//
// A Node is null, bool, int (int64), float (double), string, sequence, or mapping. Mapping
// keys are strings kept in insertion order (a vector of pairs), so an edited document is
// written back in the order the user wrote it; lookup by key is a linear scan, which is the
// fastest choice for the small mappings of configuration data.
//
// A Node may carry Comments (see below) that ParseYaml recovered and EmitYaml writes back; like
// the StringStyle hint they are presentation only.
//
// Equality is semantic: mapping key order, the StringStyle hint and comments are ignored; an int is
// never equal to a float (1 != 1.0, as Kubernetes' typed fields see them); floats compare by
// value except that NaN equals NaN and -0.0 differs from 0.0, so that equal Nodes always
// have the same CanonicalJson.
//
// Copying, comparing, destroying and writing a Node recurse over its depth; ParseYaml never
// builds trees deeper than 1,000 levels, and hand-built trees should stay as shallow.
//
// Value semantics: copying a Node copies the whole tree. Not thread-safe for concurrent
// mutation; concurrent const access is safe. Accessors for a specific kind (AsInt(),
// MutableMapping() ...) require that kind; calling one on another kind is a programming error
// and throws std::bad_variant_access.

#ifndef CUB_LIB_CONFIG_NODE_H_
#define CUB_LIB_CONFIG_NODE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace cub::config {

// How a string scalar was written in the source. Only a hint for EmitYaml, which keeps the
// user's style where it is still valid for the (possibly edited) value; never part of
// equality, CanonicalJson or DataHash. Folded block scalars read back as kLiteral.
enum class StringStyle : uint8_t { kAuto, kPlain, kSingleQuoted, kDoubleQuoted, kLiteral };

// The YAML comments that belong to one node. Each field holds zero or more comment lines
// separated by '\n' (no trailing '\n'), each line as written in the source, starting with '#';
// EmitYaml adds "# " to a line that lacks its '#'.
//   head  whole-line comments just above the mapping entry or sequence item whose value is this
//         node (for a document root: above its first line);
//   line  the comment at the end of the node's first line: after a scalar, a flow collection or
//         a block scalar's header, or after "key:" or "-" when the node is a block collection
//         starting on the next line;
//   foot  document roots only: whole-line comments after the document's last line.
struct Comments {
  std::string head;
  std::string line;
  std::string foot;

  bool empty() const { return head.empty() && line.empty() && foot.empty(); }
};

class Node {
 public:
  enum class Kind : uint8_t { kNull, kBool, kInt, kFloat, kString, kSequence, kMapping };
  using Sequence = std::vector<Node>;
  using Entry = std::pair<std::string, Node>;
  using Mapping = std::vector<Entry>;

  Node() = default;  // null

  static Node Null() { return Node(); }
  static Node Bool(bool v) { return Node(Value(std::in_place_index<1>, v)); }
  static Node Int(int64_t v) { return Node(Value(std::in_place_index<2>, v)); }
  static Node Float(double v) { return Node(Value(std::in_place_index<3>, v)); }
  static Node String(std::string v, StringStyle style = StringStyle::kAuto);
  static Node Seq(Sequence items = {}) {
    return Node(Value(std::in_place_index<5>, std::move(items)));
  }
  static Node Map(Mapping entries = {}) {
    return Node(Value(std::in_place_index<6>, std::move(entries)));
  }

  Kind kind() const { return static_cast<Kind>(value_.index()); }
  bool IsNull() const { return kind() == Kind::kNull; }
  bool IsBool() const { return kind() == Kind::kBool; }
  bool IsInt() const { return kind() == Kind::kInt; }
  bool IsFloat() const { return kind() == Kind::kFloat; }
  bool IsString() const { return kind() == Kind::kString; }
  bool IsSequence() const { return kind() == Kind::kSequence; }
  bool IsMapping() const { return kind() == Kind::kMapping; }

  bool AsBool() const { return std::get<1>(value_); }
  int64_t AsInt() const { return std::get<2>(value_); }
  double AsFloat() const { return std::get<3>(value_); }
  const std::string& AsString() const { return std::get<4>(value_); }
  const Sequence& AsSequence() const { return std::get<5>(value_); }
  const Mapping& AsMapping() const { return std::get<6>(value_); }
  std::string& MutableString() { return std::get<4>(value_); }
  Sequence& MutableSequence() { return std::get<5>(value_); }
  Mapping& MutableMapping() { return std::get<6>(value_); }

  // The source style of a string (kAuto for other kinds and for strings built in code).
  StringStyle string_style() const { return style_; }
  void set_string_style(StringStyle style) { style_ = style; }

  // This node's comments, or nullptr if it has none. Comments are shared, immutable, between
  // copies of a Node; setting them on one copy never changes another.
  const Comments* comments() const { return comments_.get(); }
  // Replaces this node's comments (an empty `comments` removes them).
  void set_comments(Comments comments);
  // Makes this node carry `other`'s comments (or none, if it has none); cheap, no copy.
  void CopyCommentsFrom(const Node& other) { comments_ = other.comments_; }

  // Number of items of a sequence or entries of a mapping; 0 for scalars.
  size_t size() const;

  // The value under `key` in a mapping (the first one, should a hand-built mapping repeat a
  // key), or nullptr if absent or if this is not a mapping.
  const Node* Find(std::string_view key) const;
  Node* Find(std::string_view key);

  // Sets `key` to `value`, replacing an existing value in place (keeping its position, and its
  // comments when `value` has none) or appending a new entry. A null Node first becomes an
  // empty mapping. Returns the stored value. Precondition: IsMapping() or IsNull().
  Node& Set(std::string_view key, Node value);

  // Removes `key` from a mapping; returns whether it was present.
  bool Erase(std::string_view key);

  // Appends to a sequence; a null Node first becomes an empty sequence.
  // Precondition: IsSequence() or IsNull().
  Node& Append(Node value);

  friend bool operator==(const Node& a, const Node& b);
  friend bool operator!=(const Node& a, const Node& b) { return !(a == b); }

 private:
  // Alternative order matches Kind.
  using Value = std::variant<std::monostate, bool, int64_t, double, std::string, Sequence, Mapping>;
  explicit Node(Value v) : value_(std::move(v)) {}

  Value value_;
  StringStyle style_ = StringStyle::kAuto;
  std::shared_ptr<const Comments> comments_;  // null when there are none
};

// "null", "bool", "int", "float", "string", "sequence" or "mapping", for messages.
const char* KindName(Node::Kind kind);

}  // namespace cub::config

#endif  // CUB_LIB_CONFIG_NODE_H_
