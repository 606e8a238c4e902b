# Included by the top-level CMakeLists.txt, before any target, when CUB_FUZZ is ON: every
# library is then compiled with AddressSanitizer, UndefinedBehaviorSanitizer and libFuzzer's
# coverage instrumentation (-fsanitize=fuzzer-no-link), so the fuzzers (tests/fuzz/
# CMakeLists.txt) see coverage of, and catch memory errors in, the code they call, not only
# their own file. UBSan does not recover, so that libFuzzer notices and keeps the input.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "CUB_FUZZ=ON needs clang (libFuzzer), not ${CMAKE_CXX_COMPILER_ID}: "
    "configure a separate build directory with -DCMAKE_CXX_COMPILER=clang++-14 "
    "-DCMAKE_C_COMPILER=clang-14, as tests/fuzz/run.sh does")
endif()
set(CUB_SANITIZE_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=undefined
  -fno-omit-frame-pointer)
add_compile_options(${CUB_SANITIZE_FLAGS} -fsanitize=fuzzer-no-link)
add_link_options(-fsanitize=address,undefined)
