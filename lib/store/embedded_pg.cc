#include "lib/store/embedded_pg.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <locale.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "lib/util/status_macros.h"

namespace cub::store {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr char kSuperuser[] = "cub";
constexpr char kDatabase[] = "cub";
constexpr int kPort = 5432;  // Only names the socket file (.s.PGSQL.5432): there is no TCP.
constexpr auto kStartTimeout = std::chrono::seconds(120);
// How long a start waits for a predecessor that still holds the data dir (see Transient).
constexpr auto kPredecessorTimeout = std::chrono::seconds(30);
constexpr auto kInitdbTimeout = std::chrono::seconds(300);
constexpr auto kStopTimeout = std::chrono::seconds(60);
constexpr std::uintmax_t kLogRotateBytes = 16u << 20;
// sizeof(sockaddr_un::sun_path) is 108, including the terminating NUL.
constexpr size_t kMaxSocketPath = 107;

// Whom initdb and postgres run as. Everything is computed before fork(), so that the child only
// makes async-signal-safe calls.
struct Credentials {
  bool change = false;  // false: run as ourselves.
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;
  std::string home;
};

absl::StatusOr<Credentials> RunAsCredentials() {
  Credentials cred;
  if (geteuid() != 0) {
    cred.uid = geteuid();
    cred.gid = getegid();
    const struct passwd* pw = getpwuid(cred.uid);
    cred.home = pw != nullptr ? pw->pw_dir : "/";
    return cred;
  }
  struct passwd pwd;
  struct passwd* pw = nullptr;
  std::vector<char> buf(16384);
  if (getpwnam_r("postgres", &pwd, buf.data(), buf.size(), &pw) != 0 || pw == nullptr) {
    return absl::FailedPreconditionError(
        "embedded PostgreSQL: running as root needs the 'postgres' system user, which PostgreSQL "
        "runs as (install postgresql-15, or run cubd as an ordinary user)");
  }
  cred.change = true;
  cred.uid = pw->pw_uid;
  cred.gid = pw->pw_gid;
  cred.home = pw->pw_dir;
  int n = 64;
  cred.groups.resize(n);
  while (getgrouplist(pw->pw_name, pw->pw_gid, cred.groups.data(), &n) < 0) {
    cred.groups.resize(n + 64);
    n = static_cast<int>(cred.groups.size());
  }
  cred.groups.resize(n);
  return cred;
}

absl::StatusOr<std::string> FindBinDir() {
  auto has_binaries = [](const std::string& dir) {
    return access((dir + "/postgres").c_str(), X_OK) == 0 &&
           access((dir + "/initdb").c_str(), X_OK) == 0;
  };
  if (const char* env = std::getenv("CUB_PG_BINDIR"); env != nullptr && *env != '\0') {
    if (has_binaries(env)) return std::string(env);
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: CUB_PG_BINDIR=", env, " has no postgres and initdb"));
  }
  if (has_binaries("/usr/lib/postgresql/15/bin")) return std::string("/usr/lib/postgresql/15/bin");
  int best = -1;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const int version = std::atoi(name.c_str());
    if (version > best && has_binaries(entry.path().string() + "/bin")) best = version;
  }
  if (best >= 0) return absl::StrCat("/usr/lib/postgresql/", best, "/bin");
  return absl::FailedPreconditionError(
      "embedded PostgreSQL: no PostgreSQL server binaries in /usr/lib/postgresql/15/bin (install "
      "postgresql-15, or set CUB_PG_BINDIR)");
}

std::string ChooseLocale() {
  locale_t loc = newlocale(LC_ALL_MASK, "C.UTF-8", static_cast<locale_t>(0));
  if (loc == static_cast<locale_t>(0)) return "C";
  freelocale(loc);
  return "C.UTF-8";
}

std::string Fnv1aHex(const std::string& s) {
  std::uint64_t h = 14695981039346656037ull;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof(out), "%016llx", static_cast<unsigned long long>(h));
  return out;
}

std::string PercentEncode(const std::string& s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

// A value for a libpq keyword/value connection string: quoted, with ' and \ escaped.
std::string ConninfoQuote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// The last `lines` lines of `path` from byte `offset` on, for error messages.
std::string LogTail(const std::string& path, std::streamoff offset = 0, int lines = 30) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::StrCat("(no log at ", path, ")");
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = std::max(offset, size - std::streamoff{64 * 1024});
  in.seekg(start);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::string> all;
  std::istringstream ss(text);
  for (std::string line; std::getline(ss, line);) all.push_back(line);
  const size_t from = all.size() > static_cast<size_t>(lines) ? all.size() - lines : 0;
  std::vector<std::string> tail(all.begin() + from, all.end());
  return absl::StrCat("last lines of ", path, ":\n", absl::StrJoin(tail, "\n"));
}

std::streamoff FileSize(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  return ec ? 0 : static_cast<std::streamoff>(size);
}

// Makes `path` a directory owned by `cred` that only its owner can enter. Refuses a symlink or a
// directory owned by someone else (it may be in /tmp, where anybody could have made it first).
absl::Status EnsurePrivateDir(const std::string& path, const Credentials& cred) {
  if (mkdir(path.c_str(), 0700) != 0 && errno != EEXIST) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: cannot create ", path, ": ", std::strerror(errno)));
  }
  struct stat st;
  if (lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: ", path, " is not a directory"));
  }
  if (st.st_uid != cred.uid) {
    // Only root may take over a directory, and only one root itself owns (from an earlier run).
    if (!cred.change || st.st_uid != 0 || chown(path.c_str(), cred.uid, cred.gid) != 0) {
      return absl::FailedPreconditionError(absl::StrCat("embedded PostgreSQL: refusing to use ",
                                                        path, ": owned by uid ", st.st_uid,
                                                        ", expected uid ", cred.uid));
    }
  }
  if (chmod(path.c_str(), 0700) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: cannot chmod ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

// Everything a child needs, prepared before fork().
struct Command {
  std::vector<std::string> argv;
  std::vector<std::string> env;
  int pdeath_signal = SIGTERM;
};

// Starts `cmd` as a child of the calling thread with the given credentials, stdin from
// /dev/null and stdout/stderr appended to `log_path`, in a process group of its own (so that a
// Ctrl-C on cubd's terminal does not reach it: cubd stops it in order), with default signal
// handling and no other inherited file descriptors.
absl::StatusOr<pid_t> Spawn(const Command& cmd, const Credentials& cred,
                            const std::string& log_path) {
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  if (log_fd < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: cannot open ", log_path, ": ", std::strerror(errno)));
  }
  const int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (null_fd < 0) {
    close(log_fd);
    return absl::InternalError(absl::StrCat("cannot open /dev/null: ", std::strerror(errno)));
  }
  std::vector<char*> argv;
  for (const auto& a : cmd.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const auto& e : cmd.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  struct rlimit rl;
  const int max_fd =
      getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 65536
          ? static_cast<int>(rl.rlim_cur)
          : 65536;
  const pid_t parent = getpid();

  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(log_fd);
    close(null_fd);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(err)));
  }
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    auto die = [](const char* what) {
      const int err = errno;
      const char* msg = strerror(err);  // Not async-signal-safe in theory; fine for a message.
      (void)!write(2, "cub embedded PostgreSQL: ", 25);
      (void)!write(2, what, strlen(what));
      (void)!write(2, ": ", 2);
      (void)!write(2, msg, strlen(msg));
      (void)!write(2, "\n", 1);
      _exit(127);
    };
    setpgid(0, 0);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof(dfl));
    dfl.sa_handler = SIG_DFL;
    for (int sig = 1; sig < NSIG; ++sig) sigaction(sig, &dfl, nullptr);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (dup2(null_fd, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0) _exit(127);
    for (int fd = 3; fd < max_fd; ++fd) close(fd);
    if (cred.change) {
      if (setgroups(cred.groups.size(), cred.groups.data()) != 0) die("setgroups");
      if (setgid(cred.gid) != 0) die("setgid");
      if (setuid(cred.uid) != 0) die("setuid");
    }
    // After the credential change, which clears the death signal.
    if (prctl(PR_SET_PDEATHSIG, cmd.pdeath_signal) != 0) die("prctl");
    if (getppid() != parent) _exit(0);  // cubd died before prctl took effect.
    if (chdir("/") != 0) die("chdir /");
    execve(argv[0], argv.data(), envp.data());
    die(argv[0]);
  }
  close(log_fd);
  close(null_fd);
  return pid;
}

// Waits for `pid` to exit, up to `timeout`. Returns its wait status, or nullopt on timeout.
// A child reaped elsewhere (ECHILD) counts as exited with status 0.
std::optional<int> WaitFor(pid_t pid, Clock::duration timeout) {
  const auto deadline = Clock::now() + timeout;
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno == ECHILD) {
      if (kill(pid, 0) != 0 && errno == ESRCH) return 0;
    } else if (r < 0 && errno != EINTR) {
      return 0;
    }
    if (Clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string DescribeExit(int status) {
  if (WIFEXITED(status)) return absl::StrCat("exited with code ", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return absl::StrCat("was killed by signal ", WTERMSIG(status));
  return "ended";
}

void StopChild(pid_t pid) {
  if (pid <= 0) return;
  kill(pid, SIGINT);  // Fast shutdown.
  if (WaitFor(pid, kStopTimeout)) return;
  kill(pid, SIGQUIT);  // Immediate shutdown.
  if (WaitFor(pid, std::chrono::seconds(10))) return;
  kill(pid, SIGKILL);
  WaitFor(pid, std::chrono::seconds(10));
}

std::vector<std::string> ChildEnv(const Credentials& cred, const std::string& locale) {
  return {"PATH=/usr/bin:/bin", absl::StrCat("HOME=", cred.home), absl::StrCat("LANG=", locale)};
}

// As `cred`, may the server enter `path` (and so every parent of it)?
bool ReachableBy(const std::string& path, const Credentials& cred) {
  if (!cred.change) return access(path.c_str(), X_OK) == 0;
  const pid_t pid = fork();
  if (pid < 0) return true;  // Cannot tell; let the server's own error speak.
  if (pid == 0) {
    if (setgroups(cred.groups.size(), cred.groups.data()) != 0 || setgid(cred.gid) != 0 ||
        setuid(cred.uid) != 0) {
      _exit(2);
    }
    _exit(access(path.c_str(), X_OK | W_OK) == 0 ? 0 : 1);
  }
  const auto status = WaitFor(pid, std::chrono::seconds(10));
  return status && WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
}

absl::Status InitCluster(const std::string& bin_dir, const std::string& data_dir,
                         const std::string& pgdata, const Credentials& cred,
                         const std::string& locale, bool durable, const std::string& log_path) {
  const std::string tmp = data_dir + "/pgdata.tmp";
  std::error_code ec;
  fs::remove_all(tmp, ec);  // Left by an initdb that was killed: never a usable cluster.
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: cannot remove ", tmp, ": ", ec.message()));
  }
  Command cmd;
  cmd.argv = {bin_dir + "/initdb",
              "-D",
              tmp,
              "-U",
              kSuperuser,
              "--auth-local=trust",
              "--auth-host=reject",
              "-E",
              "UTF8",
              "--locale=" + locale};
  if (!durable) cmd.argv.push_back("--no-sync");
  cmd.env = ChildEnv(cred, locale);
  const std::streamoff log_start = FileSize(log_path);
  CUB_ASSIGN_OR_RETURN(auto pid, Spawn(cmd, cred, log_path));
  const auto status = WaitFor(pid, kInitdbTimeout);
  if (!status) {
    kill(pid, SIGKILL);
    WaitFor(pid, std::chrono::seconds(10));
    return absl::InternalError(
        absl::StrCat("embedded PostgreSQL: initdb timed out\n", LogTail(log_path, log_start)));
  }
  if (!WIFEXITED(*status) || WEXITSTATUS(*status) != 0) {
    return absl::InternalError(absl::StrCat("embedded PostgreSQL: initdb ", DescribeExit(*status),
                                            "\n", LogTail(log_path, log_start)));
  }
  fs::rename(tmp, pgdata, ec);
  if (ec) {
    return absl::InternalError(absl::StrCat("embedded PostgreSQL: cannot rename ", tmp, " to ",
                                            pgdata, ": ", ec.message()));
  }
  return absl::OkStatus();
}

// The pid and status (its 8th line: "starting", "ready", "stopping" ...) that postmaster.pid
// records, as pg_ctl -w reads them; {0, ""} when there is no such file.
struct PidFile {
  pid_t pid = 0;
  std::string status;
};

PidFile ReadPidFile(const std::string& pgdata) {
  std::ifstream in(pgdata + "/postmaster.pid");
  std::vector<std::string> lines;
  for (std::string line; lines.size() < 8 && std::getline(in, line);) lines.push_back(line);
  PidFile file;
  if (!lines.empty()) file.pid = static_cast<pid_t>(std::atol(lines[0].c_str()));
  if (lines.size() == 8) file.status = std::string(absl::StripAsciiWhitespace(lines[7]));
  return file;
}

// Does postmaster.pid say that the server `pid` accepts connections? Checking it before
// connecting keeps the log free of "the database system is starting up" lines.
bool PidFileSaysReady(const std::string& pgdata, pid_t pid) {
  const PidFile file = ReadPidFile(pgdata);
  return file.pid == pid && file.status == "ready";
}

// Does the database answer? Any failure (not started yet, starting up, ...) is a no.
bool Accepts(const std::string& conninfo) {
  try {
    pqxx::connection conn(conninfo);
    pqxx::nontransaction tx(conn);
    tx.exec("SELECT 1");
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

absl::Status EnsureDatabase(const std::string& admin_conninfo) {
  try {
    pqxx::connection conn(admin_conninfo);
    pqxx::nontransaction tx(conn);
    const pqxx::result r =
        tx.exec("SELECT 1 FROM pg_database WHERE datname = " + tx.quote(std::string(kDatabase)));
    if (!r.empty()) return absl::OkStatus();
    tx.exec("CREATE DATABASE " + tx.quote_name(kDatabase));
    return absl::OkStatus();
  } catch (const pqxx::sql_error& e) {
    if (e.sqlstate() == "42P04") return absl::OkStatus();  // duplicate_database: a racing start.
    return absl::InternalError(
        absl::StrCat("embedded PostgreSQL: cannot create database ", kDatabase, ": ", e.what()));
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("embedded PostgreSQL: cannot create database ", kDatabase, ": ", e.what()));
  }
}

// Is the failure of a start worth another try? Yes while a server that is shutting down (e.g.
// after its cubd was killed) still holds the data dir's lock file or shared memory; no when the
// lock belongs to a server that runs and serves (another cubd on the same data dir).
bool Transient(const std::string& log, const std::string& pgdata) {
  if (absl::StrContains(log, "pre-existing shared memory block")) return true;
  if (!absl::StrContains(log, "lock file \"postmaster.pid\" already exists")) return false;
  auto serving = [&pgdata] {
    const std::string status = ReadPidFile(pgdata).status;
    return status == "ready" || status == "standby";
  };
  if (!serving()) return true;
  // A predecessor whose cubd just died may not have handled its SIGINT yet: look again.
  std::this_thread::sleep_for(std::chrono::seconds(1));
  return !serving();
}

// DATA_DIR: ours (or, as root, the postgres user's) and reachable by the server.
absl::Status PrepareDataDir(const std::string& data_dir, const Credentials& cred) {
  std::error_code ec;
  const bool existed = fs::exists(data_dir, ec);
  fs::create_directories(data_dir, ec);
  if (ec) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: cannot create data dir ", data_dir, ": ", ec.message()));
  }
  if (!existed) chmod(data_dir.c_str(), 0700);
  if (cred.change && chown(data_dir.c_str(), cred.uid, cred.gid) != 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: cannot chown ", data_dir, ": ", std::strerror(errno)));
  }
  if (!ReachableBy(data_dir, cred)) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: the server's user (uid ", cred.uid,
                     ") cannot enter and write ", data_dir,
                     "; as root, choose a data dir whose parents are searchable by 'postgres' (not "
                     "under /root), e.g. the default /var/lib/cub"));
  }
  return absl::OkStatus();
}

// The cluster in `pgdata`: made by initdb when there is none, else checked to be the server
// user's.
absl::Status PrepareCluster(const std::string& bin_dir, const std::string& data_dir,
                            const std::string& pgdata, const Credentials& cred,
                            const std::string& locale, bool durable, const std::string& log_path) {
  std::error_code ec;
  if (!fs::exists(pgdata + "/PG_VERSION", ec)) {
    if (fs::exists(pgdata, ec) && !fs::is_empty(pgdata, ec)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "embedded PostgreSQL: ", pgdata, " exists but holds no cluster (no PG_VERSION)"));
    }
    fs::remove(pgdata, ec);
    return InitCluster(bin_dir, data_dir, pgdata, cred, locale, durable, log_path);
  }
  struct stat st;
  if (stat(pgdata.c_str(), &st) == 0 && st.st_uid != cred.uid) {
    return absl::FailedPreconditionError(
        absl::StrCat("embedded PostgreSQL: ", pgdata, " belongs to uid ", st.st_uid,
                     " but the server runs as uid ", cred.uid,
                     " (as root it runs as 'postgres': chown -R postgres: ", pgdata, ")"));
  }
  return absl::OkStatus();
}

// The postgres command line: Unix socket only, in `sock_dir`.
Command ServerCommand(const std::string& bin_dir, const std::string& pgdata,
                      const std::string& sock_dir, const EmbeddedPostgres::Options& options,
                      const Credentials& cred, const std::string& locale) {
  Command cmd;
  cmd.argv = {bin_dir + "/postgres", "-D", pgdata, "-k", sock_dir, "-h",
              "",  // listen_addresses='': no TCP.
              "-p", std::to_string(kPort), "-c", "unix_socket_permissions=0700",
              // After a crash, sync the file system once instead of every file of the cluster
              // one by one (seconds saved on each restart after a kill).
              "-c", "recovery_init_sync_method=syncfs"};
  if (!options.durable) {
    for (const char* setting : {"fsync=off", "synchronous_commit=off", "full_page_writes=off"}) {
      cmd.argv.push_back("-c");
      cmd.argv.push_back(setting);
    }
  }
  cmd.env = ChildEnv(cred, locale);
  cmd.pdeath_signal = SIGINT;  // Fast shutdown when cubd dies.
  return cmd;
}

// One start of the server: its pid once it accepts connections on `admin_conninfo`, or, when
// it exited first, its wait status (the caller decides whether to try again).
struct Attempt {
  pid_t pid = -1;
  std::optional<int> exit_status;
};

absl::StatusOr<Attempt> StartOnce(const Command& cmd, const Credentials& cred,
                                  const std::string& pgdata, const std::string& log_path,
                                  const std::string& admin_conninfo, Clock::time_point deadline) {
  const std::streamoff log_start = FileSize(log_path);
  Attempt attempt;
  CUB_ASSIGN_OR_RETURN(attempt.pid, Spawn(cmd, cred, log_path));
  int polls = 0;
  while (Clock::now() < deadline) {
    int status = 0;
    if (waitpid(attempt.pid, &status, WNOHANG) == attempt.pid) {
      attempt.exit_status = status;
      return attempt;
    }
    // Connect once the pid file says ready, and once a second anyway (should it be unreadable).
    if ((PidFileSaysReady(pgdata, attempt.pid) || ++polls % 20 == 0) && Accepts(admin_conninfo)) {
      return attempt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  StopChild(attempt.pid);
  return absl::UnavailableError(absl::StrCat(
      "embedded PostgreSQL: the server in ", pgdata, " did not accept connections within ",
      std::chrono::duration_cast<std::chrono::seconds>(kStartTimeout).count(), "s\n",
      LogTail(log_path, log_start)));
}

// Starts the server, trying again while a predecessor still holds the data dir (Transient);
// returns its pid once it accepts connections.
absl::StatusOr<pid_t> RunServer(const Command& cmd, const Credentials& cred,
                                const std::string& pgdata, const std::string& log_path,
                                const std::string& admin_conninfo) {
  const auto deadline = Clock::now() + kStartTimeout;
  const auto retry_deadline = Clock::now() + kPredecessorTimeout;
  for (;;) {
    const std::streamoff log_start = FileSize(log_path);
    CUB_ASSIGN_OR_RETURN(Attempt attempt,
                         StartOnce(cmd, cred, pgdata, log_path, admin_conninfo, deadline));
    if (!attempt.exit_status) return attempt.pid;
    std::ifstream in(log_path, std::ios::binary);
    in.seekg(log_start);
    const std::string attempt_log((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
    if (!Transient(attempt_log, pgdata) || Clock::now() >= retry_deadline) {
      return absl::UnavailableError(absl::StrCat("embedded PostgreSQL: the server in ", pgdata, " ",
                                                 DescribeExit(*attempt.exit_status), "\n",
                                                 LogTail(log_path, log_start)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
}

}  // namespace

absl::StatusOr<std::unique_ptr<EmbeddedPostgres>> EmbeddedPostgres::Start(std::string data_dir) {
  return Start(std::move(data_dir), Options());
}

absl::StatusOr<std::unique_ptr<EmbeddedPostgres>> EmbeddedPostgres::Start(std::string data_dir,
                                                                          const Options& options) {
  std::error_code ec;
  if (data_dir.empty()) return absl::InvalidArgumentError("embedded PostgreSQL: empty data dir");
  data_dir = fs::absolute(data_dir, ec).lexically_normal().string();
  while (data_dir.size() > 1 && data_dir.back() == '/') data_dir.pop_back();

  CUB_ASSIGN_OR_RETURN(auto bin_dir, FindBinDir());
  CUB_ASSIGN_OR_RETURN(const Credentials& cred, RunAsCredentials());
  const std::string locale = ChooseLocale();
  CUB_RETURN_IF_ERROR(PrepareDataDir(data_dir, cred));

  const std::string pgdata = data_dir + "/pgdata";
  const std::string log_path = data_dir + "/postgres.log";
  if (FileSize(log_path) > static_cast<std::streamoff>(kLogRotateBytes)) {
    fs::rename(log_path, log_path + ".1", ec);
  }

  // The socket directory.
  std::string sock_dir = data_dir + "/sock";
  const std::string socket_file = absl::StrCat("/.s.PGSQL.", kPort);
  if (sock_dir.size() + socket_file.size() > kMaxSocketPath) {
    sock_dir = "/tmp/cub-pg-" + Fnv1aHex(data_dir);
  }
  CUB_RETURN_IF_ERROR(EnsurePrivateDir(sock_dir, cred));
  CUB_RETURN_IF_ERROR(
      PrepareCluster(bin_dir, data_dir, pgdata, cred, locale, options.durable, log_path));

  const std::string admin_conninfo =
      absl::StrCat("host=", ConninfoQuote(sock_dir), " port=", kPort, " user=", kSuperuser,
                   " dbname=postgres connect_timeout=5");
  CUB_ASSIGN_OR_RETURN(const pid_t pid,
                       RunServer(ServerCommand(bin_dir, pgdata, sock_dir, options, cred, locale),
                                 cred, pgdata, log_path, admin_conninfo));
  if (absl::Status s = EnsureDatabase(admin_conninfo); !s.ok()) {
    StopChild(pid);
    return s;
  }
  std::string base = absl::StrCat("postgresql:///", kDatabase, "?host=", PercentEncode(sock_dir),
                                  "&port=", kPort, "&user=");
  return std::unique_ptr<EmbeddedPostgres>(
      new EmbeddedPostgres(std::move(data_dir), base, base + kSuperuser, pid));
}

EmbeddedPostgres::~EmbeddedPostgres() { StopChild(pid_); }

std::string EmbeddedPostgres::UrlAs(const std::string& role) const {
  return base_url_ + PercentEncode(role);
}

std::string DefaultDataDir() {
  if (geteuid() == 0) return "/var/lib/cub";
  if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg != nullptr && xdg[0] == '/') {
    return absl::StrCat(xdg, "/cub");
  }
  std::string home;
  if (const char* env = std::getenv("HOME"); env != nullptr && *env != '\0') {
    home = env;
  } else if (const struct passwd* pw = getpwuid(getuid()); pw != nullptr) {
    home = pw->pw_dir;
  }
  return absl::StrCat(home, "/.local/share/cub");
}

}  // namespace cub::store
