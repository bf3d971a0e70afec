// Benchmark entry point: `residual_lab_bench [kernels|decoder]` prints JSON lines (see bench.hpp).
#include <cstring>

#include "bench.hpp"

int main(int argc, char** argv) {
  const char* only = argc > 1 ? argv[1] : "";
  auto wanted = [&](const char* group) { return !*only || std::strcmp(only, group) == 0; };
  if (wanted("kernels")) rl::bench::run_kernel_benchmarks();
  if (wanted("decoder")) rl::bench::run_decoder_benchmarks();
  return 0;
}
