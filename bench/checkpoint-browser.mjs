// The checkpoint probe in Chromium on the synthetic checkpoints of bench/synthetic-checkpoints.mjs (and the GGUFs of
// bench/synthetic-gguf.mjs: --shapes=llama-3.1-8b-q4_k_m), picked
// through its file input as a reader picks them, each visit in a fresh browser: the time from the pick to the
// first result, whether it came, and the memory of every process of that browser (the tab, its workers, the
// browser and GPU processes: the sum of their RSS from /proc, sampled every 100 ms) at rest after the toy's run
// and at its peak during the pick's run; then three later runs on other prompts of 16 token ids (with the weights
// resident, none reads the files), each timed from the prompt's edit to its result, and the status line the probe
// ends on. Not a test: it prints one JSON line per visit and a summary.
//   node bench/checkpoint-browser.mjs [--shapes=qwen2.5-0.5b] [--visits=10]     after `node scripts/build.mjs`
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { median } from '../scripts/lib/median.mjs';
import { SHAPES, cachedCheckpoint, shapeDir } from './synthetic-checkpoints.mjs';
import { GGUF_SHAPES, cachedGguf } from './synthetic-gguf.mjs';
import { browserRss } from './lib/browser-memory.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const shapes = arg('shapes', 'qwen2.5-0.5b').split(',');
const visits = Number(arg('visits', '10'));

const { server, url } = await startServer({ siteRoot: join(root, 'dist'), port: 0 });
try {
  for (const shape of shapes) {
    // the weights' kind, which the probe's source line names once the picked files are its model
    const kind = GGUF_SHAPES[shape] ? 'gguf' : 'safetensors';
    const vocab = SHAPES[GGUF_SHAPES[shape]?.base ?? shape].config.vocab_size;
    if (kind === 'gguf') cachedGguf(shape);
    else await cachedCheckpoint(shape);
    const dir = shapeDir(shape);
    const paths = readdirSync(dir)
      .filter((name) =>
        kind === 'gguf' ? name.endsWith('.gguf') : name.endsWith('.json') || name.endsWith('.safetensors'),
      )
      .map((name) => join(dir, name));
    const rows = [];
    for (let visit = 0; visit < visits; visit++) {
      const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage();
        await page.goto(`${url}embed.html?widget=checkpoint-probe&lang=en`);
        const probe = page.locator('rl-checkpoint-probe');
        // the toy's run, at rest
        await page.waitForFunction(
          () => document.querySelector('rl-checkpoint-probe')?.dataset.status === 'done',
          null,
          {
            timeout: 120000,
          },
        );
        const atRest = browserRss();
        let peak = atRest;
        const sampler = setInterval(() => (peak = Math.max(peak, browserRss())), 100);
        const started = performance.now();
        await probe.locator('input[type=file]').setInputFiles(paths);
        // the widget's parts live in its shadow root
        await page.waitForFunction(
          (weights) => {
            const el = document.querySelector('rl-checkpoint-probe');
            const source = (el.shadowRoot ?? el).querySelector('.source')?.textContent ?? '';
            return el.dataset.status !== 'running' && source.includes(weights);
          },
          kind,
          { timeout: 600000, polling: 100 },
        );
        const seconds = (performance.now() - started) / 1000;
        const status = await probe.getAttribute('data-status');
        // later: from the prompt's edit to the result, the widget's wait for typing to stop (RECOMPUTE_DELAY_MS)
        // included; laterRuns: the run alone, as the probe's status line reports it
        const later = [],
          laterRuns = [];
        for (let k = 1; k <= 3 && status === 'done'; k++) {
          const t0 = performance.now();
          await probe
            .locator('[name=prompt]')
            .fill(Array.from({ length: 16 }, (_, i) => (i * 7919 + k * 101) % vocab).join(', '));
          await page
            .waitForFunction(() => document.querySelector('rl-checkpoint-probe')?.dataset.status === 'running', null, {
              timeout: 60000,
              polling: 20,
            })
            .catch(() => {});
          await page.waitForFunction(
            () => document.querySelector('rl-checkpoint-probe')?.dataset.status !== 'running',
            null,
            {
              timeout: 600000,
              polling: 20,
            },
          );
          later.push((performance.now() - t0) / 1000);
          laterRuns.push(computedSeconds(await probe.locator('.run-status').textContent()));
        }
        clearInterval(sampler);
        peak = Math.max(peak, browserRss());
        const message =
          (await probe.locator('.run-status').textContent()) ||
          (await probe
            .locator('[role=alert], .error')
            .first()
            .textContent()
            .catch(() => ''));
        const row = {
          shape,
          visit,
          status,
          seconds,
          later,
          laterRuns,
          atRestMB: atRest,
          peakMB: peak,
          grewMB: peak - atRest,
          message,
        };
        rows.push(row);
        console.log(JSON.stringify(row));
      } finally {
        await browser.close();
      }
    }
    const ok = rows.filter((r) => r.status === 'done');
    const laterRuns = ok.flatMap((r) => r.laterRuns).filter(Number.isFinite);
    if (laterRuns.length)
      console.log(
        `${shape}: later runs ${median(laterRuns).toFixed(2)} s median (${Math.min(...laterRuns).toFixed(2)}-${Math.max(...laterRuns).toFixed(2)}) as the probe reports them; from the prompt's edit ${median(ok.flatMap((r) => r.later)).toFixed(2)} s`,
      );
    console.log(
      `${shape}: ${ok.length} of ${rows.length} visits computed on the first pick; pick to result ${median(ok.map((r) => r.seconds))?.toFixed(1)} s median (${Math.min(...ok.map((r) => r.seconds)).toFixed(1)}-${Math.max(...ok.map((r) => r.seconds)).toFixed(1)}); the browser's processes grew by ${median(ok.map((r) => r.grewMB))?.toFixed(0)} MB median (at most ${Math.max(...ok.map((r) => r.grewMB)).toFixed(0)}), peak ${Math.max(...ok.map((r) => r.peakMB)).toFixed(0)} MB`,
    );
  }
} finally {
  server.close();
}

/** The seconds of the probe's status line "Computed in 704 ms" (or "in 1.2 s"), or NaN. */
function computedSeconds(text) {
  const m = /in ([\d.]+) (ms|s)\b/.exec(text ?? '');
  return m ? Number(m[1]) / (m[2] === 'ms' ? 1000 : 1) : NaN;
}
