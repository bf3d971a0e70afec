#!/usr/bin/env node
// `npm run bench`: one run, figures side by side. Not a test: nothing here passes or fails.
//   kernels  RMSNorm / LayerNorm forward and backward, GB/s at d = 64, 4096, 1M:
//            native g++ -O3 -march=native | native 4-lane (SSE2) | WASM relaxed SIMD (fused multiply-add; node 20
//            runs it behind --experimental-wasm-relaxed-simd) | WASM SIMD | WASM scalar (same source) | plain JS,
//            and the ratios
//   api      the cost of one public-API call (copies included) at d = 4, 64 and 4096, with and without `out`,
//            beside plain JS (bench/api-call-cost.mjs)
//   decoder  matmul GFLOP/s, decoder forward / forward+backward / train step (when the engine is built)
//   training wall time of the warmup race (default options; one thread, and split over worker_threads) and of
//            residual growth's 200 training steps (bench/training-wall-time.mjs)
// Every kernel figure is the median over 3 processes (PROCESSES); the API and training figures are medians over
// interleaved samples, printed with their range.
//   checkpoint  lab.openCheckpoint on synthetic BF16 checkpoints with Qwen2.5-0.5B's and Llama-3.1-8B's exact
//            shapes, read from files on disk (written once to a cache folder: 1 GB and 16 GB): open time, runs of 16
//            tokens with one worker and with two, effective GFLOP/s beside the matmul kernel's, the process's peak
//            RSS (bench/checkpoint-run.mjs; bench/checkpoint-browser.mjs does the probe in Chromium)
//   sweep    the layer-drop sweep on the same checkpoint, 16 tokens: its time in runs of 16 tokens, against the
//            target of 6, and the bytes it read (bench/checkpoint-drop-sweep.mjs)
//   split    a run on one thread and split over two workers, resident and reading every run, taking turns: wall
//            time and each thread's CPU time; the matmul as a run calls it beside the kernel alone
//            (bench/checkpoint-split.mjs)
//   compiler-cache  only when named: the WASM SIMD module built cold and warm through ccache in two exported
//            copies of the tree, byte for byte the same (bench/compiler-cache.mjs, about four minutes)
//   page     the chapter in headless Chromium: bytes on the wire, responses, WebAssembly fetches and
//            compilations, long main-thread tasks, time to the first numbers (scripts/bench-page.mjs)
// `npm run bench -- --json` prints the same figures as one JSON object; `--only=api,training` runs just those parts
// (the parts: kernels, which includes decoder, api, training, checkpoint, sweep, split, page); `--page-only` is `--only=page`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, BUILDS } from './build.mjs';
import { median } from './lib/median.mjs';
import { runCaptured } from './lib/run.mjs';
import { benchPage, printPageFigures } from './bench-page.mjs';
import * as plain from './lib/plain-js-kernels.mjs';
import { secondsPerCall } from './lib/seconds-per-call.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const asJson = process.argv.includes('--json');
const only = process.argv.includes('--page-only')
  ? ['page']
  : process.argv
      .find((a) => a.startsWith('--only='))
      ?.slice('--only='.length)
      .split(',');
const OPT_IN = ['compiler-cache']; // parts that run only when --only names them
const wanted = (part) => (only ? only.includes(part) : !OPT_IN.includes(part));
const log = (...a) => {
  if (!asJson) console.log(...a);
};

function parseLines(output) {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

async function runBenchBinary(name) {
  const dir = BUILDS[name].dir;
  const [cmd, args] = !BUILDS[name].wasm
    ? [join(dir, 'residual_lab_bench'), []]
    : [
        process.execPath,
        [
          '--no-experimental-fetch',
          ...(BUILDS[name].relaxed ? ['--experimental-wasm-relaxed-simd'] : []),
          join(dir, 'residual_lab_bench.js'),
        ],
      ];
  const { status, output } = await runCaptured(cmd, args, { quiet: true });
  if (status !== 0) throw new Error(`${name} benchmark exited ${status}:\n${output}`);
  return parseLines(output);
}

// The same binary runs at different speeds in different processes on this kind of machine (one scalar WASM
// process measured 21.7 GB/s, the next 16.0, each steady within itself), so each build's benchmarks run in
// PROCESSES processes, interleaved across builds, and every figure is the median over them.
const PROCESSES = 3;

/** Rows of several runs of one benchmark -> one row per measurement: the median value, and the range. */
function medianRows(runs) {
  return runs[0].map((row) => {
    const values = runs.map((rows) => rows.find((r) => r.name === row.name && r.d === row.d).value);
    return { ...row, value: median(values), min: Math.min(...values), max: Math.max(...values) };
  });
}

async function runBenchmarkBinaries(names) {
  const runs = Object.fromEntries(names.map((name) => [name, []]));
  for (let k = 1; k <= PROCESSES; k++) {
    log(`running benchmarks, process ${k} of ${PROCESSES} for ${names.join(', ')}...`);
    for (const name of names) runs[name].push(await runBenchBinary(name));
  }
  return Object.fromEntries(names.map((name) => [name, medianRows(runs[name])]));
}

const SIZES = [64, 4096, 1 << 20];
// Bytes moved per element, the same counts bench/kernels_bench.cpp uses.
export const BYTES_PER_ELEMENT = {
  rmsnorm_forward: 16,
  rmsnorm_backward: 28,
  layernorm_forward: 20,
  layernorm_backward: 32,
};

function plainJsKernels() {
  const rows = [];
  for (const d of SIZES) {
    const rand = (n) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898) * 2);
    const x = rand(d);
    const g = rand(d).map((v) => 1 + v / 10);
    const beta = rand(d);
    const dy = rand(d);
    const y = new Float32Array(d);
    const dx = new Float32Array(d);
    const dg = new Float32Array(d);
    const db = new Float32Array(d);
    const rstd = plain.rmsNormForward(y, x, g, 1e-5);
    const stats = plain.layerNormForward(y, x, g, beta, 1e-5);
    const cases = {
      rmsnorm_forward: () => plain.rmsNormForward(y, x, g, 1e-5),
      rmsnorm_backward: () => plain.rmsNormBackward(dx, dg, dy, x, g, rstd),
      layernorm_forward: () => plain.layerNormForward(y, x, g, beta, 1e-5),
      layernorm_backward: () => plain.layerNormBackward(dx, dg, db, dy, x, g, stats.mean, stats.rstd),
    };
    for (const [name, fn] of Object.entries(cases)) {
      rows.push({ name, d, unit: 'GB/s', value: (BYTES_PER_ELEMENT[name] * d) / secondsPerCall(fn) / 1e9 });
    }
  }
  return rows;
}

// The API is timed in processes of its own, as the native and WASM binaries are, so no other benchmark's JIT or
// heap state leaks into it; the figure is the median of PROCESSES processes, printed with their range.
// The range is wide at d = 4096 in some processes: docs/benchmarks.md says why.
async function apiCallCost() {
  const runs = [];
  for (let k = 1; k <= PROCESSES; k++) {
    log(`running API call benchmarks, process ${k} of ${PROCESSES}...`);
    const { status, output } = await runCaptured(process.execPath, [join(root, 'bench/api-call-cost.mjs')], {
      quiet: true,
    });
    if (status !== 0) throw new Error(`API benchmark exited ${status}:\n${output}`);
    runs.push(parseLines(output));
  }
  return medianRows(runs);
}

// One process of its own: the race's runs are long (seconds), so the rounds interleave inside it.
async function trainingWallTime() {
  log('running training wall-time benchmarks (several rounds of about a minute)...');
  const { status, output } = await runCaptured(process.execPath, [join(root, 'bench/training-wall-time.mjs')], {
    quiet: true,
  });
  if (status !== 0) throw new Error(`training benchmark exited ${status}:\n${output}`);
  return parseLines(output);
}

// One process; the checkpoints' files are written once (17 GB, about a minute) and reused.
async function checkpointRun() {
  log('running the checkpoint benchmark (Qwen2.5-0.5B and Llama-3.1-8B shapes, a few minutes)...');
  const { status, output } = await runCaptured(process.execPath, [join(root, 'bench/checkpoint-run.mjs')], {
    quiet: true,
  });
  if (status !== 0) throw new Error(`checkpoint benchmark exited ${status}:\n${output}`);
  return parseLines(output);
}

async function dropSweep() {
  log('running the layer-drop sweep on the Qwen2.5-0.5B-shaped checkpoint (a few minutes)...');
  return benchScript('bench/checkpoint-drop-sweep.mjs', 'sweep');
}

async function splitRun() {
  log('running one thread against two workers on the Qwen2.5-0.5B-shaped checkpoint (about two minutes)...');
  return benchScript('bench/checkpoint-split.mjs', 'split');
}

async function benchScript(script, what) {
  const { status, output } = await runCaptured(process.execPath, [join(root, script)], { quiet: true });
  if (status !== 0) throw new Error(`${what} benchmark exited ${status}:\n${output}`);
  return parseLines(output);
}

function printSplit(rows) {
  console.log('\nOne thread against two workers, Qwen2.5-0.5B shapes, 16 tokens, WASM SIMD in node (CPU s per run):');
  const base = Object.fromEntries(rows.filter((r) => r.workers === 1).map((r) => [r.mode, r.wall]));
  for (const r of rows.filter((r) => r.mode))
    console.log(
      `${r.workers} worker(s), ${r.mode}: ${fmt(r.wall)} s (${fmt(r.wallMin)}-${fmt(r.wallMax)}; ${ratio(base[r.mode], r.wall)} of one thread's), CPU ${fmt(r.cpu)} s: this thread ${fmt(r.thisThreadCpu)}, workers ${r.workerCpu.map(fmt).join(' + ') || '—'}, the rest ${fmt(r.restCpu)}; read ${fmt(r.readGB)} GB`,
    );
  for (const r of rows.filter((r) => r.gflops)) console.log(`${r.name}, ${r.shape}: ${fmt(r.gflops)} GFLOP/s (CPU)`);
  for (const r of rows.filter((r) => r.ms !== undefined))
    console.log(`${r.name}: ${fmt(r.ms)} ms (a Qwen run makes ${r.exchangesPerRun})`);
}

function printSweep(rows) {
  console.log(
    '\nThe layer-drop sweep (every layer dropped in turn), Qwen2.5-0.5B shapes, 16 tokens, WASM SIMD in node:',
  );
  for (const r of rows)
    console.log(
      `${r.workers} worker(s), ${r.mode}: one run ${fmt(r.run)} s (CPU ${fmt(r.runCpu)} s), the sweep ${fmt(r.sweep)} s (CPU ${fmt(r.sweepCpu)} s) = ${fmt(r.runs)} runs (${fmt(r.cpuRuns)} in CPU; target <= ${r.target}), read ${fmt(r.readGB)} GB`,
    );
}

const fmt = (v) =>
  v === undefined ? '—' : typeof v === 'string' ? v : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2);
const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${(a / b).toFixed(2)}x`);

async function main() {
  await build({ bench: wanted('kernels') }); // the API and training parts need only dist/
  const results = wanted('kernels')
    ? await runBenchmarkBinaries(['native', 'native-4lane', 'wasm-relaxed', 'wasm-simd', 'wasm-scalar'])
    : { native: [] };
  Object.assign(results, {
    'plain-js': wanted('kernels') ? plainJsKernels() : [],
    api: wanted('api') ? await apiCallCost() : [],
    training: wanted('training') ? await trainingWallTime() : [],
    checkpoint: wanted('checkpoint') ? await checkpointRun() : [],
    sweep: wanted('sweep') ? await dropSweep() : [],
    split: wanted('split') ? await splitRun() : [],
    compilerCache: wanted('compiler-cache') ? await compilerCache() : null,
  });
  const page = wanted('page') ? await benchPage({ log }) : null;
  const lookup = (source, name, d) => results[source].find((r) => r.name === name && r.d === d)?.value;
  const table = [];
  const keys = new Set();
  for (const r of results.native) keys.add(`${r.name}|${r.d}|${r.unit}`);
  for (const key of keys) {
    const [name, dText, unit] = key.split('|');
    const d = Number(dText);
    const row = {
      name,
      d,
      unit,
      native: lookup('native', name, d),
      native4: lookup('native-4lane', name, d),
      relaxed: lookup('wasm-relaxed', name, d),
      simd: lookup('wasm-simd', name, d),
      scalar: lookup('wasm-scalar', name, d),
      js: lookup('plain-js', name, d),
    };
    table.push(row);
  }
  if (asJson) {
    console.log(
      JSON.stringify(
        {
          date: new Date().toISOString(),
          node: process.version,
          table,
          api: results.api,
          training: results.training,
          checkpoint: results.checkpoint,
          sweep: results.sweep,
          split: results.split,
          compilerCache: results.compilerCache,
          page,
        },
        null,
        1,
      ),
    );
    return;
  }
  if (wanted('kernels')) printKernels(table);
  if (wanted('api')) printApi(results.api);
  if (wanted('training')) printTraining(results.training);
  if (wanted('checkpoint')) printCheckpoint(results.checkpoint);
  if (wanted('sweep')) printSweep(results.sweep);
  if (wanted('split')) printSplit(results.split);
  if (results.compilerCache) console.log(`\nThe compiler cache, cold and warm:\n${results.compilerCache.output}`);
  if (page) printPageFigures(page);
}

function printKernels(table) {
  console.log('\nKernels (higher is better for GB/s and GFLOP/s, lower for ms)');
  console.log('native: g++ -O3 -march=native; native4: the same without -march (SSE2, 4 lanes as in WASM SIMD);');
  console.log('simd / scalar: the same source as WASM with and without -msimd128 (node); relaxed: SIMD with the');
  console.log('fused multiply-add of relaxed SIMD (node --experimental-wasm-relaxed-simd); js: plain JavaScript.');
  console.log(`Every figure: the median of ${PROCESSES} processes per build.\n`);
  console.log(
    `${'kernel'.padEnd(22)} ${'size'.padStart(8)} ${'unit'.padEnd(7)} ${'native'.padStart(7)} ${'native4'.padStart(7)} ${'relaxed'.padStart(7)} ${'simd'.padStart(7)} ${'scalar'.padStart(7)} ${'js'.padStart(7)}   relaxed/simd  simd/scalar  simd/js  simd/native  native4/scalar`,
  );
  for (const r of table) {
    const better = r.unit === 'ms' ? (a, b) => ratio(b, a) : ratio; // for times, speed-up is old/new
    console.log(
      `${r.name.padEnd(22)} ${String(r.d).padStart(8)} ${r.unit.padEnd(7)} ${fmt(r.native).padStart(7)} ${fmt(r.native4).padStart(7)} ${fmt(r.relaxed).padStart(7)} ${fmt(r.simd).padStart(7)} ${fmt(r.scalar).padStart(7)} ${fmt(r.js).padStart(7)}   ${better(r.relaxed, r.simd).padStart(12)}  ${better(r.simd, r.scalar).padStart(11)}  ${better(r.simd, r.js).padStart(7)}  ${better(r.simd, r.native).padStart(11)}  ${better(r.native4, r.scalar).padStart(14)}`,
    );
  }
}

function printApi(rows) {
  console.log(
    `\nPublic API call, copies included (WASM SIMD, node), ns per call: median of ${PROCESSES} processes (range)`,
  );
  console.log('api_*: lab.rmsNorm / lab.layerNorm returning a new array, *_out_*: into a reused `out`;');
  console.log('js_rmsNorm_*: plain JS into a reused array (out) or a new one.');
  for (const r of rows)
    console.log(
      `${r.name.padEnd(24)} d = ${String(r.d).padEnd(5)} ${fmt(r.value).padStart(8)} ns   (${fmt(r.min)}-${fmt(r.max)})`,
    );
}

function printTraining(rows) {
  console.log(
    '\nTraining wall time (WASM SIMD, node), seconds: median over interleaved rounds (range), and the median CPU',
  );
  console.log('seconds of the process, worker threads included (a wall time far above it: the machine was busy).');
  for (const r of rows) {
    const extra = r.workers
      ? `   ${r.workers} workers, same result as one thread: ${r.sameAsSequential ? 'yes' : 'NO'}`
      : '';
    console.log(
      `${r.name.padEnd(26)} ${fmt(r.value).padStart(7)} s   (${fmt(r.min)}-${fmt(r.max)}, ${r.rounds} rounds; CPU ${fmt(r.cpu)} s)${extra}`,
    );
  }
}

function printCheckpoint(rows) {
  console.log(
    '\nSynthetic checkpoints with real shapes (random BF16 safetensors; -q8_0, -q4_k_m: GGUF typed as llama.cpp types them), read from files on disk, WASM SIMD in node:',
  );
  console.log('open reads the headers only; the first run of 16 tokens reads the files cold or from the OS cache as');
  console.log('memory allows; warm: the median (range) of three more from the OS cache; workers 2: the run split over');
  console.log(
    'two lab workers. CPU: seconds of the process, worker threads included, and of its busiest thread (the least wall time',
  );
  console.log(
    'the run can take on an idle machine); peak RSS: the process, worker threads included. Interleaved: the formats run in turn.',
  );
  const matmul = rows.find((r) => r.name.startsWith('matmul'));
  for (const r of rows) {
    const speed = r.gflops
      ? `   ${fmt(r.gflops).padStart(6)} GFLOP/s${r !== matmul && matmul ? ` (${ratio(r.gflops, matmul.gflops)} the matmul kernel's)` : ''}`
      : '';
    const label = [r.shape, r.workers ? `${r.workers} worker${r.workers > 1 ? 's' : ''}` : null, r.mode, r.name]
      .filter(Boolean)
      .join(', ');
    const range = r.min !== undefined ? ` (${fmt(r.min)}-${fmt(r.max)})` : '';
    const against =
      r.forwardRatio !== undefined
        ? `   ${fmt(r.forwardRatio)}x (${fmt(r.forwardRatioMin)}-${fmt(r.forwardRatioMax)}) the forward run before it, CPU ${fmt(r.cpuRatio)}x`
        : r.vsBf16Kernel !== undefined
          ? `   ${fmt(r.vsBf16Kernel)}x BF16's`
          : r.vsBf16
            ? `   vs BF16 in the same rounds: wall ${fmt(r.vsBf16.wall)}x (${fmt(r.vsBf16.wallRange.min)}-${fmt(r.vsBf16.wallRange.max)}), CPU ${fmt(r.vsBf16.cpu)}x (${fmt(r.vsBf16.cpuRange.min)}-${fmt(r.vsBf16.cpuRange.max)})`
            : '';
    console.log(
      `${label.padEnd(52)} ${fmt(r.value).padStart(7)} ${r.unit}${range}${r.cpu !== undefined ? `   (CPU ${fmt(r.cpu)} s${r.busiestThreadCpu !== undefined ? `, busiest thread ${fmt(r.busiestThreadCpu)} s` : ''})` : ''}${speed}${against}`,
    );
  }
  const warm = (shape, workers, mode) =>
    rows.find((r) => r.shape === shape && r.workers === workers && r.mode === mode && r.name.endsWith('warm'));
  for (const shape of new Set(rows.map((r) => r.shape).filter(Boolean))) {
    const one = warm(shape, 1, 'streamed');
    for (const mode of ['streamed', 'resident']) {
      const two = warm(shape, 2, mode);
      if (one && two)
        console.log(
          `${shape}: two workers, ${mode}, run ${ratio(one.value, two.value)} as fast as one streamed (warm runs' medians)`,
        );
    }
  }
}

async function compilerCache() {
  log('building the WASM SIMD module cold and warm through ccache (about four minutes)...');
  const { status, output } = await runCaptured(process.execPath, [join(root, 'bench/compiler-cache.mjs')], {
    quiet: true,
  });
  return { status, output: output.trim() };
}

await main();
