// Kernel throughput: RMSNorm and LayerNorm, forward and backward, one row of d = 64, 4096 and 1,048,576.
// GB/s counts 4 bytes for every float array a kernel streams through, the same counts scripts/bench.mjs uses
// for plain JS (BYTES_PER_ELEMENT), so the columns compare:
//   rmsnorm_forward    16 = x, g, y, plus the second read of x (sum of squares, then scale)
//   layernorm_forward  20 = x, gamma, beta, y, plus a second read of x
//   rmsnorm_backward   28 = x, dy, g read; dx and dg read and written (+=)
//   layernorm_backward 32 = x, dy, gamma read; dx and dgamma read and written; dbeta written (its += read
//                           would make it 36; 32 is what bench.mjs uses)
// The second passes over x, dy and the weights in the backwards are not counted (at d <= 4096 they hit cache).
//
// Arrays are 64-byte aligned: Emscripten's malloc aligns to 8 bytes only, and a 16-byte load that straddles a
// cache line costs about 10% at d = 4096, which would make native and WASM differ for a reason unrelated to
// the code. Every kernel is run for a while before it is timed, so that V8 has tiered it up from its baseline
// compiler (Liftoff) to the optimizing one (TurboFan), as it would be in a page that calls it repeatedly.
#include <cmath>
#include <cstdlib>
#include <memory>

#include "bench.hpp"
#include "kernels/norms.hpp"

namespace rl::bench {

namespace {

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float[], FreeDeleter>;

Buffer aligned_buffer(int n) {
  const std::size_t bytes = (static_cast<std::size_t>(n) * sizeof(float) + 63) / 64 * 64;
  return Buffer(static_cast<float*>(std::aligned_alloc(64, bytes)));
}

Buffer filled(int n, double phase, double scale, double offset) {
  Buffer v = aligned_buffer(n);
  for (int i = 0; i < n; ++i) v[i] = static_cast<float>(offset + scale * std::sin(i * 12.9898 + phase));
  return v;
}

Buffer zeros(int n) { return filled(n, 0.0, 0.0, 0.0); }

// Runs fn for at least 50 ms.
template <class Fn>
void warm_up(Fn&& fn) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  while (std::chrono::duration<double>(clock::now() - start).count() < 0.05) fn();
}

template <class Fn>
double seconds_per_call(Fn&& fn) {
  warm_up(fn);
  return median_seconds_per_call(fn);
}

void report_throughput(const char* name, int d, double bytes_per_element, double seconds) {
  report(name, d, "GB/s", bytes_per_element * d / seconds / 1e9);
}

}  // namespace

void run_kernel_benchmarks() {
  const float eps = 1e-5f;
  for (int d : {64, 4096, 1 << 20}) {
    const Buffer x = filled(d, 0.0, 2.0, 0.0), g = filled(d, 1.0, 0.1, 1.0), beta = filled(d, 2.0, 0.5, 0.0),
                 dy = filled(d, 3.0, 1.0, 0.0);
    const Buffer y = zeros(d), dx = zeros(d), dg = zeros(d), dbeta = zeros(d);
    float rstd = 0.0f, mean = 0.0f;

    report_throughput("rmsnorm_forward", d, 16, seconds_per_call([&] {
                        rmsnorm_forward(y.get(), &rstd, x.get(), g.get(), 1, d, eps, 0.0f);
                        do_not_optimize(y.get());
                      }));
    // the gradients accumulate call after call; they grow linearly and stay far from overflow
    report_throughput("rmsnorm_backward", d, 28, seconds_per_call([&] {
                        rmsnorm_backward(dx.get(), dg.get(), dy.get(), x.get(), &rstd, g.get(), 1, d, 0.0f);
                        do_not_optimize(dx.get());
                      }));
    report_throughput("layernorm_forward", d, 20, seconds_per_call([&] {
                        layernorm_forward(y.get(), &mean, &rstd, x.get(), g.get(), beta.get(), 1, d, eps);
                        do_not_optimize(y.get());
                      }));
    report_throughput("layernorm_backward", d, 32, seconds_per_call([&] {
                        layernorm_backward(dx.get(), dg.get(), dbeta.get(), dy.get(), x.get(), &mean, &rstd, g.get(), 1,
                                           d);
                        do_not_optimize(dx.get());
                      }));
  }
}

}  // namespace rl::bench
