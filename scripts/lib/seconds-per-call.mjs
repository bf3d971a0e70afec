// The JS side's timing scheme, the same as bench/bench.hpp's: warm-up, calibrated repetitions, median.
// Median seconds per call, each sample >= 2 ms (the same scheme as bench/bench.hpp), after 100 ms of warm-up
// so that V8 has optimized both the JS and the WASM code being timed.
export function secondsPerCall(fn, samples = 15) {
  for (const start = performance.now(); performance.now() - start < 100;) fn();
  let reps = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    if (performance.now() - t0 > 2 || reps > 1 << 26) break;
    reps *= 2;
  }
  const times = [];
  for (let k = 0; k < samples; k++) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) fn();
    times.push((performance.now() - t0) / 1e3 / reps);
  }
  return times.sort((a, b) => a - b)[samples >> 1];
}
