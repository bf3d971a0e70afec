// The checkpoint probe in Chromium on the synthetic checkpoints of bench/synthetic-checkpoints.mjs, picked
// through its file input as a reader picks them, each visit in a fresh browser: the time from the pick to the
// first result, whether it came, and the memory of every process of that browser (the tab, its workers, the
// browser and GPU processes: the sum of their RSS from /proc, sampled every 100 ms) at rest after the toy's run
// and at its peak during the pick's run; then three later runs on other prompts of 16 token ids (with the weights
// resident, none reads the files), each timed from the prompt's edit to its result, and the status line the probe
// ends on. Not a test: it prints one JSON line per visit and a summary.
//   node bench/checkpoint-browser.mjs [--shapes=qwen2.5-0.5b] [--visits=10]     after `node scripts/build.mjs`
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { median } from '../scripts/lib/median.mjs';
import { checkpointPaths } from './synthetic-checkpoints.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name, fallback) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const shapes = arg('shapes', 'qwen2.5-0.5b').split(',');
const visits = Number(arg('visits', '10'));

/** The pids descending from this process (the browsers it launched and all their children). */
function descendants() {
  const parent = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parent.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended meanwhile
    }
  }
  const mine = new Set([process.pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parent)
      if (!mine.has(pid) && mine.has(ppid)) {
        mine.add(pid);
        grew = true;
      }
  }
  mine.delete(process.pid);
  return [...mine];
}

/** The summed resident memory of the browser's processes, in MB. */
function browserRss() {
  let kib = 0;
  for (const pid of descendants()) {
    try {
      kib += Number(readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+)/m)?.[1] ?? 0);
    } catch {
      // ended meanwhile
    }
  }
  return kib / 1024;
}

const { server, url } = await startServer({ siteRoot: join(root, 'dist'), port: 0 });
try {
  for (const shape of shapes) {
    const paths = await checkpointPaths(shape);
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
          () => {
            const el = document.querySelector('rl-checkpoint-probe');
            const source = (el.shadowRoot ?? el).querySelector('.source')?.textContent ?? '';
            return el.dataset.status !== 'running' && source.includes('safetensors');
          },
          null,
          { timeout: 600000, polling: 100 },
        );
        const seconds = (performance.now() - started) / 1000;
        const status = await probe.getAttribute('data-status');
        const later = [];
        for (let k = 1; k <= 3 && status === 'done'; k++) {
          const t0 = performance.now();
          await probe
            .locator('[name=prompt]')
            .fill(Array.from({ length: 16 }, (_, i) => (i * 7919 + k * 101) % 151936).join(', '));
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
    console.log(
      `${shape}: ${ok.length} of ${rows.length} visits computed on the first pick; pick to result ${median(ok.map((r) => r.seconds))?.toFixed(1)} s median (${Math.min(...ok.map((r) => r.seconds)).toFixed(1)}-${Math.max(...ok.map((r) => r.seconds)).toFixed(1)}); the browser's processes grew by ${median(ok.map((r) => r.grewMB))?.toFixed(0)} MB median (at most ${Math.max(...ok.map((r) => r.grewMB)).toFixed(0)}), peak ${Math.max(...ok.map((r) => r.peakMB)).toFixed(0)} MB`,
    );
  }
} finally {
  server.close();
}
