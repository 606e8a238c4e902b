// Watches --tls-cert and --tls-key and hands a new pair to cubd's listeners when the files
// change, without a restart: a Kubernetes Secret update (an atomic swap of the ..data symlink)
// or a certificate manager's renewal. A pair is taken only whole and sound: both files read
// without either changing meanwhile, the chain and key parsed, the key that of the leaf. A
// half-written or mismatched pair is logged and the last good pair kept; the files are looked
// at again at the next poll.
#ifndef CUB_SERVER_TLS_RELOADER_H_
#define CUB_SERVER_TLS_RELOADER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "server/http_server.h"

namespace cub::server {

// `files` read and checked as above. InvalidArgument naming the file and what is wrong.
absl::StatusOr<TlsPem> LoadTlsPair(const TlsFiles& files);

// Thread-safe. Listeners are called on the reloader's thread, one at a time, after each
// change; Stop() (or the destructor) waits for a call in progress.
class TlsReloader {
 public:
  using Listener = std::function<void(const TlsPem&)>;

  // The pair of `files`, loaded now (an error if it is not sound), then polled every
  // `interval` (stat of both files: device, inode, size, modification and change times).
  static absl::StatusOr<std::unique_ptr<TlsReloader>> Start(const TlsFiles& files,
                                                            std::chrono::milliseconds interval);
  ~TlsReloader();
  TlsReloader(const TlsReloader&) = delete;
  TlsReloader& operator=(const TlsReloader&) = delete;

  // The pair in use, and its generation (1 for the first, one more for each change).
  std::shared_ptr<const TlsPem> current(uint64_t* generation) const;
  // `fn` is called with every pair taken from now on.
  void Subscribe(Listener fn);
  // Ends polling; idempotent.
  void Stop();

 private:
  TlsReloader(TlsFiles files, std::chrono::milliseconds interval, TlsPem first);
  void Run();
  void Poll();

  const TlsFiles files_;
  const std::chrono::milliseconds interval_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::shared_ptr<const TlsPem> current_;
  uint64_t generation_ = 1;
  std::vector<Listener> listeners_;
  std::string seen_;  // the files' stat signature last looked at (reloader thread only)
  std::thread thread_;
};

}  // namespace cub::server

#endif  // CUB_SERVER_TLS_RELOADER_H_
