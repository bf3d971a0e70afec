// lab.openCheckpoint in node on the synthetic checkpoints of bench/synthetic-checkpoints.mjs (Qwen2.5-0.5B's and
// Llama-3.1-8B's exact shapes) and their GGUFs of bench/synthetic-gguf.mjs (Q8_0, Q4_K_M), read where they lie (node reads a path with a FileHandle), with one worker (this
// thread) and with two (lab workers in worker_threads, each reading its rows of every projection). Measured: open
// (headers only), a first run of 16 tokens and the median of three more, ckpt.gradients of the same 16 tokens (a
// first, then one after each of those three runs: their median, and the median and range of each one's ratio to the
// run just before it) (the files then in the OS cache, as far as memory allows), the forward's effective GFLOP/s beside the matmul kernel's on the same module, the process's peak RSS
// (worker threads included) and this thread's WASM heap (it never shrinks: its peak). Prints JSON lines;
// scripts/bench.mjs runs it and prints the table.
//   node bench/checkpoint-run.mjs [--shapes=qwen2.5-0.5b,llama-3.1-8b] [--workers=2]     after `node scripts/build.mjs --bench`
// (--workers: only the runs on that many workers)
import { readFileSync } from 'node:fs';
import { SHAPES, cachedCheckpoint } from './synthetic-checkpoints.mjs';
import { GGUF_SHAPES, cachedGguf } from './synthetic-gguf.mjs';
import { load } from '../dist/lib/residual-lab.js';

const argShapes = process.argv.find((a) => a.startsWith('--shapes='))?.slice('--shapes='.length);
const ALL = { ...SHAPES, ...GGUF_SHAPES };
const wanted = argShapes ? argShapes.split(',') : Object.keys(ALL);
const argWorkers = process.argv.find((a) => a.startsWith('--workers='))?.slice('--workers='.length);

// the lab as built (dist/lib), whose workers are the site's lab workers, as a page's are; the module again
// beside it for the matmul kernel alone
const lab = await load({ flavour: 'simd' });
const { default: createModule } = await import(new URL('../build/wasm-simd/residual_lab.mjs', import.meta.url));
const wasm = await WebAssembly.compile(readFileSync(new URL('../build/wasm-simd/residual_lab.wasm', import.meta.url)));
const Module = await createModule({
  instantiateWasm(imports, receive) {
    WebAssembly.instantiate(wasm, imports).then((i) => receive(i, wasm));
    return {};
  },
});

const emit = (row) => console.log(JSON.stringify(row));
// CPU seconds beside wall seconds: on a shared machine the wall time also counts the waits for a core
const cpuSeconds = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};
const ids = (T, V) => Array.from({ length: T }, (_, i) => (i * 7919) % V);

for (const key of wanted) {
  if (!ALL[key]) throw new Error(`unknown shape ${key} (the shapes: ${Object.keys(ALL).join(', ')})`);
  const prepareStart = performance.now();
  const files = GGUF_SHAPES[key] ? cachedGguf(key) : await cachedCheckpoint(key);
  const prepared = (performance.now() - prepareStart) / 1000;
  const V = SHAPES[GGUF_SHAPES[key]?.base ?? key].config.vocab_size;
  const T = 16;
  // one worker; two with every run reading the files (residencyBudget 0); two with the default budget, under
  // which the Qwen shapes stay in the workers' heaps after the first run and the 8B's are read every run
  const runs = [{ workers: 1 }, { workers: 2, residencyBudget: 0 }, { workers: 2 }];
  for (const { workers, residencyBudget } of runs.filter((r) => !argWorkers || r.workers === Number(argWorkers))) {
    const t0 = performance.now();
    const ckpt = await lab.openCheckpoint(files, { workers, residencyBudget });
    const mode = ckpt.residency().mode;
    emit({
      shape: key,
      workers,
      mode,
      name: 'open (headers only)',
      value: (performance.now() - t0) / 1000,
      unit: 's',
      prepared,
    });
    // the first run, then three from the OS cache, of which the median is the figure (this VM's runs vary by 30%);
    // after a first gradients, each of those three runs is followed by a gradients of the same tokens, so the
    // ratio of each pair is measured under the same load
    const timed = async (f) => {
      const t0 = performance.now();
      const c0 = cpuSeconds();
      const result = await f();
      return { seconds: (performance.now() - t0) / 1000, cpu: cpuSeconds() - c0, result };
    };
    const samples = [await timed(() => ckpt.run(ids(T, V)))];
    const gradientSamples = [await timed(() => ckpt.gradients(ids(T, V)))];
    for (let i = 0; i < 3; i++) {
      samples.push(await timed(() => ckpt.run(ids(T, V))));
      gradientSamples.push(await timed(() => ckpt.gradients(ids(T, V))));
    }
    if (!samples.every((s) => s.result.logits.every(Number.isFinite))) throw new Error('non-finite logits');
    if (!gradientSamples.every((s) => Number.isFinite(s.result.loss))) throw new Error('a non-finite loss');
    const warm = samples.slice(1).sort((a, b) => a.seconds - b.seconds);
    for (const [run, sample] of [
      ['first', samples[0]],
      ['warm', warm[1]],
    ]) {
      emit({
        shape: key,
        workers,
        mode,
        name: `run ${T} tokens, ${run}`,
        value: sample.seconds,
        ...(run === 'warm' && { min: warm[0].seconds, max: warm[2].seconds }),
        unit: 's',
        cpu: sample.cpu,
        gflops: ckpt.cost(T).flops / sample.seconds / 1e9,
        readGB: sample.result.reads.bytes / 1e9,
      });
    }
    // ckpt.gradients beside the forward: the median of the three warm ones, and the median and range of each
    // one's ratio to the forward run just before it (wall and CPU)
    const byMedian = (xs) => [...xs].sort((a, b) => a - b)[1];
    const pairs = [1, 2, 3].map((i) => ({ g: gradientSamples[i], f: samples[i] }));
    const wallRatios = pairs.map(({ g, f }) => g.seconds / f.seconds);
    const gradientWarm = [...gradientSamples.slice(1)].sort((a, b) => a.seconds - b.seconds);
    emit({
      shape: key,
      workers,
      mode,
      name: `gradients ${T} tokens, warm`,
      value: gradientWarm[1].seconds,
      min: gradientWarm[0].seconds,
      max: gradientWarm[2].seconds,
      unit: 's',
      cpu: gradientWarm[1].cpu,
      forwardRatio: byMedian(wallRatios),
      forwardRatioMin: Math.min(...wallRatios),
      forwardRatioMax: Math.max(...wallRatios),
      cpuRatio: byMedian(pairs.map(({ g, f }) => g.cpu / f.cpu)),
      readGB: gradientWarm[1].result.reads.bytes / 1e9,
    });
    const heaps = samples.at(-1).result.reads.workerHeapBytes;
    if (heaps.length)
      emit({
        shape: key,
        workers,
        mode,
        name: "the workers' WASM heaps",
        value: heaps.map((b) => Math.round(b / 2 ** 20)).join(' + '),
        unit: 'MB',
      });
    emit({ shape: key, workers, mode, name: 'estimated by cost()', value: ckpt.cost(T).estimatedSeconds, unit: 's' });
    ckpt.dispose();
  }
}

// the matmul kernel alone on the same module: y[16, 4864] = x[16, 896] w[4864, 896]^T (the MLP's gate projection)
{
  const M = 16,
    K = 896,
    N = 4864;
  const name = Module._malloc(8);
  Module.stringToUTF8('bench', name, 8);
  const alloc = (floats) => Module._rl_ckpt_alloc(floats * 4, name);
  const [y, x, w] = [alloc(M * N), alloc(M * K), alloc(N * K)];
  Module.HEAPF32.fill(0.01, x >> 2, (x >> 2) + M * K);
  Module.HEAPF32.fill(0.01, w >> 2, (w >> 2) + N * K);
  for (let i = 0; i < 20; i++) Module._rl_ckpt_head(y, N, x, M, K, w, 0, N, 0, 0); // dtype 0: F32, the kernel itself
  const reps = 100;
  const t0 = performance.now();
  const c0 = cpuSeconds();
  for (let i = 0; i < reps; i++) Module._rl_ckpt_head(y, N, x, M, K, w, 0, N, 0, 0);
  const seconds = (performance.now() - t0) / 1000 / reps;
  emit({
    name: 'matmul 16 x 896 x 4864',
    value: seconds,
    unit: 's',
    cpu: (cpuSeconds() - c0) / reps,
    gflops: (2 * M * N * K) / seconds / 1e9,
  });
  for (const p of [y, x, w]) Module._rl_ckpt_free(p);
  Module._free(name);
}
emit({ name: "WASM heap after the runs (this thread's)", value: lab.wasmHeapBytes() / 2 ** 20, unit: 'MB' });
emit({ name: 'peak RSS of the process', value: process.resourceUsage().maxRSS / 1024, unit: 'MB' });
