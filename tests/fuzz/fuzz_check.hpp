// What a fuzz target does when an invariant fails: print what and why, then abort, so that libFuzzer records the
// input as a crash (an artifact it can replay) and the run fails. assert() would vanish under -DNDEBUG (Release).
#pragma once
#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, ...)                                                                  \
  do {                                                                                         \
    if (!(cond)) {                                                                             \
      std::fprintf(stderr, "\nFUZZ_CHECK failed at %s:%d: %s\n  ", __FILE__, __LINE__, #cond); \
      std::fprintf(stderr, __VA_ARGS__);                                                       \
      std::fprintf(stderr, "\n");                                                              \
      std::abort();                                                                            \
    }                                                                                          \
  } while (0)
