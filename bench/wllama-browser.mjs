// The lab beside llama.cpp in WebAssembly (wllama, bench/wllama/package.json) in one Chromium page, on one file:
// the Qwen2.5-0.5B-shaped Q8_0 GGUF of bench/synthetic-gguf.mjs with its byte-level tokenizer (a letter is a token),
// picked through a file input as a reader picks it. The page is cross-origin isolated (bench/lib/isolated-server.mjs)
// so wllama can start its threads; the lab needs no isolation. For 1 and 2 threads (wllama's n_threads, the lab's
// workers), engines alternating: the time to open the file, the first run of a 16-token prompt and three later
// runs on other 16-token prompts (no shared prefix, so llama.cpp's prompt cache reuses nothing; the lab's weights
// stay in its workers' heaps after the first run). A wllama "run" is a completion of one token (max_tokens 1): the
// prompt's forward and one sampling; llama.cpp's own time for the prompt (timings.prompt_ms) is printed beside it.
// Not a test: it prints one JSON line per round and a summary.
//   npm run bench:wllama -- [--rounds=3]      (installs bench/wllama's package, then runs this)
//   node bench/wllama-browser.mjs [--rounds=3] [--threads=1,2]     after `node scripts/build.mjs`
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { median } from '../scripts/lib/median.mjs';
import { startIsolatedServer } from './lib/isolated-server.mjs';
import { cachedGguf } from './synthetic-gguf.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const rounds = Number(arg('rounds', '3'));
const threadCounts = arg('threads', '1,2').split(',').map(Number);
const LATER_RUNS = 3;

const { 'model.gguf': path } = cachedGguf('qwen2.5-0.5b-q8_0', { tokenizer: true });
const server = await startIsolatedServer({
  roots: { dist: join(here, '..', 'dist'), wllama: join(here, 'wllama/node_modules/@wllama/wllama/esm') },
});
const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
const rows = [];
try {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(String(e)));
  await page.goto(server.url);
  if (!(await page.evaluate(() => crossOriginIsolated))) throw new Error('the page is not cross-origin isolated');
  await page.locator('input[type=file]').setInputFiles(path);
  for (let round = 0; round < rounds; round++) {
    for (const threads of threadCounts) {
      const engines = round % 2 ? ['wllama', 'lab'] : ['lab', 'wllama'];
      for (const engine of engines) {
        const row = await page.evaluate(
          async ({ engine, threads, round, later }) => {
            const file = document.querySelector('input[type=file]').files[0];
            // 16 letters from a different start each run: 16 tokens, no prefix shared with the run before
            const prompt = (k) =>
              Array.from({ length: 16 }, (_, i) => String.fromCharCode(97 + ((round * 7 + k * 5 + i) % 26))).join('');
            const time = async (call) => {
              const t0 = performance.now();
              await call();
              return (performance.now() - t0) / 1000;
            };
            const out = { engine, threads, round };
            if (engine === 'wllama') {
              const { Wllama } = await import('/wllama/index.js');
              const wllama = new Wllama({ default: '/wllama/wasm/wllama.wasm' }, { suppressNativeLog: true });
              out.open = await time(() =>
                wllama.loadModel([file], {
                  n_threads: threads,
                  n_ctx: 128,
                  n_batch: 64,
                  n_gpu_layers: 0,
                  warmup: false,
                }),
              );
              out.threadsUsed = wllama.getNumThreads();
              // llama.cpp's own account of each run's prompt (timings.prompt_ms), beside the call's wall time
              out.promptMs = [];
              const run = async (k) => {
                const c = await wllama.createCompletion({ prompt: prompt(k), max_tokens: 1, temperature: 0 });
                out.promptMs.push(c.timings?.prompt_ms);
                return c;
              };
              out.first = await time(() => run(0));
              out.later = [];
              for (let k = 1; k <= later; k++) out.later.push(await time(() => run(k)));
              const usage = (await run(later + 1)).usage;
              out.promptTokens = usage?.prompt_tokens;
              await wllama.exit();
            } else {
              const { createLabWorker } = await import('/dist/lib/worker-client.js');
              const lab = createLabWorker();
              let ckpt;
              out.open = await time(async () => {
                ckpt = await lab.call('openCheckpoint', [{ 'model.gguf': file }, { workers: threads }]);
              });
              out.threadsUsed = ckpt.workers;
              const run = (k) => ckpt.run(prompt(k));
              out.first = await time(() => run(0));
              out.later = [];
              for (let k = 1; k <= later; k++) out.later.push(await time(() => run(k)));
              out.promptTokens = (await ckpt.tokenize(prompt(later + 1))).length;
              await ckpt.dispose();
              lab.terminate();
            }
            return out;
          },
          { engine, threads, round, later: LATER_RUNS },
        );
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
  }
  if (problems.length) console.log(`page errors: ${problems.join('; ')}`);
} finally {
  await browser.close();
  await server.close();
}
const fmt = (values) =>
  `${median(values).toFixed(2)} s (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;
for (const engine of ['lab', 'wllama'])
  for (const threads of threadCounts) {
    const mine = rows.filter((r) => r.engine === engine && r.threads === threads);
    if (!mine.length) continue;
    console.log(
      `${engine}, ${threads} thread${threads > 1 ? 's' : ''}: open ${fmt(mine.map((r) => r.open))}, first run ${fmt(mine.map((r) => r.first))}, later runs ${fmt(mine.flatMap((r) => r.later))}`,
    );
  }
