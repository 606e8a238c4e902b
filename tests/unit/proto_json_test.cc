// util::ProtoJson against protobuf's own printer (MessageToJsonString with
// always_print_primitive_fields, the API's JSON): the two documents, parsed, are equal for the
// API's messages as cub prints them and for a proto3 message built here with a field of every
// kind (each scalar type, enum, bytes, nested message, repeated, map, oneof, optional), set and
// unset, with strings that need escaping and floating-point values JSON has no number for; and
// a string that is not UTF-8 (protobuf drops its bad bytes) prints as a valid document.
#include "lib/util/proto_json.h"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include "cub/v1/changeorder.pb.h"
#include "cub/v1/common.pb.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/util/json_util.h"
#include "nlohmann/json.hpp"

namespace cub {
namespace {

namespace pb = google::protobuf;

std::string Reference(const pb::Message& m) {
  pb::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string out;
  REQUIRE(pb::util::MessageToJsonString(m, &out, options).ok());
  return out;
}

// Both printers' documents, parsed: equal as JSON values (object key order aside).
void CheckSameAsProtobuf(const pb::Message& m) {
  const std::string ours = util::ProtoJson(m);
  const std::string theirs = Reference(m);
  INFO("ours:   " << ours);
  INFO("theirs: " << theirs);
  // nlohmann::json (not the project's ordered Json): objects compare as sets of members.
  const auto a = nlohmann::json::parse(ours, nullptr, false);
  const auto b = nlohmann::json::parse(theirs, nullptr, false);
  REQUIRE_FALSE(a.is_discarded());
  REQUIRE_FALSE(b.is_discarded());
  CHECK(a == b);
}

TEST_CASE("API messages print as protobuf prints them") {
  v1::ChangeOrder empty;
  CheckSameAsProtobuf(empty);

  v1::ChangeOrder co;
  co.set_slug("v2 \"quoted\" \\ back\nline\ttab \x01 é ✓");
  co.set_version(7);
  co.set_completed(true);
  for (int i = 0; i < 100; ++i) co.add_in_scope_space_ids("id-" + std::to_string(i));
  co.add_resolved_space_ids("id-1");
  CheckSameAsProtobuf(co);

  v1::Space space;
  space.set_slug("prod");
  (*space.mutable_labels())["b"] = "2";
  (*space.mutable_labels())["a"] = "1 \"x\"";
  CheckSameAsProtobuf(space);
  CHECK(util::ProtoJson(space).find(R"("Labels":{"a":"1 \"x\"","b":"2"})") != std::string::npos);
}

// A proto3 file with a message of every field kind, built at run time.
struct Dynamic {
  pb::DescriptorPool pool;
  pb::DynamicMessageFactory factory{&pool};
  const pb::Descriptor* type = nullptr;

  Dynamic() {
    pb::FileDescriptorProto file;
    file.set_name("everything.proto");
    file.set_package("t");
    file.set_syntax("proto3");
    auto* e = file.add_enum_type();
    e->set_name("Color");
    e->add_value()->set_name("COLOR_UNSET");
    e->mutable_value(0)->set_number(0);
    e->add_value()->set_name("RED");
    e->mutable_value(1)->set_number(1);
    auto* inner = file.add_message_type();
    inner->set_name("Inner");
    AddField(inner, "note", 1, pb::FieldDescriptorProto::TYPE_STRING);
    auto* m = file.add_message_type();
    m->set_name("Everything");
    using T = pb::FieldDescriptorProto;
    int n = 0;
    for (auto [name, type] :
         std::initializer_list<std::pair<const char*, T::Type>>{{"i32", T::TYPE_INT32},
                                                                {"u32", T::TYPE_UINT32},
                                                                {"s32", T::TYPE_SINT32},
                                                                {"f32", T::TYPE_FIXED32},
                                                                {"sf32", T::TYPE_SFIXED32},
                                                                {"i64", T::TYPE_INT64},
                                                                {"u64", T::TYPE_UINT64},
                                                                {"s64", T::TYPE_SINT64},
                                                                {"f64", T::TYPE_FIXED64},
                                                                {"sf64", T::TYPE_SFIXED64},
                                                                {"dbl", T::TYPE_DOUBLE},
                                                                {"flt", T::TYPE_FLOAT},
                                                                {"flag", T::TYPE_BOOL},
                                                                {"text", T::TYPE_STRING},
                                                                {"blob", T::TYPE_BYTES}}) {
      AddField(m, name, ++n, type);
    }
    AddField(m, "color", ++n, T::TYPE_ENUM)->set_type_name(".t.Color");
    AddField(m, "inner", ++n, T::TYPE_MESSAGE)->set_type_name(".t.Inner");
    auto* list = AddField(m, "nums", ++n, T::TYPE_INT64);
    list->set_label(T::LABEL_REPEATED);
    auto* inners = AddField(m, "inners", ++n, T::TYPE_MESSAGE);
    inners->set_type_name(".t.Inner");
    inners->set_label(T::LABEL_REPEATED);
    auto* colors = AddField(m, "colors", ++n, T::TYPE_ENUM);
    colors->set_type_name(".t.Color");
    colors->set_label(T::LABEL_REPEATED);
    // map<int32, Inner> counts: an entry message, as protoc writes one.
    auto* entry = m->add_nested_type();
    entry->set_name("CountsEntry");
    entry->mutable_options()->set_map_entry(true);
    AddField(entry, "key", 1, T::TYPE_INT32);
    AddField(entry, "value", 2, T::TYPE_MESSAGE)->set_type_name(".t.Inner");
    auto* counts = AddField(m, "counts", ++n, T::TYPE_MESSAGE);
    counts->set_type_name(".t.Everything.CountsEntry");
    counts->set_label(T::LABEL_REPEATED);
    // oneof choice { string word; int32 number; }
    m->add_oneof_decl()->set_name("choice");
    AddField(m, "word", ++n, T::TYPE_STRING)->set_oneof_index(0);
    AddField(m, "number", ++n, T::TYPE_INT32)->set_oneof_index(0);
    // optional string maybe (a synthetic oneof).
    m->add_oneof_decl()->set_name("_maybe");
    auto* maybe = AddField(m, "maybe", ++n, T::TYPE_STRING);
    maybe->set_oneof_index(1);
    maybe->set_proto3_optional(true);
    AddField(m, "renamed_field", ++n, T::TYPE_STRING)->set_json_name("RenamedField");
    REQUIRE(pool.BuildFile(file) != nullptr);
    type = pool.FindMessageTypeByName("t.Everything");
    REQUIRE(type != nullptr);
  }

  static pb::FieldDescriptorProto* AddField(pb::DescriptorProto* m, const char* name, int number,
                                            pb::FieldDescriptorProto::Type type) {
    auto* f = m->add_field();
    f->set_name(name);
    f->set_number(number);
    f->set_type(type);
    f->set_label(pb::FieldDescriptorProto::LABEL_OPTIONAL);
    return f;
  }

  std::unique_ptr<pb::Message> New() {
    return std::unique_ptr<pb::Message>(factory.GetPrototype(type)->New());
  }
};

TEST_CASE("a field of every kind prints as protobuf prints it, set or not") {
  Dynamic d;
  auto empty = d.New();
  CheckSameAsProtobuf(*empty);

  auto m = d.New();
  const pb::Reflection* r = m->GetReflection();
  auto field = [&](const char* name) { return d.type->FindFieldByName(name); };
  r->SetInt32(m.get(), field("i32"), -5);
  r->SetUInt32(m.get(), field("u32"), 4000000000u);
  r->SetInt32(m.get(), field("s32"), -7);
  r->SetUInt32(m.get(), field("f32"), 9);
  r->SetInt32(m.get(), field("sf32"), -9);
  r->SetInt64(m.get(), field("i64"), -9007199254740993LL);  // beyond a double's integers
  r->SetUInt64(m.get(), field("u64"), 18446744073709551615ull);
  r->SetInt64(m.get(), field("s64"), -1);
  r->SetUInt64(m.get(), field("f64"), 1);
  r->SetInt64(m.get(), field("sf64"), 2);
  r->SetDouble(m.get(), field("dbl"), 0.1);
  r->SetFloat(m.get(), field("flt"), 1.5f);
  r->SetBool(m.get(), field("flag"), true);
  r->SetString(m.get(), field("text"), "a\"b\\c\n\x1f\x7f ü");
  r->SetString(m.get(), field("blob"), std::string("\0\xff\x10 bytes", 9));
  r->SetEnumValue(m.get(), field("color"), 1);
  pb::Message* inner = r->MutableMessage(m.get(), field("inner"));
  inner->GetReflection()->SetString(inner, inner->GetDescriptor()->field(0), "deep");
  r->AddInt64(m.get(), field("nums"), 1);
  r->AddInt64(m.get(), field("nums"), -2);
  r->AddMessage(m.get(), field("inners"));
  r->AddEnumValue(m.get(), field("colors"), 1);
  r->AddEnumValue(m.get(), field("colors"), 42);  // no such value: printed as its number
  for (int key : {3, -1}) {
    pb::Message* entry = r->AddMessage(m.get(), field("counts"));
    const pb::Reflection* er = entry->GetReflection();
    er->SetInt32(entry, entry->GetDescriptor()->field(0), key);
    pb::Message* value = er->MutableMessage(entry, entry->GetDescriptor()->field(1));
    value->GetReflection()->SetString(value, value->GetDescriptor()->field(0), "v");
  }
  r->SetInt32(m.get(), field("number"), 0);   // a oneof member set to its default still prints
  r->SetString(m.get(), field("maybe"), "");  // so does a present optional field
  r->SetString(m.get(), field("renamed_field"), "r");
  CheckSameAsProtobuf(*m);

  for (double v : {std::numeric_limits<double>::quiet_NaN(), HUGE_VAL, -HUGE_VAL, 1e300, -0.0,
                   1.2345678, 16777217.0}) {
    r->SetDouble(m.get(), field("dbl"), v);
    r->SetFloat(m.get(), field("flt"), static_cast<float>(v));
    CheckSameAsProtobuf(*m);
  }
}

TEST_CASE("a string that is not UTF-8 still prints as a valid document") {
  v1::Space space;
  space.set_slug(std::string("bad \xff\xc3 end", 10));  // set by a program: never off the wire
  const std::string json = util::ProtoJson(space);
  const auto parsed = nlohmann::json::parse(json, nullptr, false);
  REQUIRE_FALSE(parsed.is_discarded());
  CHECK(parsed["Slug"] == "bad \xef\xbf\xbd\xef\xbf\xbd end");
}

}  // namespace
}  // namespace cub
