#include "server/tls_reloader.h"

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "lib/util/status_macros.h"
#include "server/request_log.h"

namespace cub::server {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct PkeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};

// What stat() says of both files (following symlinks, so a swapped ..data link shows).
std::string Signature(const TlsFiles& files) {
  std::string sig;
  for (const std::string* path : {&files.cert_file, &files.key_file}) {
    struct stat st;
    if (::stat(path->c_str(), &st) != 0) {
      absl::StrAppend(&sig, "missing;");
      continue;
    }
    absl::StrAppend(&sig, st.st_dev, ":", st.st_ino, ":", st.st_size, ":", st.st_mtim.tv_sec, ".",
                    st.st_mtim.tv_nsec, ":", st.st_ctim.tv_sec, ".", st.st_ctim.tv_nsec, ";");
  }
  return sig;
}

absl::StatusOr<std::string> Slurp(const std::string& what, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InvalidArgumentError(absl::StrCat(what, " ", path, ": cannot read it"));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The leaf of `pem` and the key of `key_pem` parse, and belong together.
absl::Status CheckPair(const TlsFiles& files, const TlsPem& pem) {
  std::unique_ptr<BIO, BioFree> cb(
      BIO_new_mem_buf(pem.cert_chain.data(), static_cast<int>(pem.cert_chain.size())));
  std::unique_ptr<X509, X509Free> leaf(PEM_read_bio_X509(cb.get(), nullptr, nullptr, nullptr));
  if (leaf == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-cert ", files.cert_file, ": no PEM certificate in it"));
  }
  std::unique_ptr<BIO, BioFree> kb(
      BIO_new_mem_buf(pem.private_key.data(), static_cast<int>(pem.private_key.size())));
  std::unique_ptr<EVP_PKEY, PkeyFree> key(
      PEM_read_bio_PrivateKey(kb.get(), nullptr, nullptr, nullptr));
  if (key == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("--tls-key ", files.key_file, ": no unencrypted PEM private key in it"));
  }
  if (X509_check_private_key(leaf.get(), key.get()) != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--tls-key ", files.key_file, " is not the key of --tls-cert ", files.cert_file));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TlsPem> LoadTlsPair(const TlsFiles& files) {
  const std::string before = Signature(files);
  TlsPem pem;
  CUB_ASSIGN_OR_RETURN(pem.cert_chain, Slurp("--tls-cert", files.cert_file));
  CUB_ASSIGN_OR_RETURN(pem.private_key, Slurp("--tls-key", files.key_file));
  if (Signature(files) != before) {
    return absl::UnavailableError("--tls-cert or --tls-key changed while being read");
  }
  CUB_RETURN_IF_ERROR(CheckPair(files, pem));
  return pem;
}

absl::StatusOr<std::unique_ptr<TlsReloader>> TlsReloader::Start(
    const TlsFiles& files, std::chrono::milliseconds interval) {
  const std::string sig = Signature(files);
  CUB_ASSIGN_OR_RETURN(TlsPem first, LoadTlsPair(files));
  std::unique_ptr<TlsReloader> r(new TlsReloader(files, interval, std::move(first)));
  r->seen_ = sig;
  r->thread_ = std::thread([p = r.get()] { p->Run(); });
  return r;
}

TlsReloader::TlsReloader(TlsFiles files, std::chrono::milliseconds interval, TlsPem first)
    : files_(std::move(files)),
      interval_(interval),
      current_(std::make_shared<const TlsPem>(std::move(first))) {}

TlsReloader::~TlsReloader() { Stop(); }

std::shared_ptr<const TlsPem> TlsReloader::current(uint64_t* generation) const {
  std::lock_guard<std::mutex> l(mu_);
  if (generation != nullptr) *generation = generation_;
  return current_;
}

void TlsReloader::Subscribe(Listener fn) {
  std::lock_guard<std::mutex> l(mu_);
  listeners_.push_back(std::move(fn));
}

void TlsReloader::Stop() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
  }
  stop_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void TlsReloader::Run() {
  std::unique_lock<std::mutex> l(mu_);
  while (!stop_cv_.wait_for(l, interval_, [this] { return stop_; })) {
    l.unlock();
    Poll();
    l.lock();
  }
}

// On the reloader's thread: takes the files' pair if they changed since last looked at.
void TlsReloader::Poll() {
  const std::string sig = Signature(files_);
  if (sig == seen_) return;
  auto pem = LoadTlsPair(files_);
  if (!pem.ok()) {
    // A pair being written may be caught half-way: look again at the next poll, and say so
    // only once the files have settled and are still unusable.
    if (Signature(files_) == sig) {
      seen_ = sig;
      LogMessageF("cubd: TLS certificate not reloaded, still serving the previous one: %s",
                  std::string(pem.status().message()).c_str());
    }
    return;
  }
  seen_ = sig;
  auto next = std::make_shared<const TlsPem>(*std::move(pem));
  std::vector<Listener> listeners;
  {
    std::lock_guard<std::mutex> l(mu_);
    current_ = next;
    ++generation_;
    listeners = listeners_;
  }
  LogMessageF("cubd: TLS certificate reloaded from %s and %s", files_.cert_file.c_str(),
              files_.key_file.c_str());
  for (const Listener& fn : listeners) fn(*next);
}

}  // namespace cub::server
