#include "lib/sign/signing_key.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "lib/sign/verified_signatures.h"
#include "lib/util/sha256.h"
#include "lib/util/status_macros.h"

namespace cub::sign {

namespace {

// A key file is a few hundred bytes; anything much larger is not one.
constexpr size_t kMaxKeyFileSize = 64 * 1024;
// Mode bits a key file may not have: group write or execute, and any access by others.
constexpr mode_t kRefusedKeyModeBits = S_IWGRP | S_IXGRP | S_IRWXO;

struct PkeyFree {
  void operator()(EVP_PKEY* p) const { EVP_PKEY_free(p); }
};
struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* c) const { EVP_PKEY_CTX_free(c); }
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyFree>;
using BioPtr = std::unique_ptr<BIO, BioFree>;
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxFree>;
using PkeyCtxPtr = std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree>;

// OpenSSL's per-thread error queue, drained into one line (for messages) and left empty, so
// that no stale error is blamed on a later call in this thread.
std::string DrainOpenSslErrors() {
  std::string out;
  while (unsigned long e = ERR_get_error()) {
    char buf[256];
    ERR_error_string_n(e, buf, sizeof buf);
    if (!out.empty()) out += "; ";
    out += buf;
  }
  return out.empty() ? "no detail from OpenSSL" : out;
}

// Empties the error queue when it goes out of scope (OpenSSL's decoders may leave entries
// behind even on success).
struct ClearErrorsOnExit {
  ~ClearErrorsOnExit() { ERR_clear_error(); }
};

// absl::string_view is not std::string_view in this build of abseil.
absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

const unsigned char* Bytes(std::string_view s) {
  static const unsigned char kEmpty[1] = {0};
  return s.empty() ? kEmpty : reinterpret_cast<const unsigned char*>(s.data());
}

// A read-only memory BIO over `text` (which must outlive it), or nullptr.
BioPtr ReadBio(std::string_view text) {
  if (text.size() > static_cast<size_t>(INT_MAX)) return nullptr;
  // Bytes() because BIO_new_mem_buf refuses a null pointer, which an empty view may have.
  return BioPtr(BIO_new_mem_buf(Bytes(text), static_cast<int>(text.size())));
}

std::string BioText(BIO* bio) {
  char* data = nullptr;
  const long len = BIO_get_mem_data(bio, &data);
  return len > 0 ? std::string(data, static_cast<size_t>(len)) : std::string();
}

// Never prompts for a passphrase on the terminal (OpenSSL's default for an encrypted key).
int NoPassphrase(char*, int, int, void*) { return -1; }

absl::Status CheckEd25519(EVP_PKEY* pkey, std::string_view what) {
  if (EVP_PKEY_get_id(pkey) == EVP_PKEY_ED25519) return absl::OkStatus();
  const char* name = EVP_PKEY_get0_type_name(pkey);
  return absl::InvalidArgumentError(absl::StrCat(Sv(what), " is a ", name ? name : "non-Ed25519",
                                                 " key; only Ed25519 keys are supported"));
}

// The raw 32 bytes of `pkey`'s Ed25519 public key, what names it in the memo of verified
// signatures; empty on failure (then nothing is remembered or found).
std::string RawPublicKey(EVP_PKEY* pkey) {
  std::string raw(32, '\0');
  size_t len = raw.size();
  if (EVP_PKEY_get_raw_public_key(pkey, reinterpret_cast<unsigned char*>(raw.data()), &len) != 1 ||
      len != raw.size()) {
    return "";
  }
  return raw;
}

// The DER SubjectPublicKeyInfo of `pkey`'s public key; empty on failure.
std::string PublicDer(EVP_PKEY* pkey) {
  const int len = i2d_PUBKEY(pkey, nullptr);
  if (len <= 0) return "";
  std::string der(static_cast<size_t>(len), '\0');
  unsigned char* p = reinterpret_cast<unsigned char*>(der.data());
  if (i2d_PUBKEY(pkey, &p) != len) return "";
  return der;
}

std::string KeyIdOfDer(std::string_view der) { return absl::StrCat("sha256:", Sha256Hex(der)); }

absl::StatusOr<PkeyPtr> ParsePemUncached(std::string_view pem) {
  ClearErrorsOnExit clear;
  BioPtr bio = ReadBio(pem);
  if (!bio) return absl::InvalidArgumentError("public key PEM: too large");
  PkeyPtr pkey(PEM_read_bio_PUBKEY(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!pkey) {
    return absl::InvalidArgumentError(
        absl::StrCat("public key PEM: no SubjectPublicKeyInfo (\"BEGIN PUBLIC KEY\") found (",
                     DrainOpenSslErrors(), ")"));
  }
  CUB_RETURN_IF_ERROR(CheckEd25519(pkey.get(), "public key PEM"));
  return pkey;
}

// Keys parsed before, by their PEM text. OpenSSL 3 decodes a PEM through its decoder framework,
// looking each step up under the library's locks: a millisecond or so, paid twice per envelope
// checked, which a delivery of a thousand Releases notices. A parsed EVP_PKEY is reference
// counted and may be used by several threads at once for verifying. Holds only public keys, and
// only a few (the server's own and those of records being checked); cleared when full.
absl::StatusOr<PkeyPtr> ParsePublicPem(std::string_view pem) {
  static std::mutex* const mu = new std::mutex;
  static auto* const cache = new std::map<std::string, EVP_PKEY*, std::less<>>;
  {
    std::lock_guard<std::mutex> l(*mu);
    auto it = cache->find(pem);
    if (it != cache->end() && EVP_PKEY_up_ref(it->second) == 1) return PkeyPtr(it->second);
  }
  CUB_ASSIGN_OR_RETURN(PkeyPtr pkey, ParsePemUncached(pem));
  std::lock_guard<std::mutex> l(*mu);
  if (cache->size() >= 16) {
    for (auto& [k, v] : *cache) EVP_PKEY_free(v);
    cache->clear();
  }
  if (!cache->count(pem) && EVP_PKEY_up_ref(pkey.get()) == 1) {
    cache->emplace(std::string(pem), pkey.get());
  }
  return pkey;
}

std::string Errno(int err) { return std::strerror(err); }

// Writes all of `text` to `fd`; returns 0 or an errno value.
int WriteAll(int fd, std::string_view text) {
  size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    written += static_cast<size_t>(n);
  }
  return 0;
}

std::string DirOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

// Flushes the directory entry of a newly linked file to disk.
absl::Status SyncDir(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    return absl::InternalError(absl::StrCat("signing key: cannot open ", dir, ": ", Errno(errno)));
  }
  const int err = ::fsync(fd) == 0 ? 0 : errno;
  ::close(fd);
  if (err != 0) {
    return absl::InternalError(absl::StrCat("signing key: cannot fsync ", dir, ": ", Errno(err)));
  }
  return absl::OkStatus();
}

// Reads the key from the already opened `fd` (closed here), refusing files that group or
// others may access.
absl::StatusOr<SigningKey> LoadFromFd(const std::string& path, int fd) {
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return absl::InternalError(absl::StrCat("signing key: cannot stat ", path, ": ", Errno(err)));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat("signing key ", path, " is not a regular file"));
  }
  // Group read is allowed: a Kubernetes Secret volume under fsGroup is 0440 or 0640 (and a
  // symlink into ..data/, followed by open()). Anything more may leak or replace the key.
  if ((st.st_mode & kRefusedKeyModeBits) != 0) {
    ::close(fd);
    return absl::FailedPreconditionError(absl::StrFormat(
        "signing key %s has mode %04o, which lets others read it or group or others change "
        "it; refusing to use it. Run `chmod 600 %s` (or 640 for a group such as a Kubernetes "
        "fsGroup), and replace the key if others may have read it",
        path, st.st_mode & 07777, path));
  }
  if (static_cast<size_t>(st.st_size) > kMaxKeyFileSize) {
    ::close(fd);
    return absl::InvalidArgumentError(absl::StrCat("signing key ", path, " is ", st.st_size,
                                                   " bytes long, too large to be a key"));
  }
  char buf[4096];
  std::string text;
  text.reserve(kMaxKeyFileSize + sizeof buf);  // never reallocated, so no stray copies to wipe
  int err = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxKeyFileSize) {
      err = EFBIG;
      break;
    }
  }
  OPENSSL_cleanse(buf, sizeof buf);
  ::close(fd);
  if (err != 0) {
    OPENSSL_cleanse(text.data(), text.size());
    return absl::InternalError(absl::StrCat("signing key: cannot read ", path, ": ", Errno(err)));
  }
  absl::StatusOr<SigningKey> key = SigningKey::FromPrivatePem(text);
  OPENSSL_cleanse(text.data(), text.size());
  if (!key.ok()) {
    return absl::Status(key.status().code(),
                        absl::StrCat("signing key ", path, ": ", key.status().message()));
  }
  return key;
}

}  // namespace

struct SigningKey::Impl {
  EVP_PKEY* pkey = nullptr;  // owned; an Ed25519 private key, never modified
  std::string public_pem;
  std::string key_id;
  std::string raw_public;  // for the memo of verified signatures

  Impl() = default;
  Impl(const Impl&) = delete;
  Impl& operator=(const Impl&) = delete;
  ~Impl() { EVP_PKEY_free(pkey); }

  // Takes `pkey` (an Ed25519 private key) and derives the public forms once.
  static absl::StatusOr<std::shared_ptr<const Impl>> Make(PkeyPtr pkey) {
    auto impl = std::make_shared<Impl>();
    impl->pkey = pkey.release();
    const std::string der = PublicDer(impl->pkey);
    BioPtr out(BIO_new(BIO_s_mem()));
    if (der.empty() || !out || PEM_write_bio_PUBKEY(out.get(), impl->pkey) != 1) {
      return absl::InternalError(
          absl::StrCat("cannot encode an Ed25519 public key: ", DrainOpenSslErrors()));
    }
    impl->public_pem = BioText(out.get());
    impl->key_id = KeyIdOfDer(der);
    impl->raw_public = RawPublicKey(impl->pkey);
    return impl;
  }
};

absl::StatusOr<SigningKey> SigningKey::Generate() {
  ClearErrorsOnExit clear;
  PkeyCtxPtr ctx(EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* raw = nullptr;
  if (!ctx || EVP_PKEY_keygen_init(ctx.get()) != 1 || EVP_PKEY_keygen(ctx.get(), &raw) != 1) {
    return absl::InternalError(
        absl::StrCat("cannot generate an Ed25519 key: ", DrainOpenSslErrors()));
  }
  CUB_ASSIGN_OR_RETURN(std::shared_ptr<const Impl> impl, Impl::Make(PkeyPtr(raw)));
  return SigningKey(std::move(impl));
}

absl::StatusOr<SigningKey> SigningKey::FromPrivatePem(std::string_view pem) {
  ClearErrorsOnExit clear;
  BioPtr bio = ReadBio(pem);
  if (!bio) return absl::InvalidArgumentError("private key PEM: too large");
  PkeyPtr pkey(PEM_read_bio_PrivateKey(bio.get(), nullptr, NoPassphrase, nullptr));
  if (!pkey) {
    if (pem.find("-----BEGIN ENCRYPTED PRIVATE KEY-----") != std::string_view::npos) {
      return absl::InvalidArgumentError(
          "private key PEM: the key is encrypted; only unencrypted PKCS#8 keys are supported");
    }
    return absl::InvalidArgumentError(
        absl::StrCat("private key PEM: no private key (\"BEGIN PRIVATE KEY\") found (",
                     DrainOpenSslErrors(), ")"));
  }
  CUB_RETURN_IF_ERROR(CheckEd25519(pkey.get(), "private key PEM"));
  CUB_ASSIGN_OR_RETURN(std::shared_ptr<const Impl> impl, Impl::Make(std::move(pkey)));
  return SigningKey(std::move(impl));
}

absl::StatusOr<SigningKey> SigningKey::LoadOrCreate(const std::string& path) {
  if (path.empty()) return absl::InvalidArgumentError("signing key: empty file path");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd >= 0) return LoadFromFd(path, fd);
  if (errno != ENOENT) {
    return absl::InternalError(absl::StrCat("signing key: cannot open ", path, ": ", Errno(errno)));
  }

  absl::StatusOr<SigningKey> key = Generate();
  if (!key.ok()) return key.status();
  std::string pem = key->PrivatePem();
  std::vector<char> tmpl(path.begin(), path.end());
  for (char c : std::string_view(".tmp.XXXXXX")) tmpl.push_back(c);
  tmpl.push_back('\0');
  fd = ::mkostemp(tmpl.data(), O_CLOEXEC);  // mode 0600
  if (fd < 0) {
    const int err = errno;
    OPENSSL_cleanse(pem.data(), pem.size());
    return absl::InternalError(absl::StrCat("signing key: cannot create a temporary file next to ",
                                            path, ": ", Errno(err)));
  }
  const std::string tmp = tmpl.data();
  int err = ::fchmod(fd, 0600) == 0 ? 0 : errno;
  if (err == 0) err = WriteAll(fd, pem);
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  OPENSSL_cleanse(pem.data(), pem.size());
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    return absl::InternalError(absl::StrCat("signing key: cannot write ", tmp, ": ", Errno(err)));
  }
  // link() fails with EEXIST where rename() would silently replace a key that another process
  // created (and may already have signed with) since the open() above.
  err = ::link(tmp.c_str(), path.c_str()) == 0 ? 0 : errno;
  ::unlink(tmp.c_str());
  if (err == EEXIST) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      return absl::InternalError(
          absl::StrCat("signing key: cannot open ", path, ": ", Errno(errno)));
    }
    return LoadFromFd(path, fd);
  }
  if (err != 0) {
    return absl::InternalError(
        absl::StrCat("signing key: cannot link ", tmp, " to ", path, ": ", Errno(err)));
  }
  CUB_RETURN_IF_ERROR(SyncDir(DirOf(path)));
  return key;
}

std::string SigningKey::PrivatePem() const {
  ClearErrorsOnExit clear;
  BioPtr out(BIO_new(BIO_s_mem()));
  // Only allocation can fail here; there is no key text to return then.
  if (!out || PEM_write_bio_PrivateKey(out.get(), impl_->pkey, nullptr, nullptr, 0, nullptr,
                                       nullptr) != 1) {
    std::abort();
  }
  std::string pem = BioText(out.get());
  // Wipe OpenSSL's copy; the caller owns the returned one.
  char* data = nullptr;
  const long len = BIO_get_mem_data(out.get(), &data);
  if (len > 0) OPENSSL_cleanse(data, static_cast<size_t>(len));
  return pem;
}

std::string SigningKey::PublicKeyPem() const { return impl_->public_pem; }

std::string SigningKey::KeyId() const { return impl_->key_id; }

std::string SigningKey::Sign(std::string_view message) const {
  ClearErrorsOnExit clear;
  MdCtxPtr ctx(EVP_MD_CTX_new());
  std::string sig(kEd25519SignatureSize, '\0');
  size_t len = sig.size();
  // Ed25519 takes no digest (nullptr): it signs the message itself. A fresh context per call
  // keeps concurrent calls independent; the shared EVP_PKEY is only read.
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, impl_->pkey) != 1 ||
      EVP_DigestSign(ctx.get(), reinterpret_cast<unsigned char*>(sig.data()), &len, Bytes(message),
                     message.size()) != 1 ||
      len != kEd25519SignatureSize) {
    std::abort();
  }
  // What this process signs is often checked by it again moments later (a publish's delivery).
  if (!impl_->raw_public.empty()) RememberVerified(impl_->raw_public, message, sig);
  return sig;
}

absl::Status VerifyEd25519(std::string_view public_key_pem, std::string_view message,
                           std::string_view signature) {
  CUB_ASSIGN_OR_RETURN(PkeyPtr pkey, ParsePublicPem(public_key_pem));
  if (signature.size() != kEd25519SignatureSize) {
    return absl::InvalidArgumentError(absl::StrCat("Ed25519 signature is ", signature.size(),
                                                   " bytes long, expected ",
                                                   kEd25519SignatureSize));
  }
  const std::string raw = RawPublicKey(pkey.get());
  if (!raw.empty() && KnownVerified(raw, message, signature)) return absl::OkStatus();
  ClearErrorsOnExit clear;
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, pkey.get()) != 1) {
    return absl::InternalError(
        absl::StrCat("cannot start Ed25519 verification: ", DrainOpenSslErrors()));
  }
  if (EVP_DigestVerify(ctx.get(), Bytes(signature), signature.size(), Bytes(message),
                       message.size()) != 1) {
    return absl::UnauthenticatedError(absl::StrCat(
        "Ed25519 signature does not verify with public key ", KeyIdOfDer(PublicDer(pkey.get()))));
  }
  if (!raw.empty()) RememberVerified(raw, message, signature);
  return absl::OkStatus();
}

absl::StatusOr<std::string> PublicKeyId(std::string_view public_key_pem) {
  CUB_ASSIGN_OR_RETURN(PkeyPtr pkey, ParsePublicPem(public_key_pem));
  const std::string der = PublicDer(pkey.get());
  if (der.empty()) {
    return absl::InternalError(
        absl::StrCat("cannot encode an Ed25519 public key: ", DrainOpenSslErrors()));
  }
  return KeyIdOfDer(der);
}

}  // namespace cub::sign
