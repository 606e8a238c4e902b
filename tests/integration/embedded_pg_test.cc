// EmbeddedPostgres: cubd's private PostgreSQL server. These tests run their own servers in
// temporary directories; they do not use the `pg` fixture's server.

#include "lib/store/embedded_pg.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <pqxx/pqxx>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;

// A temporary directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "cub-embedded-pg-test.XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
    // As root the server runs as `postgres`, which must be able to pass through.
    REQUIRE(chmod(path_.c_str(), 0711) == 0);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

int SelectOne(const std::string& url) {
  pqxx::connection conn(url);
  pqxx::nontransaction tx(conn);
  return tx.exec1("SELECT 1")[0].as<int>();
}

// True once `pid` no longer runs (gone, or a zombie that nobody of ours has reaped yet).
bool Gone(pid_t pid) {
  if (kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return true;
  const auto paren = line.rfind(')');
  return paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z';
}

// Tests that are not about durability skip fsync: it is most of their time on a busy disk.
cub::store::EmbeddedPostgres::Options Fast() {
  cub::store::EmbeddedPostgres::Options options;
  options.durable = false;
  return options;
}

bool WaitGone(pid_t pid, std::chrono::seconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (Gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return Gone(pid);
}

}  // namespace

TEST_CASE("EmbeddedPostgres starts, serves, stops and restarts on the same cluster") {
  TempDir tmp;
  const std::string data_dir = tmp.path() + "/data";

  pid_t first_pid = 0;
  {
    auto pg = cub::store::EmbeddedPostgres::Start(data_dir);
    REQUIRE(pg.ok());
    first_pid = (*pg)->pid();
    CHECK(first_pid > 0);
    CHECK((*pg)->data_dir() == data_dir);
    CHECK((*pg)->url().rfind("postgresql:///cub?host=", 0) == 0);
    CHECK(SelectOne((*pg)->url()) == 1);

    // Leave something behind to find after the restart.
    pqxx::connection conn((*pg)->url());
    pqxx::work tx(conn);
    tx.exec0("CREATE TABLE survivor (v int); INSERT INTO survivor VALUES (42)");
    tx.commit();
    // No TCP listener, and the socket directory is private.
    pqxx::nontransaction q(conn);
    CHECK(q.exec1("SHOW listen_addresses")[0].as<std::string>().empty());
    CHECK(q.exec1("SELECT current_user")[0].as<std::string>() == "cub");
  }
  CHECK(WaitGone(first_pid, std::chrono::seconds(5)));
  CHECK_FALSE(fs::exists(data_dir + "/pgdata/postmaster.pid"));
  CHECK_FALSE(fs::exists(data_dir + "/pgdata.tmp"));
  struct stat st;
  REQUIRE(stat((data_dir + "/sock").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0700);

  {
    auto pg = cub::store::EmbeddedPostgres::Start(data_dir);
    REQUIRE(pg.ok());
    CHECK((*pg)->pid() != first_pid);
    pqxx::connection conn((*pg)->url());
    pqxx::nontransaction tx(conn);
    CHECK(tx.exec1("SELECT v FROM survivor")[0].as<int>() == 42);
  }
}

TEST_CASE("EmbeddedPostgres restarts over a stale postmaster.pid from a killed server") {
  TempDir tmp;
  const std::string data_dir = tmp.path() + "/data";
  {
    auto pg = cub::store::EmbeddedPostgres::Start(data_dir, Fast());
    REQUIRE(pg.ok());
    REQUIRE(kill((*pg)->pid(), SIGKILL) == 0);
    // The destructor reaps the killed server.
  }
  REQUIRE(fs::exists(data_dir + "/pgdata/postmaster.pid"));
  auto pg = cub::store::EmbeddedPostgres::Start(data_dir, Fast());
  if (!pg.ok()) FAIL(pg.status().ToString());
  CHECK(SelectOne((*pg)->url()) == 1);
}

TEST_CASE("EmbeddedPostgres's server dies with its parent") {
  TempDir tmp;
  const std::string data_dir = tmp.path() + "/data";
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    // A stand-in for cubd: starts the server, reports its pid, then dies without cleanup.
    close(fds[0]);
    auto pg = cub::store::EmbeddedPostgres::Start(data_dir, Fast());
    pid_t pid = pg.ok() ? (*pg)->pid() : -1;
    (void)!write(fds[1], &pid, sizeof(pid));
    _exit(0);
  }
  close(fds[1]);
  pid_t server = -1;
  REQUIRE(read(fds[0], &server, sizeof(server)) == static_cast<ssize_t>(sizeof(server)));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(server > 0);

  // A new start right away (as a restarted cubd would do) waits for the dying server to let go
  // of the data dir.
  auto pg = cub::store::EmbeddedPostgres::Start(data_dir, Fast());
  if (!pg.ok()) FAIL(pg.status().ToString());
  CHECK(SelectOne((*pg)->url()) == 1);
  CHECK((*pg)->pid() != server);
  CHECK(WaitGone(server, std::chrono::seconds(30)));
}

TEST_CASE("EmbeddedPostgres puts the socket of a long data dir under /tmp") {
  TempDir tmp;
  const std::string data_dir = tmp.path() + "/" + std::string(60, 'd') + "/" + std::string(60, 'e');
  std::string sock_dir;
  {
    auto pg = cub::store::EmbeddedPostgres::Start(data_dir, Fast());
    if (!pg.ok()) FAIL(pg.status().ToString());
    const std::string& url = (*pg)->url();
    const auto host = url.find("host=/tmp/cub-pg-");
    REQUIRE(host != std::string::npos);
    sock_dir = url.substr(host + 5, url.find('&', host) - host - 5);
    CHECK(SelectOne(url) == 1);
  }
  std::error_code ec;
  fs::remove_all(sock_dir, ec);
}

TEST_CASE("DefaultDataDir") {
  const std::string dir = cub::store::DefaultDataDir();
  if (geteuid() == 0) {
    CHECK(dir == "/var/lib/cub");
  } else {
    CHECK(dir.size() > 4);
    CHECK(dir.substr(dir.size() - 4) == "/cub");
  }
}
