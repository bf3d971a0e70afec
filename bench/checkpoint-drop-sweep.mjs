// The layer-drop sweep (checkpointExperiments.dropLayers) on a checkpoint with Qwen2.5-0.5B-Instruct's exact
// shapes and random BF16 weights (made here, in memory, and written to a temporary file for the two-worker run),
// 16 tokens, one worker and two: the sweep's wall time beside one run's (both
// after a first run, the file then in the OS cache). The sweep reuses the full run's stream before each dropped
// layer, so it computes 1 + (L - 1) / 2 runs' worth of layers and L + 1 output heads; the target is at most
// L / 2 + 2 runs (14 for 24 layers). Prints JSON lines; scripts/bench.mjs runs it and prints the table.
//   node bench/checkpoint-drop-sweep.mjs     after `node scripts/build.mjs`
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkpointExperiments, load } from '../dist/lib/residual-lab.js';
import { encodeFloats, writeSafetensors } from '../tests/fixtures/checkpoints/write-safetensors.mjs';
import { makeConfig, tensorShapes } from '../tests/fixtures/checkpoints/make-checkpoints.mjs';
import { QWEN_SEED } from '../content/measurements.js';

const key = 'qwen2.5-0.5b';
const config = { ...makeConfig('qwen2', { tied: true }), ...QWEN_SEED.config };
// each tensor tiled from 4096 random BF16 values of scale 1 / sqrt(fan-in) (norm weights near 1): cheap to
// make, and the numbers stay finite through 24 layers
const entries = [...tensorShapes('qwen2', config)].map(([name, shape]) => {
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
const bytes = writeSafetensors(entries, { format: 'pt' });
entries.length = 0;
const dir = mkdtempSync(join(tmpdir(), 'rl-sweep-'));
writeFileSync(join(dir, 'model.safetensors'), bytes);
const lab = await load({ flavour: 'simd' });
const files = { 'config.json': JSON.stringify(config), 'model.safetensors': join(dir, 'model.safetensors') };
const { vocab_size: V, num_hidden_layers: L } = config;
const ids = Array.from({ length: 16 }, (_, i) => (i * 7919) % V);
const emit = (row) => console.log(JSON.stringify(row));

for (const workers of [1, 2]) {
  const ckpt = await lab.openCheckpoint(files, { workers });
  try {
    await ckpt.run(ids); // the first run reads the file into the OS cache and tiers the kernels up
    let t0 = performance.now();
    await ckpt.run(ids);
    const run = (performance.now() - t0) / 1000;
    t0 = performance.now();
    const sweep = await checkpointExperiments.dropLayers(ckpt, ids);
    const seconds = (performance.now() - t0) / 1000;
    if (!sweep.layers.every((l) => Number.isFinite(l.kl))) throw new Error('a non-finite KL divergence');
    emit({ shape: key, workers: ckpt.workers, layers: L, run, sweep: seconds, runs: seconds / run, target: L / 2 + 2 });
  } finally {
    ckpt.dispose();
  }
}
rmSync(dir, { recursive: true, force: true });
