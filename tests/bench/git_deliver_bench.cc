// Benchmark of the Git provider's batch Deliver (lib/targets/git.cc): SPACES Spaces x FILES files
// of about 1 KB of YAML each, delivered in ONE Deliver to a local bare repository, then a second
// Deliver changing one line in every file, then 100 Deliver calls of one Space's Release each
// (the median is printed). Each object sink of lib/targets/git_objects.h is
// measured on a fresh repository. The baseline is git itself: the same files written into a
// scratch work tree, then `git add -A && git commit` (only that command is timed), twice in the
// same way. Note that git, by default, does not fsync loose objects; the provider makes its
// objects and ref durable before it returns.
//
// Prints wall-clock and CPU times (on a shared machine the CPU time is the steadier figure);
// asserts nothing.
//
//   git_deliver_bench [SPACES [FILES [WHAT]]]     (default 1000 10 all; WHAT: pack, worktree,
//   loose, git)

#include <stdlib.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/targets/git_objects.h"
#include "lib/targets/provider.h"

namespace {

namespace fs = std::filesystem;
using cub::targets::Delivery;
using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// CPU time (user + system) of this process, or of its waited-for children.
double CpuSeconds(int who) {
  rusage u{};
  getrusage(who, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// About 1 KB of a Deployment, different per Space and Unit; `replicas` is the line that changes.
std::string Yaml(const std::string& space, int unit, int replicas) {
  std::string name = "unit-" + std::to_string(unit);
  std::string y = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name +
                  "\n  namespace: " + space + "\n  labels:\n    app: " + name +
                  "\n    space: " + space + "\nspec:\n  replicas: " + std::to_string(replicas) +
                  "\n  selector:\n    matchLabels:\n      app: " + name +
                  "\n  template:\n    metadata:\n      labels:\n        app: " + name +
                  "\n    spec:\n      containers:\n      - name: " + name +
                  "\n        image: registry.example.com/shop/" + name + ":1.4." +
                  std::to_string(unit) + "\n        ports:\n        - containerPort: 8080\n" +
                  "        env:\n";
  for (int i = 0; y.size() < 1000; ++i) {
    y += "        - name: SETTING_" + std::to_string(i) + "\n          value: \"" + space + "-" +
         std::to_string(unit * 31 + i) + "\"\n";
  }
  return y;
}

std::vector<Delivery> Batch(int spaces, int files, int replicas, int release_num) {
  std::vector<Delivery> batch;
  const int64_t now = static_cast<int64_t>(time(nullptr));
  for (int s = 0; s < spaces; ++s) {
    Delivery d;
    d.space = "space-" + std::to_string(s);
    d.release_id = "00000000-0000-4000-8000-" + std::to_string(100000000000 + s) + "-" +
                   std::to_string(release_num);
    d.release_num = release_num;
    d.change_order = "base/bench";
    d.bundle_digest = "sha256:" + std::string(64, 'a');
    d.author = "bench";
    d.author_email = "bench@example.com";
    d.published_at = now;
    for (int u = 0; u < files; ++u) {
      d.files.push_back({"unit-" + std::to_string(u) + ".yaml", Yaml(d.space, u, replicas)});
    }
    batch.push_back(std::move(d));
  }
  return batch;
}

int Sh(const std::string& cmd) { return system(cmd.c_str()); }

// The size of the files under `dir`, in MB.
double DiskMegabytes(const std::string& dir) {
  uintmax_t total = 0;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::end(it);
       it.increment(ec)) {
    if (it->is_regular_file(ec)) total += it->file_size(ec);
  }
  return total / 1e6;
}

// `bare`: a bare repository made beforehand; otherwise the provider makes a non-bare one and
// checks each commit out into its work tree.
void BenchProvider(const std::string& label, const std::string& dir, int spaces, int files,
                   bool bare) {
  static int n = 0;
  const std::string repo = dir + "/repo-" + std::to_string(++n);
  if (bare) Sh("git init -q --bare -b main '" + repo + "'");
  cub::targets::ProviderEnv env;
  env.work_dir = dir + "/work";
  auto p = cub::targets::MakeProvider("Git", {{"repository", repo}}, env);
  if (!p.ok()) {
    std::fprintf(stderr, "%s\n", p.status().ToString().c_str());
    exit(1);
  }
  for (int round = 1; round <= 2; ++round) {
    std::vector<Delivery> batch = Batch(spaces, files, round + 1, round);
    Clock::time_point t = Clock::now();
    double cpu = CpuSeconds(RUSAGE_SELF);
    auto r = (*p)->Deliver(batch);
    double s = Seconds(t);
    cpu = CpuSeconds(RUSAGE_SELF) - cpu;
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      exit(1);
    }
    std::printf("  %-28s round %d: %7.3f s wall, %6.3f s CPU, repository %5.1f MB (commit %.12s)\n",
                label.c_str(), round, s, cpu, DiskMegabytes(repo), r->new_commit.c_str());
  }
  // Then Releases one Space at a time, as a per-Space publish delivers them: the median.
  std::vector<double> walls, cpus;
  std::vector<Delivery> singles = Batch(std::min(spaces, 100), files, 9, 3);
  for (Delivery& d : singles) {
    Clock::time_point t = Clock::now();
    double cpu = CpuSeconds(RUSAGE_SELF);
    auto r = (*p)->Deliver({d});
    walls.push_back(Seconds(t));
    cpus.push_back(CpuSeconds(RUSAGE_SELF) - cpu);
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      exit(1);
    }
  }
  std::sort(walls.begin(), walls.end());
  std::sort(cpus.begin(), cpus.end());
  std::printf("  %-28s one Space (%zu x): median %.1f ms wall, %.1f ms CPU\n", label.c_str(),
              walls.size(), 1e3 * walls[walls.size() / 2], 1e3 * cpus[cpus.size() / 2]);
}

void BenchGit(const std::string& dir, int spaces, int files) {
  const std::string repo = dir + "/git-cli";
  Sh("git init -q -b main '" + repo + "'");
  for (int round = 1; round <= 2; ++round) {
    for (const Delivery& d : Batch(spaces, files, round + 1, round)) {
      fs::create_directories(repo + "/" + d.space);
      for (const auto& f : d.files) {
        std::ofstream(repo + "/" + d.space + "/" + f.name, std::ios::binary) << f.content;
      }
    }
    Clock::time_point t = Clock::now();
    double cpu = CpuSeconds(RUSAGE_CHILDREN);
    int rc = Sh("cd '" + repo + "' && git -c gc.auto=0 add -A && git -c gc.auto=0 -c user.name=b " +
                "-c user.email=b@b commit -q -m bench");
    double s = Seconds(t);
    cpu = CpuSeconds(RUSAGE_CHILDREN) - cpu;
    if (rc != 0) {
      std::fprintf(stderr, "git commit failed\n");
      exit(1);
    }
    std::printf("  %-28s round %d: %7.3f s wall, %6.3f s CPU\n", "git add -A && git commit", round,
                s, cpu);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int spaces = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int files = argc > 2 ? std::atoi(argv[2]) : 10;
  const std::string what = argc > 3 ? argv[3] : "all";
  char tmpl[] = "/tmp/git-deliver-bench.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) return 1;
  const std::string dir = tmpl;
  std::printf("git_deliver_bench: %d spaces x %d files of ~1 KB (%d files) in one Deliver\n",
              spaces, files, spaces * files);
  using cub::targets::internal::ObjectSink;
  if (what == "all" || what == "pack") {
    cub::targets::internal::SetDefaultObjectSink(ObjectSink::kPack);
    BenchProvider("Deliver, one pack", dir, spaces, files, true);
  }
  if (what == "all" || what == "worktree") {
    cub::targets::internal::SetDefaultObjectSink(ObjectSink::kPack);
    BenchProvider("Deliver, pack + work tree", dir, spaces, files, false);
  }
  if (what == "all" || what == "loose") {
    cub::targets::internal::SetDefaultObjectSink(ObjectSink::kLooseSyncfs);
    BenchProvider("Deliver, loose + syncfs", dir, spaces, files, true);
  }
  if (what == "all" || what == "git") BenchGit(dir, spaces, files);
  std::error_code ec;
  fs::remove_all(dir, ec);
  return 0;
}
