// The cost of one public-API call, copies in and out of the WASM heap included, at d = 4 and d = 4096.
// Prints JSON lines like the C++ benchmark binary; scripts/bench.mjs runs it in its own process.
import { load } from '../dist/lib/residual-lab.js';
import { secondsPerCall } from './seconds-per-call.mjs';

const lab = await load({ flavour: 'simd' });
for (const d of [4, 4096]) {
  const x = Float32Array.from({ length: d }, (_, i) => Math.cos(i));
  const g = new Float32Array(d).fill(1);
  const report = (name, seconds) => console.log(JSON.stringify({ name, d, unit: 'ns', value: seconds * 1e9 }));
  report('api_rmsNorm_call', secondsPerCall(() => lab.rmsNorm(x, g, { eps: 1e-5 })));
  report('api_layerNorm_call', secondsPerCall(() => lab.layerNorm(x, g, null, { eps: 1e-5 })));
}
