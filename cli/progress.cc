#include "cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace cub::cli {
namespace {

constexpr char kSpinner[] = {'|', '/', '-', '\\'};
constexpr auto kRedraw = std::chrono::milliseconds(125);

int StderrColumns() {
  winsize ws{};
  if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return 80;
}

// The longest prefix of `s` that is whole UTF-8 characters and at most `max` of them (a
// character counts as one column: close enough for slugs and Stage names).
std::string CutToColumns(const std::string& s, size_t max) {
  size_t chars = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const bool starts_char = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    if (starts_char && chars++ == max) return s.substr(0, i);
  }
  return s;
}

// The line drawn now, if any: PrintFailure stops it before writing (SetBeforeFailure). Lines
// are drawn one at a time, from the command's thread.
std::atomic<TerminalProgress*> active{nullptr};

void StopActive() {
  if (TerminalProgress* p = active.load(); p != nullptr) p->Stop();
}

}  // namespace

bool ProgressWanted(const Env& env) {
  const Printer printer = env.printer();
  return isatty(STDERR_FILENO) == 1 && printer.table() && !printer.quiet() && !env.globals.json;
}

std::string ElapsedText(absl::Duration d) {
  const int64_t tenths = absl::ToInt64Milliseconds(d) / 100;
  if (tenths < 600) return absl::StrFormat("%d.%ds", tenths / 10, tenths % 10);
  const int64_t s = tenths / 10;
  if (s < 3600) return absl::StrFormat("%dm%02ds", s / 60, s % 60);
  return absl::StrFormat("%dh%02dm", s / 3600, (s % 3600) / 60);
}

std::string ProgressLine(int tick, absl::string_view what, absl::Duration elapsed, int columns) {
  std::string line =
      absl::StrCat(std::string(1, kSpinner[tick % 4]), " ", what, " ... ", ElapsedText(elapsed));
  if (columns > 1) line = CutToColumns(line, static_cast<size_t>(columns - 1));
  return line;
}

TerminalProgress::TerminalProgress(bool enabled, std::string what)
    : enabled_(enabled), what_(std::move(what)) {
  if (!enabled_) return;
  active.store(this);
  SetBeforeFailure(&StopActive);
  thread_ = std::thread([this] { Run(); });
}

TerminalProgress::~TerminalProgress() { Stop(); }

void TerminalProgress::Set(std::string what) {
  std::lock_guard<std::mutex> lock(mu_);
  what_ = std::move(what);
}

void TerminalProgress::Stop() {
  if (!thread_.joinable()) return;
  TerminalProgress* self = this;
  if (active.compare_exchange_strong(self, nullptr)) SetBeforeFailure(nullptr);
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
  std::fputs("\r\033[K", stderr);  // erase the line: the result printed next stands alone
  std::fflush(stderr);
}

void TerminalProgress::Run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (int tick = 0; !stop_; ++tick) {
    const std::string line = ProgressLine(tick, what_, absl::Now() - start_, StderrColumns());
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    std::fflush(stderr);
    wake_.wait_for(lock, kRedraw, [this] { return stop_; });
  }
}

}  // namespace cub::cli
