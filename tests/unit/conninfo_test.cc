// lib/store/conninfo.h: the database password file's checks, and the connection string that
// carries its password, read back by libpq itself.
#include "lib/store/conninfo.h"

#include <libpq-fe.h>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

namespace cub::store {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/tmp/cub_conninfo_test_XXXXXX";
    REQUIRE(::mkdtemp(tmpl) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string Write(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  REQUIRE(::chmod(path.c_str(), mode) == 0);
  return path;
}

// The parameters libpq reads from `conninfo`.
std::map<std::string, std::string> Parsed(const std::string& conninfo) {
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(conninfo.c_str(), &err);
  REQUIRE(opts != nullptr);
  std::map<std::string, std::string> out;
  for (PQconninfoOption* o = opts; o->keyword != nullptr; ++o) {
    if (o->val != nullptr) out[o->keyword] = o->val;
  }
  PQconninfoFree(opts);
  return out;
}

TEST_CASE("ReadPasswordFile strips one newline and refuses unfit files", "[conninfo]") {
  TempDir dir;
  CHECK(*ReadPasswordFile(Write(dir / "a", "s3cret\n", 0600)) == "s3cret");
  CHECK(*ReadPasswordFile(Write(dir / "b", "s3cret", 0400)) == "s3cret");
  CHECK(*ReadPasswordFile(Write(dir / "c", "s3 cret\r\n", 0440)) == "s3 cret");
  CHECK(*ReadPasswordFile(Write(dir / "d", "x'y\\z", 0640)) == "x'y\\z");  // group: fsGroup

  // A Kubernetes Secret volume: password -> ..data/password, ..data -> a versioned directory.
  fs::create_directories(dir / "s/..v1");
  Write(dir / "s/..v1/password", "fromsecret\n", 0440);
  fs::create_directory_symlink("..v1", dir / "s/..data");
  fs::create_symlink("..data/password", dir / "s/password");
  CHECK(*ReadPasswordFile(dir / "s/password") == "fromsecret");

  struct Bad {
    std::string path, why;
  };
  for (const Bad& b :
       {Bad{dir / "missing", "No such file"}, Bad{Write(dir / "e", "", 0600), "empty"},
        Bad{Write(dir / "f", "\n", 0600), "empty"},
        Bad{Write(dir / "g", "hunter2\n", 0644), "mode 0644"},
        Bad{Write(dir / "h", "hunter2\n", 0604), "mode 0604"},
        Bad{Write(dir / "g2", "hunter2\n", 0660), "mode 0660, which lets its group change it"},
        Bad{Write(dir / "n", std::string("hunter2\0x", 9), 0600), "NUL byte"},
        Bad{Write(dir / "i", "one\ntwo\n", 0600), "more than one line"},
        Bad{Write(dir / "j", std::string(5000, 'x'), 0600), "over 4 KiB"},
        Bad{dir / "s", "not a regular file"}}) {
    CAPTURE(b.path);
    auto r = ReadPasswordFile(b.path);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
    CHECK(r.status().message().find("--database-password-file " + b.path) == 0);
    CHECK(r.status().message().find(b.why) != std::string::npos);
    CHECK(r.status().message().find("hunter2") == std::string::npos);  // never the content
  }
}

TEST_CASE("ConninfoWithPassword keeps the URL's parameters and sets the password", "[conninfo]") {
  auto c = ConninfoWithPassword(
      "postgresql://cub_serve:old@db.example:6432/cub?sslmode=verify-full&application_name=cubd",
      "n'e\\w pw");
  REQUIRE(c.ok());
  auto p = Parsed(*c);
  CHECK(p["user"] == "cub_serve");
  CHECK(p["password"] == "n'e\\w pw");
  CHECK(p["host"] == "db.example");
  CHECK(p["port"] == "6432");
  CHECK(p["dbname"] == "cub");
  CHECK(p["sslmode"] == "verify-full");
  CHECK(p["application_name"] == "cubd");
  CHECK(c->find("old") == std::string::npos);

  // Added where the URL has none; the key=value form works too.
  CHECK(Parsed(*ConninfoWithPassword("postgres://u@h/d", "pw"))["password"] == "pw");
  auto kv = Parsed(*ConninfoWithPassword("host=h user=u password=x dbname=d", "pw"));
  CHECK(kv["password"] == "pw");
  CHECK(kv["host"] == "h");

  auto bad = ConninfoWithPassword("postgresql://h/d?nosuchparameter=1", "hunter2");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(bad.status().message().find("--database-url does not parse: ") == 0);
  CHECK(bad.status().message().find("hunter2") == std::string::npos);
}

}  // namespace
}  // namespace cub::store
