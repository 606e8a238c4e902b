// Tests for lib/sign: base64, Ed25519 keys (generation, PEM, key ids, the key file that
// LoadOrCreate keeps), signatures against the RFC 8032 test vector, DSSE's PAE and envelopes,
// in-toto Statements, and interoperability with the openssl command line (skipped with a
// warning when `openssl` is not on PATH).

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "lib/config/yaml.h"
#include "lib/sign/base64.h"
#include "lib/sign/dsse.h"
#include "lib/sign/signing_key.h"
#include "lib/sign/statement.h"
#include "lib/sign/verified_signatures.h"
#include "lib/util/sha256.h"

namespace cub::sign {
namespace {

namespace fs = std::filesystem;

// A fresh directory under /tmp, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/cub_sign_test_XXXXXX";
    const char* dir = ::mkdtemp(tmpl);
    REQUIRE(dir != nullptr);
    path_ = dir;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  REQUIRE(out.good());
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

mode_t Mode(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char c : bytes) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// `der` as PEM with the given label, 64 characters a line.
std::string Pem(std::string_view label, std::string_view der) {
  const std::string b64 = Base64Encode(der);
  std::string out = "-----BEGIN " + std::string(label) + "-----\n";
  for (size_t i = 0; i < b64.size(); i += 64) out += b64.substr(i, 64) + "\n";
  return out + "-----END " + std::string(label) + "-----\n";
}

SigningKey NewKey() {
  absl::StatusOr<SigningKey> key = SigningKey::Generate();
  REQUIRE(key.ok());
  return *key;
}

std::string FlipBit(std::string s, size_t byte, int bit) {
  s[byte] = static_cast<char>(s[byte] ^ (1 << bit));
  return s;
}

bool HaveOpenssl() { return std::system("command -v openssl >/dev/null 2>&1") == 0; }

// Runs `cmd` through /bin/sh with its output discarded; true if it exited 0.
bool Run(const std::string& cmd) { return std::system((cmd + " >/dev/null 2>&1").c_str()) == 0; }

// RFC 8032 section 7.1, TEST 1 (empty message) and TEST 2 (one byte 0x72).
constexpr std::string_view kRfcSeed =
    "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
constexpr std::string_view kRfcPublic =
    "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
constexpr std::string_view kRfcSigEmpty =
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b"
    "46bd25bf5f0595bbe24655141438e7a100b";
constexpr std::string_view kRfc2Seed =
    "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb";
constexpr std::string_view kRfc2Public =
    "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c";
constexpr std::string_view kRfc2Sig =
    "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d"
    "8c387b2eaeb4302aeeb00d291612bb0c00";
// DER prefixes of an Ed25519 PKCS#8 private key (RFC 8410) and SubjectPublicKeyInfo.
constexpr std::string_view kPkcs8Prefix = "302e020100300506032b657004220420";
constexpr std::string_view kSpkiPrefix = "302a300506032b6570032100";

// ----------------------------------------------------------------------------------------
// base64

TEST_CASE("Base64Encode matches the RFC 4648 vectors and Base64Decode inverts it", "[sign]") {
  const std::vector<std::pair<std::string, std::string>> vectors = {{"", ""},
                                                                    {"f", "Zg=="},
                                                                    {"fo", "Zm8="},
                                                                    {"foo", "Zm9v"},
                                                                    {"foob", "Zm9vYg=="},
                                                                    {"fooba", "Zm9vYmE="},
                                                                    {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, encoded] : vectors) {
    CAPTURE(plain);
    CHECK(Base64Encode(plain) == encoded);
    absl::StatusOr<std::string> back = Base64Decode(encoded);
    REQUIRE(back.ok());
    CHECK(*back == plain);
  }
  CHECK(Base64Encode(std::string("\xfb\xff\xbf", 3)) == "+/+/");

  // Every byte value at every position of the last group.
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (size_t len = 0; len <= all.size(); len += 1 + len / 16) {
    const std::string bytes = all.substr(all.size() - len);
    absl::StatusOr<std::string> back = Base64Decode(Base64Encode(bytes));
    REQUIRE(back.ok());
    CHECK(*back == bytes);
  }
}

TEST_CASE("Base64Decode rejects everything an encoder would not write", "[sign]") {
  for (const char* bad : {"Zg",         // padding missing
                          "Zg=",        // padding incomplete
                          "Zg===",      // too much padding
                          "Z===",       // a lone character
                          "Z",          // a lone character
                          "Zm9v=",      // padding after a full group
                          "Zg==Zg==",   // padding inside
                          "Zm9v\n",     // whitespace
                          " Zm9v",      // whitespace
                          "Zm9v Zg==",  // whitespace
                          "Zm-v",       // URL-safe alphabet
                          "Zm_v",       // URL-safe alphabet
                          "Zh==",       // non-zero unused bits (canonical: Zg==)
                          "Zm9=",       // non-zero unused bits (canonical: Zm8=)
                          "Zm9*",       // not in any alphabet
                          "===="}) {
    CAPTURE(bad);
    absl::StatusOr<std::string> r = Base64Decode(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(r.status().message().find("base64: ") == 0);
  }
  absl::StatusOr<std::string> r = Base64Decode("Zm9v*m9v");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "base64: invalid character '*' at offset 4");
  r = Base64Decode(std::string("Zm9v\0m9v", 8));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message() == "base64: invalid character '\\x00' at offset 4");
}

TEST_CASE("Base64DecodeStdOrUrl accepts what DSSE allows and nothing looser", "[sign]") {
  const std::string bytes("\xfb\xff\xbf\x01", 4);
  for (const char* ok : {"+/+/AQ==", "+/+/AQ", "-_-_AQ==", "-_-_AQ"}) {
    CAPTURE(ok);
    absl::StatusOr<std::string> r = Base64DecodeStdOrUrl(ok);
    REQUIRE(r.ok());
    CHECK(*r == bytes);
  }
  for (const char* bad : {"+_+_AQ==", "-/AQ", "+/+/AQ=", "+/+/A", "+/+/AR", "Zm9v\n", "Zg==="}) {
    CAPTURE(bad);
    CHECK_FALSE(Base64DecodeStdOrUrl(bad).ok());
  }
  absl::StatusOr<std::string> mixed = Base64DecodeStdOrUrl("ab+_");
  REQUIRE_FALSE(mixed.ok());
  CHECK(mixed.status().message().find("at offset 3") != std::string::npos);
}

// ----------------------------------------------------------------------------------------
// keys and signatures

TEST_CASE("Generated keys sign, and signatures verify only for their message", "[sign]") {
  const SigningKey key = NewKey();
  const std::string msg = "release 42 of unit web";
  const std::string sig = key.Sign(msg);
  REQUIRE(sig.size() == kEd25519SignatureSize);
  CHECK(key.Sign(msg) == sig);  // Ed25519 is deterministic
  const std::string pub = key.PublicKeyPem();
  CHECK(VerifyEd25519(pub, msg, sig).ok());

  SECTION("a flipped bit in the message fails") {
    for (size_t byte : {size_t{0}, msg.size() / 2, msg.size() - 1}) {
      for (int bit : {0, 7}) {
        absl::Status s = VerifyEd25519(pub, FlipBit(msg, byte, bit), sig);
        CHECK(s.code() == absl::StatusCode::kUnauthenticated);
        CHECK(s.message().find("does not verify") != std::string::npos);
      }
    }
    CHECK_FALSE(VerifyEd25519(pub, msg + " ", sig).ok());
    CHECK_FALSE(VerifyEd25519(pub, "", sig).ok());
  }
  SECTION("a flipped bit in the signature fails") {
    for (size_t byte : {size_t{0}, size_t{31}, size_t{32}, size_t{63}}) {
      for (int bit : {0, 3, 7}) {
        CAPTURE(byte, bit);
        CHECK(VerifyEd25519(pub, msg, FlipBit(sig, byte, bit)).code() ==
              absl::StatusCode::kUnauthenticated);
      }
    }
  }
  SECTION("a signature of the wrong length is InvalidArgument") {
    absl::Status s = VerifyEd25519(pub, msg, sig.substr(0, 63));
    CHECK(s.code() == absl::StatusCode::kInvalidArgument);
    CHECK(s.message() == "Ed25519 signature is 63 bytes long, expected 64");
    CHECK(VerifyEd25519(pub, msg, "").code() == absl::StatusCode::kInvalidArgument);
    CHECK(VerifyEd25519(pub, msg, sig + "x").code() == absl::StatusCode::kInvalidArgument);
  }
  SECTION("another key's public key fails") {
    const SigningKey other = NewKey();
    CHECK(other.KeyId() != key.KeyId());
    absl::Status s = VerifyEd25519(other.PublicKeyPem(), msg, sig);
    CHECK(s.code() == absl::StatusCode::kUnauthenticated);
    CHECK(s.message().find(other.KeyId()) != std::string::npos);
  }
  SECTION("a public key PEM that is not one is InvalidArgument") {
    for (const std::string& bad :
         {std::string(), std::string("not pem"), key.PrivatePem(), pub.substr(0, pub.size() / 2)}) {
      absl::Status s = VerifyEd25519(bad, msg, sig);
      CHECK(s.code() == absl::StatusCode::kInvalidArgument);
      CHECK(s.message().find("public key PEM") == 0);
    }
  }
  SECTION("empty and binary messages") {
    const std::string binary("\0\xff\n\0", 4);
    CHECK(VerifyEd25519(pub, "", key.Sign("")).ok());
    CHECK(VerifyEd25519(pub, binary, key.Sign(binary)).ok());
    CHECK_FALSE(VerifyEd25519(pub, binary.substr(0, 3), key.Sign(binary)).ok());
  }
}

TEST_CASE("The memo of verified signatures knows only the exact triples remembered", "[sign]") {
  const std::string key(32, 'k'), msg = "release 7 of space prod", sig(64, 's');
  CHECK_FALSE(KnownVerified(key, msg, sig));
  RememberVerified(key, msg, sig);
  CHECK(KnownVerified(key, msg, sig));
  CHECK_FALSE(KnownVerified(std::string(32, 'K'), msg, sig));
  CHECK_FALSE(KnownVerified(key, msg + " ", sig));
  CHECK_FALSE(KnownVerified(key, FlipBit(msg, 3, 0), sig));
  CHECK_FALSE(KnownVerified(key, msg, FlipBit(sig, 63, 7)));
  // Lengths are part of what is hashed: moving bytes from one input to the next is another
  // triple.
  RememberVerified("ab", "c", "d");
  CHECK(KnownVerified("ab", "c", "d"));
  CHECK_FALSE(KnownVerified("a", "c", "bd"));
  CHECK_FALSE(KnownVerified("ab", "", "cd"));
}

TEST_CASE("The memo starts afresh when full, and verification still answers", "[sign]") {
  const SigningKey key = NewKey();
  const std::string msg = "first of many";
  const std::string sig = key.Sign(msg);  // remembered
  const std::string pub = key.PublicKeyPem();
  for (size_t i = 0; i < kMaxRemembered; ++i) {
    RememberVerified(std::string(32, 'x'), std::to_string(i), std::string(64, 'y'));
  }
  // Forgotten by now, so verified in full: still OK, and still refused when tampered with.
  CHECK(VerifyEd25519(pub, msg, sig).ok());
  CHECK(VerifyEd25519(pub, msg + "!", sig).code() == absl::StatusCode::kUnauthenticated);
  CHECK(VerifyEd25519(pub, msg, FlipBit(sig, 0, 0)).code() == absl::StatusCode::kUnauthenticated);
}

TEST_CASE("What this process signed is refused when anything of it differs", "[sign]") {
  // Sign remembers its signatures; the memo must not make a near miss verify.
  const SigningKey key = NewKey(), other = NewKey();
  const std::string msg(13000, 'p');  // the size of a Release's provenance statement
  const std::string sig = key.Sign(msg);
  CHECK(VerifyEd25519(key.PublicKeyPem(), msg, sig).ok());
  CHECK(VerifyEd25519(key.PublicKeyPem(), FlipBit(msg, 12999, 1), sig).code() ==
        absl::StatusCode::kUnauthenticated);
  CHECK(VerifyEd25519(key.PublicKeyPem(), msg.substr(1), sig).code() ==
        absl::StatusCode::kUnauthenticated);
  CHECK(VerifyEd25519(other.PublicKeyPem(), msg, sig).code() == absl::StatusCode::kUnauthenticated);
  CHECK(VerifyEd25519(key.PublicKeyPem(), msg, other.Sign(msg)).code() ==
        absl::StatusCode::kUnauthenticated);
}

TEST_CASE("Keys round-trip through PEM with a stable key id", "[sign]") {
  const SigningKey key = NewKey();
  const std::string priv = key.PrivatePem();
  CHECK(priv.rfind("-----BEGIN PRIVATE KEY-----\n", 0) == 0);
  CHECK(key.PublicKeyPem().rfind("-----BEGIN PUBLIC KEY-----\n", 0) == 0);
  CHECK(key.PublicKeyPem().back() == '\n');

  const std::string id = key.KeyId();
  REQUIRE(id.size() == 7 + 64);
  CHECK(id.rfind("sha256:", 0) == 0);
  CHECK(id.find_first_not_of("0123456789abcdef", 7) == std::string::npos);

  absl::StatusOr<SigningKey> again = SigningKey::FromPrivatePem(priv);
  REQUIRE(again.ok());
  CHECK(again->KeyId() == id);
  CHECK(again->PublicKeyPem() == key.PublicKeyPem());
  CHECK(again->PrivatePem() == priv);
  CHECK(again->Sign("m") == key.Sign("m"));

  const SigningKey copy = key;  // copies share the key
  CHECK(copy.KeyId() == id);
  CHECK(copy.Sign("m") == key.Sign("m"));

  absl::StatusOr<std::string> pub_id = PublicKeyId(key.PublicKeyPem());
  REQUIRE(pub_id.ok());
  CHECK(*pub_id == id);
  CHECK_FALSE(PublicKeyId("nope").ok());
}

TEST_CASE("Signatures and key ids match the RFC 8032 test vectors", "[sign]") {
  struct Vector {
    std::string_view seed, pub, msg_hex, sig;
  };
  for (const Vector& v : {Vector{kRfcSeed, kRfcPublic, "", kRfcSigEmpty},
                          Vector{kRfc2Seed, kRfc2Public, "72", kRfc2Sig}}) {
    const std::string pem =
        Pem("PRIVATE KEY", Unhex(std::string(kPkcs8Prefix) + std::string(v.seed)));
    absl::StatusOr<SigningKey> key = SigningKey::FromPrivatePem(pem);
    REQUIRE(key.ok());
    const std::string spki = Unhex(std::string(kSpkiPrefix) + std::string(v.pub));
    CHECK(key->PublicKeyPem() == Pem("PUBLIC KEY", spki));
    CHECK(key->KeyId() == "sha256:" + Sha256Hex(spki));
    CHECK(key->PrivatePem() == pem);
    const std::string msg = Unhex(v.msg_hex);
    CHECK(Hex(key->Sign(msg)) == v.sig);
    CHECK(VerifyEd25519(Pem("PUBLIC KEY", spki), msg, Unhex(v.sig)).ok());
  }
}

TEST_CASE("FromPrivatePem rejects what is not an unencrypted Ed25519 key", "[sign]") {
  const SigningKey key = NewKey();
  auto rejects = [](const std::string& pem, const std::string& fragment) {
    absl::StatusOr<SigningKey> r = SigningKey::FromPrivatePem(pem);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CAPTURE(r.status().message());
    CHECK(r.status().message().find(fragment) != std::string::npos);
  };
  rejects("", "no private key");
  CHECK(SigningKey::FromPrivatePem(std::string_view()).status().code() ==
        absl::StatusCode::kInvalidArgument);
  CHECK(VerifyEd25519(std::string_view(), "m", std::string(64, 'x')).code() ==
        absl::StatusCode::kInvalidArgument);
  rejects("hello", "no private key");
  rejects(key.PublicKeyPem(), "no private key");
  const std::string priv = key.PrivatePem();
  rejects(priv.substr(0, priv.size() - 20), "no private key");

  // Another algorithm with the same PKCS#8 shape, and an encrypted Ed25519 key.
  EVP_PKEY* x25519 = EVP_PKEY_Q_keygen(nullptr, nullptr, "X25519");
  REQUIRE(x25519 != nullptr);
  BIO* in = BIO_new_mem_buf(priv.data(), static_cast<int>(priv.size()));
  EVP_PKEY* ed25519 = PEM_read_bio_PrivateKey(in, nullptr, nullptr, nullptr);
  BIO_free(in);
  REQUIRE(ed25519 != nullptr);
  const char kPass[] = "passphrase";
  BIO* x_priv = BIO_new(BIO_s_mem());
  BIO* x_pub = BIO_new(BIO_s_mem());
  BIO* enc = BIO_new(BIO_s_mem());
  REQUIRE(PEM_write_bio_PrivateKey(x_priv, x25519, nullptr, nullptr, 0, nullptr, nullptr) == 1);
  REQUIRE(PEM_write_bio_PUBKEY(x_pub, x25519) == 1);
  REQUIRE(PEM_write_bio_PKCS8PrivateKey(enc, ed25519, EVP_aes_256_cbc(), kPass,
                                        static_cast<int>(sizeof kPass - 1), nullptr, nullptr) == 1);
  auto text = [](BIO* bio) {
    char* data = nullptr;
    const long len = BIO_get_mem_data(bio, &data);
    std::string out(data, static_cast<size_t>(len));
    BIO_free(bio);
    return out;
  };
  const std::string x_pem = text(x_priv);
  const std::string x_pub_pem = text(x_pub);
  const std::string enc_pem = text(enc);
  EVP_PKEY_free(ed25519);
  EVP_PKEY_free(x25519);

  rejects(x_pem, "is a X25519 key; only Ed25519 keys are supported");
  // An encrypted key is refused without prompting for a passphrase.
  REQUIRE(enc_pem.find("ENCRYPTED PRIVATE KEY") != std::string::npos);
  rejects(enc_pem, "encrypted");
  absl::Status s = VerifyEd25519(x_pub_pem, "m", std::string(64, 'x'));
  CHECK(s.code() == absl::StatusCode::kInvalidArgument);
  CHECK(s.message() == "public key PEM is a X25519 key; only Ed25519 keys are supported");
  CHECK_FALSE(PublicKeyId(x_pub_pem).ok());
}

TEST_CASE("One key signs from many threads at once", "[sign]") {
  const SigningKey key = NewKey();
  const std::string pub = key.PublicKeyPem();
  std::vector<std::thread> threads;
  std::vector<int> failures(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const SigningKey copy = key;
      for (int i = 0; i < 100; ++i) {
        const std::string msg = "thread " + std::to_string(t) + " message " + std::to_string(i);
        const SigningKey& k = (i % 2 == 0) ? key : copy;
        if (!VerifyEd25519(pub, msg, k.Sign(msg)).ok()) ++failures[t];
      }
    });
  }
  for (std::thread& th : threads) th.join();
  for (int f : failures) CHECK(f == 0);
}

// ----------------------------------------------------------------------------------------
// the key file

TEST_CASE("LoadOrCreate makes a 0600 key file and loads the same key from it", "[sign]") {
  TempDir dir;
  const std::string path = dir / "signing-key.pem";
  absl::StatusOr<SigningKey> made = SigningKey::LoadOrCreate(path);
  REQUIRE(made.ok());
  CHECK(Mode(path) == 0600);
  CHECK(ReadFile(path) == made->PrivatePem());
  // Nothing else is left in the directory (no temporary file).
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);

  absl::StatusOr<SigningKey> loaded = SigningKey::LoadOrCreate(path);
  REQUIRE(loaded.ok());
  CHECK(loaded->KeyId() == made->KeyId());
  CHECK(VerifyEd25519(made->PublicKeyPem(), "x", loaded->Sign("x")).ok());

  SECTION("a key file readable by others is refused") {
    REQUIRE(::chmod(path.c_str(), 0644) == 0);
    absl::StatusOr<SigningKey> r = SigningKey::LoadOrCreate(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
    CAPTURE(r.status().message());
    CHECK(r.status().message().find(path) != std::string::npos);
    CHECK(r.status().message().find("mode 0644") != std::string::npos);
    CHECK(r.status().message().find("chmod 600 " + path) != std::string::npos);
    CHECK(ReadFile(path) == made->PrivatePem());  // left alone
    // Others' access of any kind, and group write or execute, are refused.
    for (mode_t mode : {0604, 0620, 0602, 0610, 0601, 0660, 0644, 0444, 0670, 0650}) {
      CAPTURE(mode);
      REQUIRE(::chmod(path.c_str(), mode) == 0);
      absl::StatusOr<SigningKey> bad = SigningKey::LoadOrCreate(path);
      CHECK(bad.status().code() == absl::StatusCode::kFailedPrecondition);
      char octal[8];
      std::snprintf(octal, sizeof octal, "%04o", mode);
      CHECK(bad.status().message().find(std::string("mode ") + octal) != std::string::npos);
    }
    // Owner-only, and group-readable (a Kubernetes Secret volume under fsGroup), are used.
    for (mode_t mode : {0400, 0600, 0440, 0640}) {
      CAPTURE(mode);
      REQUIRE(::chmod(path.c_str(), mode) == 0);
      absl::StatusOr<SigningKey> ok = SigningKey::LoadOrCreate(path);
      REQUIRE(ok.ok());
      CHECK(ok->KeyId() == made->KeyId());
    }
  }
  SECTION("a symlink to the key file is followed") {
    const std::string link = dir / "link.pem";
    REQUIRE(::symlink(path.c_str(), link.c_str()) == 0);
    absl::StatusOr<SigningKey> r = SigningKey::LoadOrCreate(link);
    REQUIRE(r.ok());
    CHECK(r->KeyId() == made->KeyId());
  }
  SECTION("a Kubernetes Secret mount: symlinks into ..data/, group-readable") {
    // The kubelet's layout: key.pem -> ..data/key.pem, ..data -> ..2026_12_04_01_00_00.1/.
    const fs::path secret = dir / "secret";
    const fs::path version = secret / "..2026_12_04_01_00_00.1";
    fs::create_directories(version);
    fs::copy_file(path, version / "key.pem");
    REQUIRE(::chmod((version / "key.pem").c_str(), 0440) == 0);
    fs::create_directory_symlink(version.filename(), secret / "..data");
    fs::create_symlink("..data/key.pem", secret / "key.pem");
    absl::StatusOr<SigningKey> r = SigningKey::LoadOrCreate(secret / "key.pem");
    REQUIRE(r.ok());
    CHECK(r->KeyId() == made->KeyId());
    // Still refused when the file the links lead to is world-readable.
    REQUIRE(::chmod((version / "key.pem").c_str(), 0444) == 0);
    absl::StatusOr<SigningKey> world = SigningKey::LoadOrCreate(secret / "key.pem");
    CHECK(world.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK(world.status().message().find("mode 0444") != std::string::npos);
  }
  SECTION("a file that is not a key is an error and is not replaced") {
    WriteFile(path, "garbage");
    absl::StatusOr<SigningKey> r = SigningKey::LoadOrCreate(path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CHECK(r.status().message().find("signing key " + path + ": ") == 0);
    CHECK(ReadFile(path) == "garbage");
  }
}

TEST_CASE("LoadOrCreate refuses unusable paths", "[sign]") {
  TempDir dir;
  CHECK(SigningKey::LoadOrCreate("").status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(SigningKey::LoadOrCreate(dir.path()).status().code() ==
        absl::StatusCode::kFailedPrecondition);  // a directory
  absl::StatusOr<SigningKey> r = SigningKey::LoadOrCreate(dir / "missing/key.pem");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find(dir / "missing/key.pem") != std::string::npos);
}

TEST_CASE("Concurrent first LoadOrCreate calls agree on one key", "[sign]") {
  TempDir dir;
  const std::string path = dir / "key.pem";
  std::vector<std::string> ids(8);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < ids.size(); ++t) {
    threads.emplace_back([&, t] {
      absl::StatusOr<SigningKey> k = SigningKey::LoadOrCreate(path);
      ids[t] = k.ok() ? k->KeyId() : std::string(k.status().message());
    });
  }
  for (std::thread& th : threads) th.join();
  absl::StatusOr<SigningKey> final_key = SigningKey::LoadOrCreate(path);
  REQUIRE(final_key.ok());
  for (const std::string& id : ids) CHECK(id == final_key->KeyId());
  CHECK(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()) == 1);
}

// ----------------------------------------------------------------------------------------
// DSSE

TEST_CASE("Pae follows DSSE v1", "[sign]") {
  CHECK(Pae("http://example.com/HelloWorld", "hello world") ==
        "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
  CHECK(Pae("", "") == "DSSEv1 0  0 ");
  // Lengths count bytes, not characters.
  CHECK(Pae("t\xc3\xa9", std::string("\0\xff", 2)) ==
        std::string("DSSEv1 3 t\xc3\xa9 2 \0\xff", 17));
  CHECK(Pae(kInTotoPayloadType, std::string(1000, 'a')) ==
        "DSSEv1 28 application/vnd.in-toto+json 1000 " + std::string(1000, 'a'));
}

TEST_CASE("Envelopes are signed over the PAE and verify", "[sign]") {
  const SigningKey key = NewKey();
  const std::string pub = key.PublicKeyPem();
  const Envelope env = SignEnvelope(key, kInTotoPayloadType, R"({"a":1})");
  CHECK(env.payload_type == kInTotoPayloadType);
  CHECK(env.payload == R"({"a":1})");
  REQUIRE(env.signatures.size() == 1);
  CHECK(env.signatures[0].keyid == key.KeyId());
  CHECK(VerifyEd25519(pub, Pae(kInTotoPayloadType, R"({"a":1})"), env.signatures[0].sig).ok());
  CHECK(VerifyEnvelope(env, pub).ok());

  SECTION("tampering with any part fails") {
    Envelope e = env;
    e.payload = R"({"a":2})";
    absl::Status s = VerifyEnvelope(e, pub);
    CHECK(s.code() == absl::StatusCode::kUnauthenticated);
    CAPTURE(s.message());
    CHECK(s.message().find("no signature verifies with key " + key.KeyId()) != std::string::npos);
    CHECK(s.message().find("signatures[0] (keyid " + key.KeyId() + ")") != std::string::npos);

    e = env;
    e.payload_type = "application/json";
    CHECK(VerifyEnvelope(e, pub).code() == absl::StatusCode::kUnauthenticated);
    e = env;
    e.signatures[0].sig = FlipBit(e.signatures[0].sig, 10, 2);
    CHECK(VerifyEnvelope(e, pub).code() == absl::StatusCode::kUnauthenticated);
    e = env;
    e.signatures[0].sig.pop_back();
    s = VerifyEnvelope(e, pub);
    CHECK(s.code() == absl::StatusCode::kUnauthenticated);
    CHECK(s.message().find("63 bytes long") != std::string::npos);
    e = env;
    e.signatures.clear();
    s = VerifyEnvelope(e, pub);
    CHECK(s.code() == absl::StatusCode::kUnauthenticated);
    CHECK(s.message().find("no signatures") != std::string::npos);
    // The same payload under the same type but a signature made without the PAE.
    e = env;
    e.signatures[0].sig = key.Sign(env.payload);
    CHECK_FALSE(VerifyEnvelope(e, pub).ok());
  }
  SECTION("another key or no key") {
    CHECK(VerifyEnvelope(env, NewKey().PublicKeyPem()).code() ==
          absl::StatusCode::kUnauthenticated);
    CHECK(VerifyEnvelope(env, "junk").code() == absl::StatusCode::kInvalidArgument);
  }
  SECTION("one good signature among others is enough; keyids are only hints") {
    Envelope e = env;
    const SigningKey other = NewKey();
    e.signatures.insert(e.signatures.begin(),
                        {key.KeyId(), other.Sign(Pae(e.payload_type, e.payload))});
    e.signatures.back().keyid = "";
    CHECK(VerifyEnvelope(e, pub).ok());
    CHECK(VerifyEnvelope(e, other.PublicKeyPem()).ok());
  }
}

TEST_CASE("Envelope JSON round-trips and has a fixed layout", "[sign]") {
  Envelope env;
  env.payload_type = "application/vnd.cub+json; q=\"1\"";
  env.payload = std::string("{\"x\":\"\0\xff\"}", 10);
  env.signatures = {{"sha256:ab", std::string("\x01\x02\x03", 3)}, {"", "s"}};
  const std::string json = env.ToJson();
  CHECK(json ==
        R"({"payloadType":"application/vnd.cub+json; q=\"1\"","payload":"eyJ4IjoiAP8ifQ==",)"
        R"("signatures":[{"keyid":"sha256:ab","sig":"AQID"},{"keyid":"","sig":"cw=="}]})");
  absl::StatusOr<Envelope> back = Envelope::FromJson(json);
  REQUIRE(back.ok());
  CHECK(*back == env);

  const SigningKey key = NewKey();
  const Envelope signed_env = SignEnvelope(key, kInTotoPayloadType, "payload\n");
  absl::StatusOr<Envelope> signed_back = Envelope::FromJson(signed_env.ToJson());
  REQUIRE(signed_back.ok());
  CHECK(*signed_back == signed_env);
  CHECK(VerifyEnvelope(*signed_back, key.PublicKeyPem()).ok());
  CHECK(signed_env.ToJson() == signed_back->ToJson());
}

TEST_CASE("Envelope::FromJson reads other layouts as DSSE allows", "[sign]") {
  // Pretty-printed, keys in another order, an unknown field, keyid missing or null, URL-safe
  // base64 without padding.
  absl::StatusOr<Envelope> env = Envelope::FromJson(R"({
    "payload": "-_8",
    "x-extra": {"ignored": [1, 2]},
    "signatures": [
      {"sig": "AQID"},
      {"keyid": null, "sig": "cw=="},
      {"sig": "AQID", "keyid": "k", "extra": true}
    ],
    "payloadType": "t"
  }
  )");
  REQUIRE(env.ok());
  CHECK(env->payload_type == "t");
  CHECK(env->payload == "\xfb\xff");
  REQUIRE(env->signatures.size() == 3);
  CHECK(env->signatures[0].keyid.empty());
  CHECK(env->signatures[0].sig == "\x01\x02\x03");
  CHECK(env->signatures[1].keyid.empty());
  CHECK(env->signatures[2].keyid == "k");

  absl::StatusOr<Envelope> empty =
      Envelope::FromJson(R"({"payloadType":"","payload":"","signatures":[]})");
  REQUIRE(empty.ok());
  CHECK(empty->payload.empty());
  CHECK(empty->signatures.empty());

  absl::StatusOr<Envelope> escaped =
      Envelope::FromJson(R"({"payloadType":"a\"\u00e9\/","payload":"","signatures":[]})");
  REQUIRE(escaped.ok());
  CHECK(escaped->payload_type == "a\"\xc3\xa9/");
}

TEST_CASE("Envelope::FromJson rejects missing fields, wrong types and bad base64", "[sign]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"payload":"","signatures":[]})", R"(missing "payloadType")"},
      {R"({"payloadType":"t","signatures":[]})", R"(missing "payload")"},
      {R"({"payloadType":"t","payload":""})", R"(missing "signatures")"},
      {R"({"payloadType":"t","payload":"","signatures":[{"keyid":"k"}]})",
       R"(missing "sig" in signatures[0])"},
      {R"({"payloadType":"t","payload":"","signatures":[{"sig":"AQID"},{}]})",
       R"(missing "sig" in signatures[1])"},
      {R"({"payloadType":null,"payload":"","signatures":[]})",
       R"("payloadType" must be a string (found null))"},
      {R"({"payloadType":"t","payload":5,"signatures":[]})",
       R"("payload" must be a string (found int))"},
      {R"({"payloadType":"t","payload":"","signatures":{}})",
       R"("signatures" must be an array (found mapping))"},
      {R"({"payloadType":"t","payload":"","signatures":["AQID"]})",
       "signatures[0] must be an object (found string)"},
      {R"({"payloadType":"t","payload":"","signatures":[{"sig":"AQID","keyid":7}]})",
       R"("keyid" in signatures[0] must be a string (found int))"},
      {R"({"payloadType":"t","payload":"not base64!","signatures":[]})",
       R"("payload" is not valid base64: invalid character ' ' at offset 3)"},
      {R"({"payloadType":"t","payload":"Zg=","signatures":[]})",
       R"("payload" is not valid base64)"},
      {R"({"payloadType":"t","payload":"","signatures":[{"sig":"AQ\nID"}]})",
       R"("sig" in signatures[0] is not valid base64)"},
      {R"({"payloadType":"t","payload":"","signatures":[{"sig":"AQ+_"}]})",
       R"("sig" in signatures[0] is not valid base64)"},
      {R"([1])", "it must be a JSON object (found sequence)"},
      {R"("x")", "it must be a JSON object (found string)"},
      {"", "expected one JSON object, found 0 documents"},
      {R"({"payloadType":"t",)", "not valid JSON"},
      {R"({"payloadType":"t","payloadType":"u","payload":"","signatures":[]})", "not valid JSON"},
  };
  for (const auto& [json, fragment] : cases) {
    CAPTURE(json);
    absl::StatusOr<Envelope> r = Envelope::FromJson(json);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kInvalidArgument);
    CAPTURE(r.status().message());
    CHECK(r.status().message().find("dsse envelope: ") == 0);
    CHECK(r.status().message().find(fragment) != std::string::npos);
  }
}

// ----------------------------------------------------------------------------------------
// in-toto Statements

TEST_CASE("Statement writes compact in-toto v1 JSON in a fixed order", "[sign]") {
  const std::string a(64, 'a');
  const std::string b(64, 'b');
  const std::string s = Statement({{"web", a}, {"", b}, {"q\"uote", a}},
                                  "https://cub.dev/Release/v1", cub::Json{{"release", 7}});
  // clang-format off
  CHECK(s == "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":["
             "{\"name\":\"web\",\"digest\":{\"sha256\":\"" + a + "\"}},"
             "{\"digest\":{\"sha256\":\"" + b + "\"}},"
             "{\"name\":\"q\\\"uote\",\"digest\":{\"sha256\":\"" + a + "\"}}],"
             "\"predicateType\":\"https://cub.dev/Release/v1\",\"predicate\":{\"release\":7}}");
  // clang-format on
  CHECK(Statement({}, "p", cub::Json::object()) ==
        R"({"_type":"https://in-toto.io/Statement/v1","subject":[],"predicateType":"p",)"
        R"("predicate":{}})");

  // It is JSON, and signs and verifies as an in-toto envelope.
  absl::StatusOr<std::vector<config::Node>> parsed = config::ParseYaml(s);
  REQUIRE(parsed.ok());
  REQUIRE(parsed->size() == 1);
  const config::Node& root = (*parsed)[0];
  CHECK(root.Find("_type")->AsString() == "https://in-toto.io/Statement/v1");
  CHECK(root.Find("subject")->AsSequence()[2].Find("name")->AsString() == "q\"uote");
  CHECK(root.Find("predicate")->Find("release")->AsInt() == 7);
  const SigningKey key = NewKey();
  CHECK(VerifyEnvelope(SignEnvelope(key, kInTotoPayloadType, s), key.PublicKeyPem()).ok());
}

// ----------------------------------------------------------------------------------------
// the openssl command line

TEST_CASE("openssl verifies our signatures and we verify openssl's", "[sign][openssl]") {
  if (!HaveOpenssl()) {
    WARN("openssl is not on PATH; skipping the command-line interoperability checks");
    return;
  }
  TempDir dir;
  const SigningKey key = NewKey();
  const Envelope env =
      SignEnvelope(key, kInTotoPayloadType,
                   Statement({{"web", std::string(64, 'c')}}, "p", cub::Json::object()));
  const std::string pae = Pae(env.payload_type, env.payload);
  WriteFile(dir / "pub.pem", key.PublicKeyPem());
  WriteFile(dir / "pae.bin", pae);
  WriteFile(dir / "sig.bin", env.signatures[0].sig);
  const std::string verify = "openssl pkeyutl -verify -pubin -inkey " + (dir / "pub.pem") +
                             " -rawin -in " + (dir / "pae.bin") + " -sigfile " + (dir / "sig.bin");
  CHECK(Run(verify));

  SECTION("a tampered PAE fails") {
    WriteFile(dir / "pae.bin", FlipBit(pae, pae.size() - 2, 0));
    CHECK_FALSE(Run(verify));
  }
  SECTION("a tampered signature fails") {
    WriteFile(dir / "sig.bin", FlipBit(env.signatures[0].sig, 5, 5));
    CHECK_FALSE(Run(verify));
  }
  SECTION("the key id is the SHA-256 of openssl's DER public key") {
    REQUIRE(Run("openssl pkey -pubin -in " + (dir / "pub.pem") + " -outform DER -out " +
                (dir / "pub.der")));
    CHECK(key.KeyId() == "sha256:" + Sha256Hex(ReadFile(dir / "pub.der")));
  }
  SECTION("openssl reads our private key and we read its keys and signatures") {
    WriteFile(dir / "ours.pem", key.PrivatePem());
    REQUIRE(
        Run("openssl pkey -in " + (dir / "ours.pem") + " -pubout -out " + (dir / "ours.pub.pem")));
    CHECK(ReadFile(dir / "ours.pub.pem") == key.PublicKeyPem());

    REQUIRE(Run("openssl genpkey -algorithm ed25519 -out " + (dir / "theirs.pem")));
    absl::StatusOr<SigningKey> theirs = SigningKey::FromPrivatePem(ReadFile(dir / "theirs.pem"));
    REQUIRE(theirs.ok());
    REQUIRE(Run("openssl pkeyutl -sign -inkey " + (dir / "theirs.pem") + " -rawin -in " +
                (dir / "pae.bin") + " -out " + (dir / "theirs.sig")));
    const std::string their_sig = ReadFile(dir / "theirs.sig");
    CHECK(their_sig == theirs->Sign(pae));
    CHECK(VerifyEd25519(theirs->PublicKeyPem(), pae, their_sig).ok());
  }
}

}  // namespace
}  // namespace cub::sign
