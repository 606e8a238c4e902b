// CHECK_PROPERTY for the fuzz targets: a property that must hold for every input. On failure
// it names the property and where it is, then aborts, which libFuzzer reports as a crash with
// the input saved (and the replay build as a failed test).
#ifndef CUB_TESTS_FUZZ_CHECK_PROPERTY_H_
#define CUB_TESTS_FUZZ_CHECK_PROPERTY_H_

#include <cstdio>
#include <cstdlib>

namespace cub::fuzz {

[[noreturn]] inline void PropertyFailed(const char* cond, const char* why, const char* file,
                                        int line) {
  std::fprintf(stderr, "%s:%d: property failed: %s%s%s%s\n", file, line, cond, *why ? " (" : "",
               why, *why ? ")" : "");
  std::abort();
}

}  // namespace cub::fuzz

#define CHECK_PROPERTY_WHY(cond, why) \
  ((cond) ? (void)0 : ::cub::fuzz::PropertyFailed(#cond, why, __FILE__, __LINE__))
#define CHECK_PROPERTY(cond) CHECK_PROPERTY_WHY(cond, "")

#endif  // CUB_TESTS_FUZZ_CHECK_PROPERTY_H_
