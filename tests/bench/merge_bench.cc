// Benchmark of "compute a change once, apply it many times" (DESIGN.md section 4): one
// upstream change (an image bump and an added env var) computed once, then merged into 10,000
// downstream variants of a Deployment, each with edits of its own (replicas, an env var, a
// label, comments). Each downstream is parsed once, merged and emitted, as a promotion does.
//
// Prints CPU time (std::clock) per phase and in total; asserts nothing.
//
//   merge_bench [COUNT]     (default 10000)

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "lib/config/diff.h"
#include "lib/config/merge.h"
#include "lib/config/yaml.h"

namespace {

using cub::config::Change;
using cub::config::MergeResult;
using cub::config::Node;

constexpr char kBase[] = R"(apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
  labels:
    app: web
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
        - name: web
          image: nginx:1.25.3
          ports:
            - containerPort: 8080
              name: http
          env:
            - name: LOG_LEVEL
              value: info
            - name: WORKERS
              value: "4"
          resources:
            limits:
              cpu: 500m
              memory: 128Mi
          volumeMounts:
            - name: config
              mountPath: /etc/web
      volumes:
        - name: config
          configMap:
            name: web-config
)";

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  if (at == std::string::npos) {
    std::fprintf(stderr, "bench text lacks \"%s\"\n", from.c_str());
    std::exit(1);
  }
  return text.replace(at, from.size(), to);
}

std::vector<Node> Parse(const std::string& text) {
  absl::StatusOr<std::vector<Node>> docs = cub::config::ParseYaml(text);
  if (!docs.ok()) {
    std::fprintf(stderr, "parse: %s\n", std::string(docs.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(docs);
}

// Downstream variant i: the base with its own replicas, env var, label and comments.
std::string Downstream(int i) {
  std::string text = Replace(kBase, "  replicas: 3\n",
                             "  replicas: " + std::to_string(2 + i % 20) + "  # sized for cell " +
                                 std::to_string(i) + "\n");
  text = Replace(
      text, "    app: web\nspec:", "    app: web\n    cell: cell-" + std::to_string(i) + "\nspec:");
  text = Replace(text, "          resources:\n",
                 "            # this variant's own setting\n"
                 "            - name: CELL_ID\n"
                 "              value: \"" +
                     std::to_string(i) + "\"\n          resources:\n");
  return "# variant " + std::to_string(i) + "\n" + text;
}

double Seconds(std::clock_t from, std::clock_t to) {
  return static_cast<double>(to - from) / CLOCKS_PER_SEC;
}

}  // namespace

int main(int argc, char** argv) {
  const int count = argc > 1 ? std::atoi(argv[1]) : 10000;
  const std::string end_text =
      Replace(Replace(kBase, "nginx:1.25.3", "nginx:1.26.0"), "          resources:\n",
              "            - name: FEATURE_X\n"
              "              value: \"on\"\n"
              "          resources:\n");
  const std::vector<Node> base = Parse(kBase);
  const std::vector<Node> end = Parse(end_text);

  std::vector<std::string> texts;
  texts.reserve(count);
  size_t bytes = 0;
  for (int i = 0; i < count; ++i) {
    texts.push_back(Downstream(i));
    bytes += texts.back().size();
  }

  std::clock_t t0 = std::clock();
  const int kComputeRuns = 1000;
  for (int i = 0; i < kComputeRuns - 1; ++i) cub::config::ComputeChange(base, end);
  const Change change = cub::config::ComputeChange(base, end);
  std::clock_t t1 = std::clock();
  std::printf(
      "merge_bench: %d downstream Deployments, %.0f bytes each on average; change of %zu "
      "mutations\n",
      count, static_cast<double>(bytes) / count, cub::config::Mutations(change).size());
  std::printf("  ComputeChange (once per upstream):   %8.2f us\n",
              Seconds(t0, t1) * 1e6 / kComputeRuns);

  // One pass, as a promotion runs it: parse, merge, emit each downstream.
  size_t conflicts = 0, changed = 0, out_bytes = 0;
  t0 = std::clock();
  for (int i = 0; i < count; ++i) {
    MergeResult r = cub::config::Apply(change, Parse(texts[i]));
    conflicts += r.conflicts.size();
    changed += r.changed ? 1 : 0;
    out_bytes += cub::config::EmitYaml(r.documents).size();
  }
  t1 = std::clock();
  const double total = Seconds(t0, t1);

  // The same work phase by phase.
  std::vector<std::vector<Node>> parsed;
  parsed.reserve(count);
  std::clock_t p0 = std::clock();
  for (int i = 0; i < count; ++i) parsed.push_back(Parse(texts[i]));
  std::clock_t p1 = std::clock();
  std::vector<MergeResult> merged;
  merged.reserve(count);
  for (int i = 0; i < count; ++i)
    merged.push_back(cub::config::Apply(change, std::move(parsed[i])));
  std::clock_t p2 = std::clock();
  size_t emitted = 0;
  for (int i = 0; i < count; ++i) emitted += cub::config::EmitYaml(merged[i].documents).size();
  std::clock_t p3 = std::clock();

  std::printf("  parse:  %7.3f s  %6.2f us/doc\n", Seconds(p0, p1), Seconds(p0, p1) * 1e6 / count);
  std::printf("  apply:  %7.3f s  %6.2f us/doc\n", Seconds(p1, p2), Seconds(p1, p2) * 1e6 / count);
  std::printf("  emit:   %7.3f s  %6.2f us/doc\n", Seconds(p2, p3), Seconds(p2, p3) * 1e6 / count);
  std::printf("  total (parse + apply + emit, one pass): %.3f s CPU, %.2f us/doc\n", total,
              total * 1e6 / count);
  std::printf("  %zu changed, %zu conflicts, %zu bytes out (%zu)\n", changed, conflicts, out_bytes,
              emitted);
  return 0;
}
