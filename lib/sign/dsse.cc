#include "lib/sign/dsse.h"

#include "absl/strings/str_cat.h"
#include "lib/sign/base64.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::sign {
namespace {

absl::Status Bad(std::string_view what) {
  return absl::InvalidArgumentError(
      absl::StrCat("dsse envelope: ", absl::string_view(what.data(), what.size())));
}

// The string under `key` of `map` (named `where` in messages). A missing or null value is
// `*value` unchanged when `optional`, else an error.
absl::Status GetString(const Json& map, std::string_view key, std::string_view where, bool optional,
                       std::string* value) {
  const auto v = map.find(key);
  if (v == map.end() || (optional && v->is_null())) {
    if (optional) return absl::OkStatus();
    return Bad(absl::StrCat("missing \"", std::string(key), "\"", std::string(where)));
  }
  if (!v->is_string()) {
    return Bad(absl::StrCat("\"", std::string(key), "\"", std::string(where),
                            " must be a string (found ", JsonKindName(*v), ")"));
  }
  *value = v->get<std::string>();
  return absl::OkStatus();
}

absl::Status GetBase64(const Json& map, std::string_view key, std::string_view where,
                       std::string* value) {
  std::string text;
  CUB_RETURN_IF_ERROR(GetString(map, key, where, /*optional=*/false, &text));
  absl::StatusOr<std::string> bytes = Base64DecodeStdOrUrl(text);
  if (!bytes.ok()) {
    return Bad(absl::StrCat("\"", std::string(key), "\"", std::string(where), " is not valid ",
                            bytes.status().message()));
  }
  *value = *std::move(bytes);
  return absl::OkStatus();
}

}  // namespace

std::string Pae(std::string_view payload_type, std::string_view payload) {
  std::string out = absl::StrCat("DSSEv1 ", payload_type.size(), " ");
  out.append(payload_type.data(), payload_type.size());
  absl::StrAppend(&out, " ", payload.size(), " ");
  out.append(payload.data(), payload.size());
  return out;
}

std::string Envelope::ToJson() const {
  // Written directly, without copying the payload into a Json first.
  std::string out;
  JsonObjectWriter env(out);
  env.String("payloadType", payload_type)
      .String("payload", Base64Encode(payload))
      .Array("signatures", signatures.size(),
             [&](std::string& list, size_t i) {
               JsonObjectWriter(list)
                   .String("keyid", signatures[i].keyid)
                   .String("sig", Base64Encode(signatures[i].sig))
                   .Close();
             })
      .Close();
  return out;
}

absl::StatusOr<Envelope> Envelope::FromJson(std::string_view json) {
  if (json.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    return Bad("expected one JSON object, found 0 documents");
  }
  absl::StatusOr<Json> parsed = ParseJson(json);
  if (!parsed.ok()) return Bad(absl::StrCat("not valid JSON: ", parsed.status().message()));
  const Json& root = *parsed;
  if (!root.is_object()) {
    return Bad(absl::StrCat("it must be a JSON object (found ", JsonKindName(root), ")"));
  }
  Envelope env;
  absl::Status s = GetString(root, "payloadType", "", /*optional=*/false, &env.payload_type);
  if (s.ok()) s = GetBase64(root, "payload", "", &env.payload);
  if (!s.ok()) return s;
  const auto sigs = root.find("signatures");
  if (sigs == root.end()) return Bad("missing \"signatures\"");
  if (!sigs->is_array()) {
    return Bad(absl::StrCat("\"signatures\" must be an array (found ", JsonKindName(*sigs), ")"));
  }
  for (size_t i = 0; i < sigs->size(); ++i) {
    const Json& item = (*sigs)[i];
    const std::string where = absl::StrCat(" in signatures[", i, "]");
    if (!item.is_object()) {
      return Bad(
          absl::StrCat("signatures[", i, "] must be an object (found ", JsonKindName(item), ")"));
    }
    Signature sig;
    s = GetString(item, "keyid", where, /*optional=*/true, &sig.keyid);
    if (s.ok()) s = GetBase64(item, "sig", where, &sig.sig);
    if (!s.ok()) return s;
    env.signatures.push_back(std::move(sig));
  }
  return env;
}

Envelope SignEnvelope(const SigningKey& key, std::string_view payload_type,
                      std::string_view payload) {
  Envelope env;
  env.payload_type = std::string(payload_type);
  env.payload = std::string(payload);
  env.signatures.push_back({key.KeyId(), key.Sign(Pae(payload_type, payload))});
  return env;
}

absl::Status VerifyEnvelope(const Envelope& env, std::string_view public_key_pem) {
  CUB_ASSIGN_OR_RETURN(std::string key_id, PublicKeyId(public_key_pem));
  if (env.signatures.empty()) {
    return absl::UnauthenticatedError("dsse envelope: it has no signatures");
  }
  const std::string pae = Pae(env.payload_type, env.payload);
  std::string failures;
  for (size_t i = 0; i < env.signatures.size(); ++i) {
    const Envelope::Signature& sig = env.signatures[i];
    absl::Status s = VerifyEd25519(public_key_pem, pae, sig.sig);
    if (s.ok()) return absl::OkStatus();
    absl::StrAppend(
        &failures, "; signatures[", i, "]",
        sig.keyid.empty() ? std::string() : absl::StrCat(" (keyid ", sig.keyid, ")"), ": ",
        s.code() == absl::StatusCode::kUnauthenticated ? absl::string_view("does not verify")
                                                       : s.message());
  }
  return absl::UnauthenticatedError(absl::StrCat("dsse envelope: no signature verifies with key ",
                                                 key_id, " over payload type \"", env.payload_type,
                                                 "\"", failures));
}

}  // namespace cub::sign
