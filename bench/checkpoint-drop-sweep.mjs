// The layer-drop sweep (checkpointExperiments.dropLayers) on the Qwen2.5-0.5B-shaped synthetic checkpoint of
// bench/synthetic-checkpoints.mjs, 16 tokens, one worker and two: the sweep's wall time beside one run's (both
// after a first run, the file then in the OS cache). The sweep reuses the full run's stream before each dropped
// layer, so it computes 1 + (L - 1) / 2 runs' worth of layers and L + 1 output heads; the target is at most
// L / 2 + 2 runs (14 for 24 layers). Prints JSON lines; scripts/bench.mjs runs it and prints the table.
//   node bench/checkpoint-drop-sweep.mjs     after `node scripts/build.mjs`
import { SHAPES, cachedCheckpoint } from './synthetic-checkpoints.mjs';
import { checkpointExperiments, load } from '../dist/lib/residual-lab.js';

const key = 'qwen2.5-0.5b';
const lab = await load({ flavour: 'simd' });
const files = await cachedCheckpoint(key);
const { vocab_size: V, num_hidden_layers: L } = SHAPES[key].config;
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
