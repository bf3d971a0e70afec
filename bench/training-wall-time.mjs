// Wall time of the chapter's trainings in node (WASM SIMD): the warmup race with its default options, run in one
// thread and split over worker_threads workers (one per core, at most the race's four runs, as the page splits it
// over lab workers: splitWarmupOptions / mergeWarmupResults), and residual growth's "train and measure" with
// 200 steps. The three are timed in rounds, one of each per round, so a slow spell falls on all alike. Prints JSON
// lines (value: the median, min and max the spread; unit s); scripts/bench.mjs runs it and prints the table.
// `node bench/training-wall-time.mjs [rounds]`
import { availableParallelism } from 'node:os';
import { isDeepStrictEqual } from 'node:util';
import { Worker } from 'node:worker_threads';
import { compileWasm, load } from '../dist/lib/residual-lab.js';
import { mergeWarmupResults, splitWarmupOptions } from '../web/lib/experiments.js'; // pure functions; dist/ holds bundles

const ROUNDS = Number(process.argv[2] ?? 3);
const WORKERS = Math.max(1, Math.min(4, availableParallelism()));

const module = await compileWasm('simd');
const lab = await load({ flavour: 'simd', module });
const workers = await Promise.all(
  Array.from(
    { length: WORKERS },
    () =>
      new Promise((resolve, reject) => {
        const worker = new Worker(new URL('./training-worker.mjs', import.meta.url), { workerData: { module } });
        worker.once('message', () => resolve(worker));
        worker.once('error', reject);
      }),
  ),
);
const ask = (worker, options) =>
  new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(options);
  });

// Wall seconds, and the CPU seconds of the whole process (its worker threads included): on a machine shared with
// other work the wall time also counts the waits for a core, the CPU time only the work.
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const seconds = async (fn) => {
  const t0 = performance.now(),
    c0 = cpuSeconds();
  const result = await fn();
  return [(performance.now() - t0) / 1e3, cpuSeconds() - c0, result];
};
const warmupOptions = {};
const cases = {
  warmup_race_sequential: () => lab.experiments.warmup(warmupOptions),
  warmup_race_parallel: async () => {
    const parts = splitWarmupOptions(warmupOptions, WORKERS);
    return mergeWarmupResults(await Promise.all(parts.map((part, i) => ask(workers[i], part))));
  },
  residual_growth_200_steps: () => lab.experiments.residualGrowth({ trainSteps: 200 }),
};
const times = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
const cpu = Object.fromEntries(Object.keys(cases).map((name) => [name, []]));
const last = {};
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(cases)) {
    const [s, c, result] = await seconds(run);
    times[name].push(s);
    cpu[name].push(c);
    last[name] = result;
  }
}
for (const worker of workers) await worker.terminate();

// The split race must give the one-thread race's result, run for run.
const same = isDeepStrictEqual(last.warmup_race_parallel, last.warmup_race_sequential);
for (const [name, values] of Object.entries(times)) {
  const sorted = values.slice().sort((a, b) => a - b);
  const cpuSorted = cpu[name].slice().sort((a, b) => a - b);
  const row = {
    name,
    d: 0,
    unit: 's',
    value: sorted[sorted.length >> 1],
    min: sorted[0],
    max: sorted.at(-1),
    rounds: ROUNDS,
    cpu: cpuSorted[cpuSorted.length >> 1],
  };
  if (name === 'warmup_race_parallel') Object.assign(row, { workers: WORKERS, sameAsSequential: same });
  console.log(JSON.stringify(row));
}
