// Where a run split over two threads spends its cores: the synthetic checkpoint with Qwen2.5-0.5B's exact shapes
// (bench/synthetic-checkpoints.mjs), 16 tokens, one thread and two (this thread computing the first share, a lab
// worker the second), the weights resident and read every run, the four taking turns for ROUNDS rounds (wall
// seconds compared in one process). Beside the wall time, each thread's CPU seconds per run from
// /proc/self/task/<tid>/stat (Linux; 10 ms ticks, so summed over RUNS runs): this thread (the coordinator and its
// share, or the whole run), the worker, and the rest (node's file-read pool, the garbage collector). On a machine
// whose other cores are busy the wall time counts waits for a core; the CPU split does not. Then what one exchange
// costs beyond the shares' compute: a tiny checkpoint (tests/fixtures) split over two threads, (exchange wait - the
// busier share's time) / exchanges, median of 200 runs. Then the matmul as a run calls it (BF16 weights widened four
// rows at a time, 16 rows) beside the kernel alone (float32 weights) and at a stacked sweep's 400 rows, in CPU
// GFLOP/s: on one matrix that stays in the caches, and on COPIES of it in turn (over 64 MB, as a run's weights come
// from memory).
//   node bench/checkpoint-split.mjs     after `node scripts/build.mjs`
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { SHAPES, cachedCheckpoint } from './synthetic-checkpoints.mjs';
import { load } from '../dist/lib/residual-lab.js';
import { makeCheckpoint } from '../tests/fixtures/checkpoints/make-checkpoints.mjs';

const ROUNDS = Number(process.env.ROUNDS ?? 4),
  RUNS = 5,
  T = 16;
const key = 'qwen2.5-0.5b';
const emit = (row) => console.log(JSON.stringify(row));
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
// CPU seconds of each thread of this process (utime + stime, in ticks of 1/100 s)
const threadSeconds = () =>
  existsSync('/proc/self/task')
    ? new Map(
        readdirSync('/proc/self/task').map((tid) => {
          const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
          return [tid, (Number(fields[11]) + Number(fields[12])) / 100];
        }),
      )
    : null;

const lab = await load({ flavour: 'simd' });
const files = await cachedCheckpoint(key);
const V = SHAPES[key].config.vocab_size;
const ids = Array.from({ length: T }, (_, i) => (i * 7919) % V);
const setups = [
  { workers: 1, residencyBudget: 4e9 },
  { workers: 2 },
  { workers: 1, residencyBudget: 0 },
  { workers: 2, residencyBudget: 0 },
];
// Each setup is opened for its turn and disposed after it: what a resident one keeps in this thread's heap (one
// thread's layers, two threads' first share) would leave the next too little of the heap's budget to keep its own.
const opened = setups.map((options) => ({ options, samples: [], workers: 0, mode: '' }));
for (let round = 0; round < ROUNDS; round++)
  for (const setup of opened) {
    const ckpt = await lab.openCheckpoint(files, setup.options);
    await ckpt.run(ids); // reads the file into the OS cache (and the heaps, when resident) and tiers the kernels up
    await ckpt.run(ids);
    Object.assign(setup, { ckpt, workers: ckpt.workers, mode: ckpt.residency().mode });
    const before = threadSeconds();
    const t0 = performance.now(),
      c0 = cpuSeconds();
    let exchangeWait = 0,
      bytes = 0;
    for (let i = 0; i < RUNS; i++) {
      const r = await ckpt.run(ids);
      exchangeWait += r.timings.exchangeWaitSeconds;
      bytes += r.reads.bytes;
    }
    const after = threadSeconds();
    const perThread = after
      ? [...after].map(([tid, s]) => [tid, (s - (before.get(tid) ?? 0)) / RUNS]).filter(([, s]) => s > 0)
      : [];
    const self = perThread.find(([tid]) => tid === String(process.pid))?.[1];
    const others = perThread.filter(([tid]) => tid !== String(process.pid)).map(([, s]) => s);
    others.sort((a, b) => b - a);
    const workers = others.slice(0, setup.workers - 1); // this thread computes the first share
    const rest = others.slice(workers.length).reduce((a, b) => a + b, 0);
    setup.samples.push({
      wall: (performance.now() - t0) / 1000 / RUNS,
      cpu: (cpuSeconds() - c0) / RUNS,
      self,
      workers,
      rest,
      exchangeWait: exchangeWait / RUNS,
      readGB: bytes / RUNS / 1e9,
    });
    ckpt.dispose();
  }
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const { options, workers, mode, samples } of opened) {
  if (!samples.length) continue;
  const pick = (f) => median(samples.map(f));
  emit({
    shape: key,
    workers,
    mode,
    wall: pick((s) => s.wall),
    wallMin: Math.min(...samples.map((s) => s.wall)),
    wallMax: Math.max(...samples.map((s) => s.wall)),
    walls: samples.map((s) => s.wall),
    cpu: pick((s) => s.cpu),
    thisThreadCpu: pick((s) => s.self ?? NaN),
    workerCpu: samples[0].workers.map((_, w) => pick((s) => s.workers[w])),
    restCpu: pick((s) => s.rest),
    exchangeWait: pick((s) => s.exchangeWait),
    readGB: pick((s) => s.readGB),
    residencyBudget: options.residencyBudget ?? 'default',
  });
}

// one exchange's cost beyond the compute, on a checkpoint whose projections take microseconds
{
  const tiny = await lab.openCheckpoint(makeCheckpoint({ family: 'qwen2', dtype: 'BF16', seed: 31 }).files, {
    workers: 2,
  });
  const L = tiny.forward.layers,
    exchanges = 4 * L + 1; // qkv, o, gate-up, down per layer; the head
  const tinyIds = [3, 17, 5, 40, 11, 2, 29];
  for (let i = 0; i < 20; i++) await tiny.run(tinyIds);
  const overhead = [];
  for (let i = 0; i < 200; i++) {
    const { exchangeWaitSeconds, workerBusySeconds } = (await tiny.run(tinyIds)).timings;
    overhead.push((exchangeWaitSeconds - Math.max(...workerBusySeconds)) / exchanges);
  }
  emit({
    name: 'one exchange beyond the compute',
    exchangesPerRun: 4 * SHAPES[key].config.num_hidden_layers + 1,
    ms: median(overhead) * 1e3,
  });
  tiny.dispose();
}

// the matmul: rl_ckpt_linear with BF16 weights (a run's) and float32 (the kernel alone), the gate projection's shape
{
  const { default: createModule } = await import(new URL('../build/wasm-simd/residual_lab.mjs', import.meta.url));
  const wasm = await WebAssembly.compile(
    readFileSync(new URL('../build/wasm-simd/residual_lab.wasm', import.meta.url)),
  );
  const Module = await createModule({
    instantiateWasm(imports, receive) {
      WebAssembly.instantiate(wasm, imports).then((i) => receive(i, wasm));
      return {};
    },
  });
  const layout = JSON.parse(Module.describeCheckpointLayout());
  const name = Module._malloc(8);
  Module.stringToUTF8('bench', name, 8);
  const alloc = (bytes) => Module._rl_ckpt_alloc(bytes, name);
  const [K, N, COPIES] = [896, 4864, 8];
  const gflops = {};
  for (let round = 0; round < 3; round++)
    for (const copies of [1, COPIES])
      for (const M of [16, 400])
        for (const dtype of ['BF16', 'F32']) {
          const size = layout.dtypes[dtype].blockBytes / layout.dtypes[dtype].blockValues;
          const [x, y, panel] = [alloc(M * K * 4), alloc(M * N * 4), alloc(layout.panelRows * K * 4)];
          const ws = Array.from({ length: copies }, () => alloc(N * K * size));
          for (const w of ws) Module.HEAPU8.fill(0x3c, w, w + N * K * size); // small normal numbers in either dtype
          Module.HEAPF32.fill(0.01, x >> 2, (x >> 2) + M * K);
          const code = layout.dtypes[dtype].code;
          const reps = copies * Math.max(1, Math.round(4e9 / (2 * M * K * N) / copies));
          Module._rl_ckpt_linear(y, x, ws[0], code, M, K, N, panel);
          const c0 = cpuSeconds();
          for (let r = 0; r < reps; r++) Module._rl_ckpt_linear(y, x, ws[r % copies], code, M, K, N, panel);
          (gflops[`${dtype}|${M}|${copies}`] ??= []).push((2 * M * K * N * reps) / (cpuSeconds() - c0) / 1e9);
          for (const p of [x, y, panel, ...ws]) Module._rl_ckpt_free(p);
        }
  for (const [what, values] of Object.entries(gflops)) {
    const [dtype, M, copies] = what.split('|');
    emit({
      shape: `${M} x ${K} times ${N} x ${K}`,
      name: `matmul, ${dtype} weights, ${copies === '1' ? 'one matrix (cached)' : `${copies} matrices in turn (from memory)`}`,
      gflops: median(values),
      values,
    });
  }
}
