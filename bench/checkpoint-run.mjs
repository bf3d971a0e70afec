// lab.openCheckpoint in node on the synthetic checkpoints of bench/synthetic-checkpoints.mjs (Qwen2.5-0.5B's and
// Llama-3.1-8B's exact shapes) and their GGUFs of bench/synthetic-gguf.mjs (Q8_0, Q4_K_M), read where they lie (node reads a path with a FileHandle), with one worker (this
// thread) and with two (lab workers in worker_threads, each reading its rows of every projection). Measured: open
// (headers only), a first run of 16 tokens and the median of three more, ckpt.gradients of the same 16 tokens (a
// first, then one after each of those three runs: their median, and the median and range of each one's ratio to the
// run just before it) (the files then in the OS cache, as far as memory allows), the forward's effective GFLOP/s
// beside the matmul kernel's on the same module, the process's peak RSS (worker threads included) and this thread's
// WASM heap (it never shrinks: its peak); then the Qwen2.5-0.5B shapes' three formats run in turn, round by round,
// and each one's ratio to BF16's run of the same round. Prints JSON lines; scripts/bench.mjs runs it and prints the
// table.
//   node bench/checkpoint-run.mjs [--shapes=qwen2.5-0.5b,llama-3.1-8b]     after `node scripts/build.mjs --bench`
//   node bench/checkpoint-run.mjs --interleaved-only      the three formats' rounds alone
//   node bench/checkpoint-run.mjs --shapes=llama-3.1-8b-q4_k_m --workers=2 --forward-only
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { SHAPES, cachedCheckpoint } from './synthetic-checkpoints.mjs';
import { GGUF_SHAPES, cachedGguf } from './synthetic-gguf.mjs';
import { load } from '../dist/lib/residual-lab.js';
import { DTYPE_LAYOUTS } from '../web/lib/checkpoint/gguf-types.js';
import { quantize } from '../tests/fixtures/checkpoints/write-gguf.mjs';
import { median } from '../scripts/lib/median.mjs';

const argShapes = process.argv.find((a) => a.startsWith('--shapes='))?.slice('--shapes='.length);
const ALL = { ...SHAPES, ...GGUF_SHAPES };
const wanted = argShapes ? argShapes.split(',') : Object.keys(ALL);
// --interleaved-only: the formats' side-by-side rounds alone, without each shape's own rows
const interleavedOnly = process.argv.includes('--interleaved-only');
// --workers=2: only the runs on that many workers (the default budget's); --forward-only: no ckpt.gradients rows
const onlyWorkers = Number(process.argv.find((a) => a.startsWith('--workers='))?.slice('--workers='.length) ?? 0);
const forwardOnly = process.argv.includes('--forward-only');

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
// CPU seconds of each thread of this process (worker threads included), by thread id, from /proc (Linux): the
// busiest thread's share of a run is the least wall time the run can take on an idle machine
const threadCpu = () => {
  const seconds = new Map();
  if (!existsSync('/proc/self/task')) return seconds;
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const fields = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ');
      seconds.set(tid, (Number(fields[11]) + Number(fields[12])) / 100); // utime + stime, in clock ticks of 1/100 s
    } catch {
      // the thread ended meanwhile
    }
  }
  return seconds;
};
const busiestThread = (before, after) =>
  Math.max(0, ...[...after].map(([tid, seconds]) => seconds - (before.get(tid) ?? 0)));
const ids = (T, V) => Array.from({ length: T }, (_, i) => (i * 7919) % V);

for (const key of interleavedOnly ? [] : wanted) {
  if (!ALL[key]) throw new Error(`unknown shape ${key} (the shapes: ${Object.keys(ALL).join(', ')})`);
  const prepareStart = performance.now();
  const files = GGUF_SHAPES[key] ? cachedGguf(key) : await cachedCheckpoint(key);
  const prepared = (performance.now() - prepareStart) / 1000;
  const V = SHAPES[GGUF_SHAPES[key]?.base ?? key].config.vocab_size;
  const T = 16;
  // one worker; two with every run reading the files (residencyBudget 0); two with the default budget, under
  // which the Qwen shapes stay in the workers' heaps after the first run and the 8B's are read every run
  const configs = [{ workers: 1 }, { workers: 2, residencyBudget: 0 }, { workers: 2 }];
  for (const { workers, residencyBudget } of onlyWorkers ? [{ workers: onlyWorkers }] : configs) {
    let t0 = performance.now();
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
      const threads0 = threadCpu();
      const result = await f();
      const seconds = (performance.now() - t0) / 1000;
      return { seconds, cpu: cpuSeconds() - c0, busiestThread: busiestThread(threads0, threadCpu()), result };
    };
    const samples = [await timed(() => ckpt.run(ids(T, V)))];
    const gradientSamples = forwardOnly ? [] : [await timed(() => ckpt.gradients(ids(T, V)))];
    for (let i = 0; i < 3; i++) {
      samples.push(await timed(() => ckpt.run(ids(T, V))));
      if (!forwardOnly) gradientSamples.push(await timed(() => ckpt.gradients(ids(T, V))));
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
        busiestThreadCpu: sample.busiestThread,
        gflops: ckpt.cost(T).flops / sample.seconds / 1e9,
        readGB: sample.result.reads.bytes / 1e9,
        timings: sample.result.timings,
      });
    }
    // ckpt.gradients beside the forward: the median of the three warm ones, and the median and range of each
    // one's ratio to the forward run just before it (wall and CPU)
    const byMedian = (xs) => [...xs].sort((a, b) => a - b)[1];
    const pairs = forwardOnly ? [] : [1, 2, 3].map((i) => ({ g: gradientSamples[i], f: samples[i] }));
    const wallRatios = pairs.map(({ g, f }) => g.seconds / f.seconds);
    const gradientWarm = [...gradientSamples.slice(1)].sort((a, b) => a.seconds - b.seconds);
    if (!forwardOnly)
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
        name: "the shares' WASM heaps (this thread's first)",
        value: heaps.map((b) => Math.round(b / 2 ** 20)).join(' + '),
        unit: 'MB',
      });
    emit({ shape: key, workers, mode, name: 'estimated by cost()', value: ckpt.cost(T).estimatedSeconds, unit: 's' });
    ckpt.dispose();
  }
}

// The formats side by side: BF16 and its GGUFs opened together, one worker, every run reading its file (residency
// budget 0: the three do not fit one heap together, and a file read per run is the browser's case), their runs
// taken in turn for seven rounds so that the machine's load falls on all alike. Per format: the median run (range)
// in wall and CPU seconds, and the median (range) over the rounds of its run's ratio to the same round's BF16 run.
const INTERLEAVED = ['qwen2.5-0.5b', 'qwen2.5-0.5b-q8_0', 'qwen2.5-0.5b-q4_k_m'];
if (INTERLEAVED.every((key) => wanted.includes(key))) {
  const T = 16;
  const V = SHAPES[INTERLEAVED[0]].config.vocab_size;
  const opened = [];
  for (const key of INTERLEAVED)
    opened.push(
      await lab.openCheckpoint(GGUF_SHAPES[key] ? cachedGguf(key) : await cachedCheckpoint(key), {
        workers: 1,
        residencyBudget: 0,
      }),
    );
  for (const ckpt of opened) await ckpt.run(ids(T, V)); // a first run each, not counted
  const rounds = 7;
  const samples = opened.map(() => []);
  for (let round = 0; round < rounds; round++)
    for (const [i, ckpt] of opened.entries()) {
      const t0 = performance.now();
      const c0 = cpuSeconds();
      const result = await ckpt.run(ids(T, V));
      samples[i].push({
        seconds: (performance.now() - t0) / 1000,
        cpu: cpuSeconds() - c0,
        readGB: result.reads.bytes / 1e9,
      });
    }
  const spread = (values) => ({ min: Math.min(...values), max: Math.max(...values) });
  for (const [i, key] of INTERLEAVED.entries()) {
    const wall = samples[i].map((s) => s.seconds),
      cpu = samples[i].map((s) => s.cpu);
    const wallRatio = wall.map((w, round) => w / samples[0][round].seconds),
      cpuRatio = cpu.map((c, round) => c / samples[0][round].cpu);
    emit({
      shape: key,
      workers: 1,
      mode: 'streamed',
      name: `run ${T} tokens, interleaved`,
      value: median(wall),
      ...spread(wall),
      unit: 's',
      cpu: median(cpu),
      cpuRange: spread(cpu),
      readGB: samples[i][0].readGB,
      ...(i > 0 && {
        vsBf16: {
          wall: median(wallRatio),
          wallRange: spread(wallRatio),
          cpu: median(cpuRatio),
          cpuRange: spread(cpuRatio),
        },
      }),
    });
  }
  for (const ckpt of opened) ckpt.dispose();
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
  // the same product with the weights in each format the Qwen shapes' files hold, widened four rows at a time
  // (rl_ckpt_linear: the run's path), and Q3_K's and Q2_K's of Q3_K_M and Q2_K files; the K-quants on rows of 4864
  // (ffn_down's, K and N swapped); the formats in turn,
  // fifteen rounds, each one's median CPU seconds a call
  const values = Array.from({ length: 1 << 15 }, (_, i) => 0.02 * Math.sin(i * 0.7) * Math.cos(i * 0.013));
  const formats = ['BF16', 'Q8_0', 'Q5_0', 'Q4_K', 'Q6_K', 'Q3_K', 'Q2_K'].map((type) => {
    const [k, n] = type.endsWith('_K') ? [N, K] : [K, N];
    const { code, blockValues, blockBytes } = DTYPE_LAYOUTS[type];
    const bytes = ((k * n) / blockValues) * blockBytes;
    const chunk = quantize(type, values);
    const at = Module._rl_ckpt_alloc(bytes, name);
    for (let i = 0; i < bytes; i += chunk.length)
      Module.HEAPU8.set(chunk.subarray(0, Math.min(chunk.length, bytes - i)), at + i);
    return { type, code, k, n, at, samples: [] };
  });
  const [panel, xLong] = [alloc(4 * N), alloc(M * N)]; // x of 4864 columns for the rows of 4864
  Module.HEAPF32.fill(0.01, xLong >> 2, (xLong >> 2) + M * N);
  for (let round = 0; round < 15; round++)
    for (const f of formats) {
      const c1 = cpuSeconds();
      for (let i = 0; i < 10; i++) Module._rl_ckpt_linear(y, f.k === K ? x : xLong, f.at, f.code, M, f.k, f.n, panel);
      f.samples.push((cpuSeconds() - c1) / 10);
    }
  for (const f of formats) {
    const cpu = median(f.samples);
    emit({
      name: `matmul 16 x ${f.k} x ${f.n}, ${f.type} rows widened, CPU`,
      value: cpu * 1000,
      unit: 'ms',
      vsBf16Kernel: cpu / median(formats[0].samples),
    });
    Module._rl_ckpt_free(f.at);
  }
  for (const p of [y, x, w, panel, xLong]) Module._rl_ckpt_free(p);
  Module._free(name);
}
emit({ name: "WASM heap after the runs (this thread's)", value: lab.wasmHeapBytes() / 2 ** 20, unit: 'MB' });
emit({ name: 'peak RSS of the process', value: process.resourceUsage().maxRSS / 1024, unit: 'MB' });
