// SSHSIG (OpenSSH's PROTOCOL.sshsig) over Ed25519, with OpenSSL.
//
// The signed data is "SSHSIG" || string("git") || string("") || string("sha512") ||
// string(SHA-512 of the commit); the signature blob is "SSHSIG" || uint32(1) || string(public
// key) || string("git") || string("") || string("sha512") || string(string("ssh-ed25519") ||
// string(64-byte signature)), base64 in lines of 70 characters between the armor lines, as
// ssh-keygen -Y sign writes it.
//
// The private key file is OpenSSH's "openssh-key-v1" format (PROTOCOL.key): unencrypted
// (cipher and kdf "none"), one key, of type ssh-ed25519, whose private part holds the 32-byte
// seed followed by the public key.

#include "lib/targets/commit_signer.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/targets/internal.h"

namespace cub::targets {
namespace {

constexpr std::string_view kMagic = "SSHSIG";
constexpr std::string_view kKeyType = "ssh-ed25519";
constexpr std::string_view kNamespace = "git";
constexpr std::string_view kHash = "sha512";

void PutU32(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v >> 24));
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

void PutString(std::string* out, std::string_view s) {
  PutU32(out, static_cast<uint32_t>(s.size()));
  out->append(s);
}

// Reads the fields of an SSH wire buffer in order; any read past the end makes ok() false.
class Reader {
 public:
  explicit Reader(std::string_view b) : b_(b) {}
  uint32_t U32() {
    if (b_.size() < 4) return Bad();
    uint32_t v = (uint32_t{static_cast<unsigned char>(b_[0])} << 24) |
                 (uint32_t{static_cast<unsigned char>(b_[1])} << 16) |
                 (uint32_t{static_cast<unsigned char>(b_[2])} << 8) |
                 uint32_t{static_cast<unsigned char>(b_[3])};
    b_.remove_prefix(4);
    return v;
  }
  std::string_view String() {
    uint32_t n = U32();
    if (!ok_ || n > b_.size()) {
      Bad();
      return {};
    }
    std::string_view s = b_.substr(0, n);
    b_.remove_prefix(n);
    return s;
  }
  std::string_view Rest() const { return b_; }
  bool ok() const { return ok_; }

 private:
  uint32_t Bad() {
    ok_ = false;
    b_ = {};
    return 0;
  }
  std::string_view b_;
  bool ok_ = true;
};

using PkeyPtr = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

class Ed25519Signer : public CommitSigner {
 public:
  Ed25519Signer(PkeyPtr key, std::string public_blob)
      : key_(std::move(key)), public_blob_(std::move(public_blob)) {}

  absl::StatusOr<std::string> Sign(std::string_view commit) const override {
    unsigned char digest[SHA512_DIGEST_LENGTH];
    SHA512(reinterpret_cast<const unsigned char*>(commit.data()), commit.size(), digest);
    std::string to_sign(kMagic);
    PutString(&to_sign, kNamespace);
    PutString(&to_sign, "");
    PutString(&to_sign, kHash);
    PutString(&to_sign, std::string_view(reinterpret_cast<char*>(digest), sizeof digest));

    std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free);
    unsigned char sig[64];
    size_t sig_len = sizeof sig;
    if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1 ||
        EVP_DigestSign(ctx.get(), sig, &sig_len,
                       reinterpret_cast<const unsigned char*>(to_sign.data()),
                       to_sign.size()) != 1) {
      return absl::InternalError("commit signing: Ed25519 signing failed");
    }
    std::string inner;
    PutString(&inner, kKeyType);
    PutString(&inner, std::string_view(reinterpret_cast<char*>(sig), sig_len));

    std::string blob(kMagic);
    PutU32(&blob, 1);
    PutString(&blob, public_blob_);
    PutString(&blob, kNamespace);
    PutString(&blob, "");
    PutString(&blob, kHash);
    PutString(&blob, inner);

    const std::string b64 = absl::Base64Escape(blob);
    std::string out = "-----BEGIN SSH SIGNATURE-----\n";
    for (size_t i = 0; i < b64.size(); i += 70) absl::StrAppend(&out, b64.substr(i, 70), "\n");
    out += "-----END SSH SIGNATURE-----";
    return out;
  }

  std::string PublicKey() const override {
    return absl::StrCat(std::string(kKeyType), " ", absl::Base64Escape(public_blob_));
  }

 private:
  PkeyPtr key_;
  std::string public_blob_;  // string("ssh-ed25519") || string(32-byte key)
};

absl::Status NotAKey(const std::string& path, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("--git-signing-key ", path, ": not an unencrypted OpenSSH Ed25519 private key (",
                   std::string(why), "); make one with ssh-keygen -t ed25519 -N ''"));
}

}  // namespace

absl::StatusOr<std::unique_ptr<CommitSigner>> CommitSigner::FromFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    std::string msg =
        absl::StrCat("--git-signing-key ", path, ": cannot open: ", internal::ErrnoText(err));
    return err == ENOENT ? absl::NotFoundError(msg) : absl::FailedPreconditionError(msg);
  }
  std::string text;
  struct stat st;
  bool stat_ok = ::fstat(fd, &st) == 0;
  if (stat_ok && S_ISREG(st.st_mode) && (st.st_mode & S_IROTH) == 0) {
    char buf[4096];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < (1 << 16)) text.append(buf, n);
  }
  ::close(fd);
  if (!stat_ok || !S_ISREG(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("--git-signing-key ", path, ": not a regular file"));
  }
  if (st.st_mode & S_IROTH) {
    return absl::FailedPreconditionError(
        absl::StrFormat("--git-signing-key %s: readable by others (mode %04o); chmod o-rwx it",
                        path, st.st_mode & 07777));
  }

  constexpr std::string_view kBegin = "-----BEGIN OPENSSH PRIVATE KEY-----";
  constexpr std::string_view kEnd = "-----END OPENSSH PRIVATE KEY-----";
  size_t b = text.find(kBegin), e = text.find(kEnd);
  if (b == std::string::npos || e == std::string::npos || e < b) {
    return NotAKey(path, "no OPENSSH PRIVATE KEY block");
  }
  std::string b64;
  for (char c : std::string_view(text).substr(b + kBegin.size(), e - b - kBegin.size())) {
    if (c != '\n' && c != '\r' && c != ' ' && c != '\t') b64.push_back(c);
  }
  std::string decoded;
  if (!absl::Base64Unescape(b64, &decoded)) return NotAKey(path, "bad base64");
  const std::string* raw = &decoded;
  constexpr std::string_view kAuthMagic("openssh-key-v1\0", 15);
  if (raw->compare(0, kAuthMagic.size(), kAuthMagic) != 0) {
    return NotAKey(path, "not openssh-key-v1");
  }
  Reader r(std::string_view(*raw).substr(kAuthMagic.size()));
  std::string_view cipher = r.String(), kdf = r.String();
  r.String();  // kdf options
  uint32_t nkeys = r.U32();
  std::string_view public_blob = r.String();
  std::string_view priv = r.String();
  if (!r.ok()) return NotAKey(path, "truncated");
  if (cipher != "none" || kdf != "none") return NotAKey(path, "the key is encrypted");
  if (nkeys != 1) return NotAKey(path, "more than one key");
  Reader p(priv);
  uint32_t check1 = p.U32(), check2 = p.U32();
  std::string_view type = p.String(), pub = p.String(), secret = p.String();
  if (!p.ok() || check1 != check2) return NotAKey(path, "damaged private section");
  if (type != kKeyType) return NotAKey(path, absl::StrCat("key type ", std::string(type)));
  if (pub.size() != 32 || secret.size() != 64 || secret.substr(32) != pub) {
    return NotAKey(path, "damaged Ed25519 key");
  }
  Reader pb(public_blob);
  if (pb.String() != kKeyType || pb.String() != pub || !pb.ok() || !pb.Rest().empty()) {
    return NotAKey(path, "the public key does not match the private key");
  }

  PkeyPtr key(
      EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr,
                                   reinterpret_cast<const unsigned char*>(secret.data()), 32),
      EVP_PKEY_free);
  unsigned char derived[32];
  size_t derived_len = sizeof derived;
  if (!key || EVP_PKEY_get_raw_public_key(key.get(), derived, &derived_len) != 1 ||
      derived_len != 32 || std::memcmp(derived, pub.data(), 32) != 0) {
    return NotAKey(path, "the public key does not match the private key");
  }
  return std::unique_ptr<CommitSigner>(new Ed25519Signer(std::move(key), std::string(public_blob)));
}

}  // namespace cub::targets
