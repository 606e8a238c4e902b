// Test-only: a scratch directory under /tmp that is removed (with everything in it) when the
// object goes out of scope, and a shell command run with its standard output captured. For
// Catch2 tests: failures to set up are REQUIRE failures.
#ifndef CUB_TESTS_HARNESS_SCRATCH_DIR_H_
#define CUB_TESTS_HARNESS_SCRATCH_DIR_H_

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>
#include <system_error>

namespace cub::testing {

class ScratchDir {
 public:
  // Makes /tmp/<prefix>.XXXXXX.
  explicit ScratchDir(const std::string& prefix) {
    std::string tmpl = "/tmp/" + prefix + ".XXXXXX";
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct CommandResult {
  int status;  // the exit status; -1 when the command was killed by a signal
  std::string out;
};

// Runs `cmd` with /bin/sh, returning its exit status and standard output.
inline CommandResult RunCommand(const std::string& cmd) {
  CommandResult r{-1, ""};
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

}  // namespace cub::testing

#endif  // CUB_TESTS_HARNESS_SCRATCH_DIR_H_
