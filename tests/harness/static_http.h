// Test-only: tests/harness/static_http.mjs run as a child process, serving a directory that
// the test writes, so HTTP clients are tested against a real server on loopback.
#ifndef CUB_TESTS_HARNESS_STATIC_HTTP_H_
#define CUB_TESTS_HARNESS_STATIC_HTTP_H_

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "lib/net/http_client.h"

namespace cub::testing {

class StaticHttpServer {
 public:
  // Serves `dir` (created if missing) on a free loopback port.
  explicit StaticHttpServer(const std::string& dir) : dir_(dir) {
    std::filesystem::create_directories(dir);
    const char* src = std::getenv("CUB_SOURCE_DIR");
    std::string script = std::string(src ? src : ".") + "/tests/harness/static_http.mjs";
    int fds[2];
    if (pipe(fds) != 0) throw std::runtime_error("pipe");
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      execlp("node", "node", script.c_str(), dir.c_str(), "0", static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    FILE* out = fdopen(fds[0], "r");
    char line[64] = {0};
    if (out == nullptr || fgets(line, sizeof line, out) == nullptr ||
        sscanf(line, "listening %d", &port_) != 1) {
      if (out != nullptr) fclose(out);
      Stop();
      throw std::runtime_error("static_http.mjs did not start (is node installed?)");
    }
    fclose(out);
  }
  ~StaticHttpServer() { Stop(); }
  StaticHttpServer(const StaticHttpServer&) = delete;
  StaticHttpServer& operator=(const StaticHttpServer&) = delete;

  // Kills the server: later requests to its port are refused.
  void Stop() {
    if (pid_ <= 0) return;
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  // Writes DIR/PATH (a leading '/' of `path` is ignored).
  void Write(const std::string& path, const std::string& body) const {
    std::filesystem::path file =
        std::filesystem::path(dir_) / path.substr(path.find_first_not_of('/'));
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary | std::ios::trunc) << body;
  }

  // How many requests the server has had for `path` ("/jwks.json").
  int Count(const std::string& path) const {
    net::HttpRequest req;
    req.url = url() + "/__count?path=" + net::UrlEncode(path);
    auto resp = net::Fetch(req);
    if (!resp.ok() || resp->status != 200) throw std::runtime_error("count failed");
    return std::stoi(resp->body);
  }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace cub::testing

#endif  // CUB_TESTS_HARNESS_STATIC_HTTP_H_
