// The cost of one public-API call, copies in and out of the WASM heap included, at d = 4 and d = 4096.
// Prints JSON lines like the C++ benchmark binary; scripts/bench.mjs runs it in processes of its own.
// Every case is timed twice and the second round is reported: in the first round the case timed first in a
// fresh process measured up to 4x slower (V8 still compiling in the background), whichever case it was.
import { load } from '../dist/lib/residual-lab.js';
import { secondsPerCall } from './seconds-per-call.mjs';

const lab = await load({ flavour: 'simd' });
const cases = [4, 4096].flatMap((d) => {
  const x = Float32Array.from({ length: d }, (_, i) => Math.cos(i));
  const g = new Float32Array(d).fill(1);
  return [
    { name: 'api_rmsNorm_call', d, call: () => lab.rmsNorm(x, g, { eps: 1e-5 }) },
    { name: 'api_layerNorm_call', d, call: () => lab.layerNorm(x, g, null, { eps: 1e-5 }) },
  ];
});
for (const { call } of cases) secondsPerCall(call);
for (const { name, d, call } of cases) {
  console.log(JSON.stringify({ name, d, unit: 'ns', value: secondsPerCall(call) * 1e9 }));
}
