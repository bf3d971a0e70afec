// The layer-drop sweep (checkpointClaims.dropLayers) on a checkpoint with Qwen2.5-0.5B-Instruct's exact
// shapes and random BF16 weights (made here, in memory, and written to a temporary file for the two-worker run),
// 16 tokens, one worker, two reading every run and two with the weights resident: the sweep's wall and CPU time
// beside one run's (both after a first run, the file then in the OS cache) and the bytes it read. The sweep is one
// run whose dropped layers are variants (each leaves the full run's stream at its layer), so every layer is read
// once and multiplies all the streams that go through it: L + L (L - 1) / 2 layers' rows and one head pass; the
// target is at most 6 runs' time for 24 layers. Prints JSON lines; scripts/bench.mjs runs it and prints the table.
//   node bench/checkpoint-drop-sweep.mjs [--shapes=llama-3.1-8b]     after `node scripts/build.mjs`
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointClaims, load } from '../dist/lib/residual-lab.js';
import { encodeFloats, writeSafetensors } from '../tests/fixtures/checkpoints/write-safetensors.mjs';
import { makeConfig, tensorShapes } from '../tests/fixtures/checkpoints/make-checkpoints.mjs';
import { QWEN_SEED } from '../content/measurements.js';
import { SHAPES, cachedCheckpoint } from './synthetic-checkpoints.mjs';

// --shapes=llama-3.1-8b: the 8B-shaped files of bench/synthetic-checkpoints.mjs instead (two workers, read every
// run: over any default budget)
const key = process.argv.find((a) => a.startsWith('--shapes='))?.slice('--shapes='.length) ?? 'qwen2.5-0.5b';
const qwen = key === 'qwen2.5-0.5b';
const config = qwen ? { ...makeConfig('qwen2', { tied: true }), ...QWEN_SEED.config } : SHAPES[key].config;
// each tensor tiled from 4096 random BF16 values of scale 1 / sqrt(fan-in) (norm weights near 1): cheap to
// make, and the numbers stay finite through 24 layers
const entries = [...(qwen ? tensorShapes('qwen2', config) : [])].map(([name, shape]) => {
  const n = shape.reduce((a, b) => a * b, 1);
  const scale = /norm/.test(name) ? 0.1 : 1 / Math.sqrt(shape.at(-1));
  const table = new Uint16Array(
    encodeFloats(
      'BF16',
      Float32Array.from({ length: 4096 }, () => (/norm/.test(name) ? 1 : 0) + scale * (2 * Math.random() - 1) * 1.7),
    ).buffer,
  );
  const out = new Uint16Array(n);
  for (let i = 0; i < n; i++) out[i] = table[(i * 2654435761) >>> 20];
  return { name, dtype: 'BF16', shape, bytes: new Uint8Array(out.buffer) };
});
const dir = mkdtempSync(join(tmpdir(), 'rl-sweep-'));
if (qwen) writeFileSync(join(dir, 'model.safetensors'), writeSafetensors(entries, { format: 'pt' }));
entries.length = 0;
const lab = await load({ flavour: 'simd' });
const files = qwen
  ? { 'config.json': JSON.stringify(config), 'model.safetensors': join(dir, 'model.safetensors') }
  : await cachedCheckpoint(key);
const { vocab_size: V, num_hidden_layers: L } = config;
const ids = Array.from({ length: 16 }, (_, i) => (i * 7919) % V);
const emit = (row) => console.log(JSON.stringify(row));

const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const setups = qwen ? [{ workers: 1 }, { workers: 2, residencyBudget: 0 }, { workers: 2 }] : [{ workers: 2 }];
for (const { workers, residencyBudget } of setups) {
  const ckpt = await lab.openCheckpoint(files, { workers, residencyBudget });
  try {
    await ckpt.run(ids); // the first run reads the file into the OS cache and tiers the kernels up
    let t0 = performance.now();
    let c0 = cpuSeconds();
    await ckpt.run(ids);
    const run = (performance.now() - t0) / 1000;
    const runCpu = cpuSeconds() - c0;
    let readBytes = 0;
    const counted = {
      forward: ckpt.forward,
      normWeights: () => ckpt.normWeights(),
      run: async (input, options) => {
        const r = await ckpt.run(input, options);
        readBytes += r.reads.bytes;
        return r;
      },
    };
    t0 = performance.now();
    c0 = cpuSeconds();
    const sweep = await checkpointClaims.dropLayers(counted, ids);
    const seconds = (performance.now() - t0) / 1000;
    const sweepCpu = cpuSeconds() - c0;
    if (!sweep.layers.every((l) => Number.isFinite(l.kl))) throw new Error('a non-finite KL divergence');
    emit({
      shape: key,
      workers: ckpt.workers,
      mode: ckpt.residency().mode,
      layers: L,
      run,
      sweep: seconds,
      runs: seconds / run,
      runCpu,
      sweepCpu,
      cpuRuns: sweepCpu / runCpu,
      readGB: readBytes / 1e9,
      target: qwen ? 6 : 2.5, // at most this many runs' time: Qwen's 24 layers, the 8B's 32 read every run
    });
  } finally {
    ckpt.dispose();
  }
}
rmSync(dir, { recursive: true, force: true });
