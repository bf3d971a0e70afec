// Shared pieces of the benchmark binary. It is built natively and with em++ (SIMD and scalar) from the same
// source; scripts/bench.mjs runs all three and prints them side by side. Each measurement is one JSON line:
//   {"name":"rmsnorm_forward","d":4096,"unit":"GB/s","value":83.1}
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace rl::bench {

// Median seconds per call of fn(), each sample long enough (>= 2 ms) to drown the clock's resolution.
template <class Fn>
double median_seconds_per_call(Fn&& fn, int samples = 15) {
  using clock = std::chrono::steady_clock;
  int reps = 1;
  for (;;) {  // calibrate
    auto t0 = clock::now();
    for (int i = 0; i < reps; ++i) fn();
    double s = std::chrono::duration<double>(clock::now() - t0).count();
    if (s > 2e-3 || reps > (1 << 26)) break;
    reps *= 2;
  }
  std::vector<double> per_call;
  for (int k = 0; k < samples; ++k) {
    auto t0 = clock::now();
    for (int i = 0; i < reps; ++i) fn();
    per_call.push_back(std::chrono::duration<double>(clock::now() - t0).count() / reps);
  }
  std::nth_element(per_call.begin(), per_call.begin() + samples / 2, per_call.end());
  return per_call[samples / 2];
}

inline void report(const std::string& name, long long size, const char* unit, double value) {
  std::printf("{\"name\":\"%s\",\"d\":%lld,\"unit\":\"%s\",\"value\":%.4g}\n", name.c_str(), size, unit, value);
  std::fflush(stdout);
}

// Keeps the optimizer from deleting a benchmarked computation.
inline void do_not_optimize(const void* p) { asm volatile("" : : "r"(p) : "memory"); }

// Each group registers itself here; bench_main.cpp runs those whose name matches argv[1] (or all).
void run_kernel_benchmarks();   // bench/kernels_bench.cpp
void run_decoder_benchmarks();  // bench/decoder_bench.cpp

}  // namespace rl::bench
