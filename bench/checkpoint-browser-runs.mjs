// Where a browser run's time goes, on the Qwen-shaped BF16 checkpoint of bench/synthetic-checkpoints.mjs: the
// files picked through a file input (as a reader picks them), opened in the lab worker as the probe opens them
// (its default workers), and the calls the probe makes, each timed in the page: the first run (16 token ids, logit
// lens k = 3 at the last position, then normWeights), three later runs on other ids, the same without the lens, and
// the layer-drop sweep (checkpointClaims.dropLayers, one run). The same calls in node in this process, on the
// same files, interleaved with the browser's visits, give the ratio that says whether the browser adds anything of
// its own (a re-read, a copy) or just computes. Also: the browser's read speed of the picked weights file (16 MB
// slices, the file in the OS cache), whose size over it is the first run's read floor; the memory of all the
// browser's processes at rest and at their peak. Not a test: it prints JSON lines and a summary.
//   node bench/checkpoint-browser-runs.mjs [--visits=2]     after `node scripts/build.mjs`
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { median } from '../scripts/lib/median.mjs';
import { checkpointClaims, load } from '../dist/lib/residual-lab.js';
import { startIsolatedServer } from './lib/isolated-server.mjs';
import { browserRss } from './lib/browser-memory.mjs';
import { cachedCheckpoint, shapeDir } from './synthetic-checkpoints.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const visits = Number(arg('visits', '2'));
const LATER = 3;
const LENS = { k: 3 };

const files = await cachedCheckpoint('qwen2.5-0.5b');
const dir = shapeDir('qwen2.5-0.5b');
const paths = readdirSync(dir)
  .filter((name) => name === 'config.json' || name.endsWith('.safetensors'))
  .map((name) => join(dir, name));
const ids = (k) => Array.from({ length: 16 }, (_, i) => (i * 7919 + k * 101) % 151936);

/** The probe's calls on an open checkpoint `ckpt` (node's or the worker's proxy), timed; `now` the clock. */
async function calls(ckpt, ids, now) {
  const time = async (call) => {
    const t0 = now();
    const out = await call();
    return [(now() - t0) / 1000, out];
  };
  const runOf = async (k, lens) => {
    const [seconds, r] = await time(() => ckpt.run(ids(k), lens ? { lens: { ...lens, position: 15 } } : {}));
    const [normSeconds] = await time(() => ckpt.normWeights());
    return { seconds, normSeconds, readBytes: r.reads.bytes, timings: r.timings };
  };
  const first = await runOf(0, LENS);
  const later = [];
  for (let k = 1; k <= LATER; k++) later.push(await runOf(k, LENS));
  const noLens = [];
  for (let k = 1; k <= LATER; k++) noLens.push(await runOf(k + LATER, null));
  const [sweepSeconds, sweep] = await time(() => ckpt.claim('dropLayers', ids(0), { position: 15 }));
  return { first, later, noLens, sweepSeconds, sweepReadBytes: sweep?.reads?.bytes ?? null };
}

const lab = await load();
const server = await startIsolatedServer({ roots: { dist: join(here, '..', 'dist') }, isolated: false });
const rows = [];
try {
  for (let visit = 0; visit < visits; visit++) {
    // node, the same calls on the same files
    {
      const t0 = performance.now();
      const ckpt = await lab.openCheckpoint(files);
      const open = (performance.now() - t0) / 1000;
      // node has no experiment() method on the checkpoint: the experiments take it as their first argument
      const viaNode = {
        run: (...a) => ckpt.run(...a),
        normWeights: () => ckpt.normWeights(),
        claim: (name, ...a) => checkpointClaims[name](ckpt, ...a),
      };
      const row = {
        where: 'node',
        visit,
        workers: ckpt.workers,
        open,
        ...(await calls(viaNode, ids, () => performance.now())),
      };
      ckpt.dispose();
      rows.push(row);
      console.log(JSON.stringify(row));
    }
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
    try {
      const page = await browser.newPage();
      await page.goto(server.url);
      await page.evaluate(async () => {
        const { createLabWorker } = await import('/dist/lib/worker-client.js');
        window.labWorker = createLabWorker();
        await window.labWorker.call('memoryBudget', []);
      });
      const atRest = browserRss();
      let peak = atRest;
      const sampler = setInterval(() => (peak = Math.max(peak, browserRss())), 100);
      const picked = performance.now();
      await page.locator('input[type=file]').setInputFiles(paths);
      const row = await page.evaluate(
        async ({ source, LATER, LENS }) => {
          const ids = new Function(`return ${source.ids}`)();
          const calls = new Function(`return ${source.calls}`)();
          const files = Object.fromEntries([...document.querySelector('input').files].map((f) => [f.name, f]));
          const t0 = performance.now();
          const ckpt = await window.labWorker.call('openCheckpoint', [files]);
          const open = (performance.now() - t0) / 1000;
          globalThis.LATER = LATER;
          globalThis.LENS = LENS;
          const out = await calls(ckpt, ids, () => performance.now());
          await ckpt.dispose();
          // the browser's read speed of the weights file, now in the OS cache
          const weights = files['model.safetensors'];
          const r0 = performance.now();
          for (let at = 0; at < weights.size; at += 16 << 20)
            await weights.slice(at, Math.min(weights.size, at + (16 << 20))).arrayBuffer();
          const readMBs = weights.size / 1e6 / ((performance.now() - r0) / 1000);
          // and by two workers at once, each half the file, as a split run's first run reads it
          const reader = URL.createObjectURL(
            new Blob(
              [
                `onmessage = async ({ data: { file, from, to } }) => {
                  for (let at = from; at < to; at += 16 << 20) await file.slice(at, Math.min(to, at + (16 << 20))).arrayBuffer();
                  postMessage(0);
                };`,
              ],
              { type: 'text/javascript' },
            ),
          );
          const half = Math.ceil(weights.size / 2 / (16 << 20)) * (16 << 20);
          const r1 = performance.now();
          await Promise.all(
            [
              [0, half],
              [half, weights.size],
            ].map(
              ([from, to]) =>
                new Promise((done) => {
                  const worker = new Worker(reader);
                  worker.onmessage = () => done(worker.terminate());
                  worker.postMessage({ file: weights, from, to });
                }),
            ),
          );
          const twoReadersMBs = weights.size / 1e6 / ((performance.now() - r1) / 1000);
          return {
            where: 'chromium',
            workers: ckpt.workers,
            open,
            ...out,
            readMBs,
            twoReadersMBs,
            bytes: weights.size,
          };
        },
        { source: { ids: ids.toString(), calls: calls.toString() }, LATER, LENS },
      );
      clearInterval(sampler);
      row.fromPick = (performance.now() - picked) / 1000;
      row.visit = visit;
      row.atRestMB = atRest;
      row.grewMB = Math.max(peak, browserRss()) - atRest;
      rows.push(row);
      console.log(JSON.stringify(row));
    } finally {
      await browser.close();
    }
  }
} finally {
  await server.close();
}
const range = (values) =>
  `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)}-${Math.max(...values).toFixed(2)})`;
for (const where of ['node', 'chromium']) {
  const mine = rows.filter((r) => r.where === where);
  console.log(
    `${where} (${mine[0].workers} workers): open ${range(mine.map((r) => r.open))} s; first run ${range(mine.map((r) => r.first.seconds))} s; later runs ${range(mine.flatMap((r) => r.later.map((x) => x.seconds)))} s (+ normWeights ${range(mine.flatMap((r) => r.later.map((x) => x.normSeconds)))} s, reading ${Math.max(...mine.flatMap((r) => r.later.map((x) => x.readBytes)))} bytes at most); without the lens ${range(mine.flatMap((r) => r.noLens.map((x) => x.seconds)))} s; the sweep ${range(mine.map((r) => r.sweepSeconds))} s`,
  );
}
const browserRows = rows.filter((r) => r.where === 'chromium');
if (browserRows.length)
  console.log(
    `chromium: read ${range(browserRows.map((r) => r.readMBs))} MB/s (two workers at once: ${range(browserRows.map((r) => r.twoReadersMBs))} MB/s together), so a floor of ${range(browserRows.map((r) => r.bytes / 1e6 / r.readMBs))} s under the first run; from the pick to the sweep's end ${range(browserRows.map((r) => r.fromPick))} s; the browser grew by ${range(browserRows.map((r) => r.grewMB))} MB (the model ${(browserRows[0].bytes / 1e6).toFixed(0)} MB)`,
  );
