// Test-only: tests/harness/registry.sh (Debian's docker-registry on a free loopback port) as an
// object that stops the registry when it goes out of scope. For Catch2 tests.
#ifndef CUB_TESTS_HARNESS_REGISTRY_PROCESS_H_
#define CUB_TESTS_HARNESS_REGISTRY_PROCESS_H_

#include <signal.h>
#include <sys/types.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>
#include <string>

#include "scratch_dir.h"

namespace cub::testing {

// Whether the registry binary is installed (tests skip their registry cases otherwise).
inline bool HaveRegistry() { return access("/usr/bin/docker-registry", X_OK) == 0; }

class RegistryProcess {
 public:
  // Starts the registry in `dir` ("plain" or "tls" mode, see registry.sh).
  RegistryProcess(const std::string& dir, const std::string& mode) : dir_(dir) {
    const char* src = std::getenv("CUB_SOURCE_DIR");
    std::string script = std::string(src ? src : ".") + "/tests/harness/registry.sh";
    CommandResult r = RunCommand("bash " + script + " " + dir + " " + mode);
    REQUIRE(r.status == 0);
    std::istringstream(r.out) >> port_ >> pid_;
    REQUIRE(pid_ > 0);
  }
  ~RegistryProcess() {
    if (pid_ > 0) kill(pid_, SIGTERM);
  }
  RegistryProcess(const RegistryProcess&) = delete;
  RegistryProcess& operator=(const RegistryProcess&) = delete;

  int port() const { return port_; }
  // "127.0.0.1:PORT"
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  const std::string& dir() const { return dir_; }

 private:
  std::string dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace cub::testing

#endif  // CUB_TESTS_HARNESS_REGISTRY_PROCESS_H_
