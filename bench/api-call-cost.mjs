// The cost of one public-API call, copies in and out of the WASM heap included, at d = 4, 64 and 4096, beside
// plain JavaScript doing the same work: lab.rmsNorm returning a new array, and with `out` (a caller's array reused
// across calls); plain JS writing into a reused array, and into a new one. Prints JSON lines like the C++ benchmark
// binary (value: the median over interleaved samples, min and max their spread); scripts/bench.mjs runs it in
// processes of its own.
// The cases are timed in rounds, one sample of each per round (SAMPLES rounds after a warm-up round), so a slow
// spell of the machine falls on every case alike instead of on whichever ran then.
import { load } from '../dist/lib/residual-lab.js';
import { rmsNormForward } from '../scripts/lib/plain-js-kernels.mjs';

const SAMPLES = 15;
const SAMPLE_MS = 2;

const lab = await load({ flavour: 'simd' });
const options = { eps: 1e-5 };
const cases = [4, 64, 4096].flatMap((d) => {
  const x = Float32Array.from({ length: d }, (_, i) => Math.cos(i));
  const g = Float32Array.from({ length: d }, (_, i) => 1 + Math.sin(i) / 10);
  const out = new Float32Array(d);
  return [
    { name: 'api_rmsNorm_call', d, call: () => lab.rmsNorm(x, g, options) },
    { name: 'api_rmsNorm_out_call', d, call: () => lab.rmsNorm(x, g, options, out) },
    { name: 'api_layerNorm_call', d, call: () => lab.layerNorm(x, g, null, options) },
    { name: 'api_layerNorm_out_call', d, call: () => lab.layerNorm(x, g, null, options, out) },
    { name: 'js_rmsNorm_out_call', d, call: () => rmsNormForward(out, x, g, 1e-5) },
    {
      name: 'js_rmsNorm_call',
      d,
      call: () => {
        const y = new Float32Array(d);
        rmsNormForward(y, x, g, 1e-5);
        return y;
      },
    },
  ];
});

/** Calls per sample so that one sample takes about SAMPLE_MS. */
function calibrate(call) {
  for (let reps = 1; ; reps *= 2) {
    const t0 = performance.now();
    for (let i = 0; i < reps; i++) call();
    if (performance.now() - t0 > SAMPLE_MS || reps > 1 << 26) return reps;
  }
}

function sample({ call, reps }) {
  const t0 = performance.now();
  for (let i = 0; i < reps; i++) call();
  return ((performance.now() - t0) * 1e6) / reps; // ns per call
}

// 100 ms of warm-up each, so that V8 has optimized the JS and the WASM being timed, then one untimed round.
for (const c of cases) {
  for (const start = performance.now(); performance.now() - start < 100;) c.call();
  c.reps = calibrate(c.call);
  c.samples = [];
}
for (const c of cases) sample(c);
for (let round = 0; round < SAMPLES; round++) for (const c of cases) c.samples.push(sample(c));

for (const { name, d, samples } of cases) {
  const sorted = samples.slice().sort((a, b) => a - b);
  console.log(
    JSON.stringify({ name, d, unit: 'ns', value: sorted[sorted.length >> 1], min: sorted[0], max: sorted.at(-1) }),
  );
}
