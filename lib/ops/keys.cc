#include "lib/ops/keys.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "lib/sign/signing_key.h"
#include "lib/store/events.h"
#include "lib/store/transaction.h"
#include "lib/store/trusted_keys.h"
#include "lib/util/json.h"
#include "lib/util/status_macros.h"

namespace cub::ops {
namespace {

constexpr size_t kMaxPemBytes = 16 << 10;
constexpr size_t kMaxNoteBytes = 500;
constexpr char kBeginPublic[] = "-----BEGIN PUBLIC KEY-----";
constexpr char kEndPublic[] = "-----END PUBLIC KEY-----";

absl::Status NeedAdmin(const Principal& p, const char* what) {
  if (p.admin) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat(what, " needs a server admin (user '", p.username,
                   "' is not one): a trusted key's signatures are deployed into every Space"));
}

// The one PEM block of an Ed25519 public key in `text`, as stored ("...-----\n"), and its id.
absl::Status ReadPublicPem(const std::string& text, std::string* pem, std::string* key_id) {
  if (text.size() > kMaxPemBytes) {
    return absl::InvalidArgumentError(absl::StrCat("PEM: ", text.size(), " bytes, more than the ",
                                                   kMaxPemBytes, " a public key can take"));
  }
  if (absl::StrContains(text, "PRIVATE KEY-----")) {
    return absl::InvalidArgumentError(
        "PEM: this is a private key, which is not stored: trust its public half, as `openssl "
        "pkey -in KEY.pem -pubout` writes it");
  }
  const absl::string_view trimmed = absl::StripAsciiWhitespace(text);
  const size_t blocks = [&] {
    size_t n = 0;
    for (size_t at = trimmed.find("-----BEGIN "); at != absl::string_view::npos;
         at = trimmed.find("-----BEGIN ", at + 1)) {
      ++n;
    }
    return n;
  }();
  if (blocks != 1 || !absl::StartsWith(trimmed, kBeginPublic) ||
      !absl::EndsWith(trimmed, kEndPublic)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PEM: expected exactly one \"", kBeginPublic, "\" block and nothing else, found ",
        blocks == 0 ? std::string("no PEM block") : absl::StrCat(blocks, " PEM block(s)"),
        blocks == 1 ? " of another kind or with text around it" : ""));
  }
  *pem = absl::StrCat(trimmed, "\n");
  auto id = sign::PublicKeyId(*pem);
  if (!id.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("PEM: not an Ed25519 public key: ", id.status().message(),
                     " (cub signs and verifies with Ed25519 keys only)"));
  }
  *key_id = *std::move(id);
  return absl::OkStatus();
}

bool IsKeyId(const std::string& s) {
  if (!absl::StartsWith(s, "sha256:") || s.size() != 7 + 64) return false;
  for (size_t i = 7; i < s.size(); ++i) {
    const char c = s[i];
    if (!absl::ascii_isdigit(c) && !(c >= 'a' && c <= 'f')) return false;
  }
  return true;
}

std::string Since(const v1::TrustedKey& k) {
  return absl::StrCat("origin ", k.origin(), ", recorded ", k.created_at(),
                      k.created_by().empty() ? "" : absl::StrCat(" by ", k.created_by()));
}

store::NewEvent KeyEvent(const Principal& p, const char* kind, const v1::TrustedKey& k,
                         std::string message) {
  store::NewEvent e;
  e.kind = kind;
  e.user_id = p.user_id;
  e.username = p.username;
  e.message = std::move(message);
  e.details_json = JsonText(Json{{"KeyID", k.key_id()},
                                 {"Origin", k.origin()},
                                 {"Note", k.note()},
                                 {"RevokeReason", k.revoke_reason()}});
  return e;
}

}  // namespace

absl::StatusOr<v1::ListKeysResponse> ListKeys(store::ConnectionPool& db, sign::KeyRing& ring,
                                              const Principal& p, const v1::ListKeysRequest& req) {
  (void)p;  // any authenticated caller
  CUB_ASSIGN_OR_RETURN(auto snapshot, ring.Snapshot());
  const std::string current = snapshot->signing ? snapshot->signing->KeyId() : std::string();
  CUB_ASSIGN_OR_RETURN(auto keys, store::InReadTransaction(db, [&](store::Tx& tx) {
                         return store::ListTrustedKeys(tx, req.all());
                       }));
  v1::ListKeysResponse out;
  for (auto& k : keys) {
    k.set_current(!current.empty() && k.key_id() == current);
    *out.add_keys() = std::move(k);
  }
  return out;
}

absl::StatusOr<v1::TrustedKey> TrustKey(store::ConnectionPool& db, sign::KeyRing& ring,
                                        const Principal& p, const v1::TrustKeyRequest& req) {
  CUB_RETURN_IF_ERROR(NeedAdmin(p, "trusting a key"));
  std::string pem, key_id;
  CUB_RETURN_IF_ERROR(ReadPublicPem(req.pem(), &pem, &key_id));
  if (req.note().size() > kMaxNoteBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("Note: ", req.note().size(), " bytes, longer than ", kMaxNoteBytes));
  }
  auto out = store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::TrustedKey> {
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindTrustedKey(tx, key_id, /*for_update=*/true));
    if (existing && !existing->revoked_at().empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "PEM: key ", key_id, " was revoked at ", existing->revoked_at(), " by ",
          existing->revoked_by(), ": a revoked key is never trusted again; make a new key"));
    }
    if (existing) {
      return absl::AlreadyExistsError(
          absl::StrCat("PEM: key ", key_id, " is trusted already (", Since(*existing), ")"));
    }
    store::NewTrustedKey nk{key_id, pem, store::kKeyOriginTrusted, req.note(), p.username};
    CUB_ASSIGN_OR_RETURN(auto stored, store::InsertTrustedKey(tx, nk));
    CUB_RETURN_IF_ERROR(store::AppendEvent(
        tx, KeyEvent(p, kKeyTrustedEvent, stored,
                     absl::StrCat("key ", key_id, " trusted",
                                  req.note().empty() ? "" : absl::StrCat(" (", req.note(), ")")))));
    return stored;
  });
  if (absl::IsAlreadyExists(out.status()) && !absl::StartsWith(out.status().message(), "PEM:")) {
    // Recorded by someone else meanwhile.
    return absl::AlreadyExistsError(absl::StrCat("PEM: key ", key_id, " is trusted already"));
  }
  if (out.ok()) ring.Refresh();
  return out;
}

absl::StatusOr<v1::TrustedKey> RevokeKey(store::ConnectionPool& db, sign::KeyRing& ring,
                                         const Principal& p, const v1::RevokeKeyRequest& req) {
  CUB_RETURN_IF_ERROR(NeedAdmin(p, "revoking a key"));
  const std::string& key_id = req.key_id();
  if (!IsKeyId(key_id)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "KeyID: '", key_id, "' is not a key id; they read sha256:<64 hex digits> (cub key list)"));
  }
  if (req.reason().size() > kMaxNoteBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("Reason: ", req.reason().size(), " bytes, longer than ", kMaxNoteBytes));
  }
  CUB_ASSIGN_OR_RETURN(auto snapshot, ring.Snapshot());
  if (snapshot->signing && snapshot->signing->KeyId() == key_id) {
    return absl::FailedPreconditionError(
        absl::StrCat("KeyID: ", key_id,
                     " is the key this cubd signs with now; rotate first (restart cubd with a new "
                     "--signing-key: the old key stays trusted), then revoke it"));
  }
  auto out = store::InTransaction(db, [&](store::Tx& tx) -> absl::StatusOr<v1::TrustedKey> {
    CUB_ASSIGN_OR_RETURN(auto existing, store::FindTrustedKey(tx, key_id, /*for_update=*/true));
    if (!existing) {
      return absl::NotFoundError(
          absl::StrCat("KeyID: no key ", key_id, " is recorded (cub key list --all)"));
    }
    if (!existing->revoked_at().empty()) {
      return absl::FailedPreconditionError(
          absl::StrCat("KeyID: key ", key_id, " was revoked already, at ", existing->revoked_at(),
                       " by ", existing->revoked_by()));
    }
    CUB_ASSIGN_OR_RETURN(auto revoked,
                         store::RevokeTrustedKey(tx, key_id, p.username, req.reason()));
    CUB_RETURN_IF_ERROR(store::AppendEvent(
        tx,
        KeyEvent(p, kKeyRevokedEvent, revoked,
                 absl::StrCat("key ", key_id, " revoked",
                              req.reason().empty() ? "" : absl::StrCat(" (", req.reason(), ")")))));
    return revoked;
  });
  if (out.ok()) ring.Refresh();
  return out;
}

}  // namespace cub::ops
