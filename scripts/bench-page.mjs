#!/usr/bin/env node
// The page as readers feel it, measured in headless Chromium (launched as tests/e2e/harness.mjs does) against the
// server of scripts/serve.mjs, on the built dist/ (run `node scripts/build.mjs` first; `npm run bench` does):
//   top       a first visit (empty cache) to the chapter, not scrolled, until every widget has drawn, the
//             chapter is laid out and the network is idle: bytes on the wire, responses, the longest main-thread task, time to the first
//             numbers (the first widget's data-ready, from navigation start)
//   all       the same visit after scrolling to every worker widget and waiting for its run: the whole page with
//             every widget computed (bytes, responses, WebAssembly fetches and compilations, the longest
//             main-thread task while the widgets computed and trained)
//   revisit   a second tab in the same browser context (warm cache): bytes and responses of the top of the page
// Bytes on the wire are Playwright's request sizes (headers and encoded body as received) of every request of
// the browser context (the page and its workers); long tasks are PerformanceObserver 'longtask' entries
// (wall-clock), and the longest main-thread task by CPU time and on the clock (every task, the first layout
// included, which the Long Tasks API seldom reports) comes from a Chromium trace's RunTask events; WebAssembly
// compilations are the V8 compile events of the same trace (category v8.wasm) in every thread. Every figure is
// the median of the visits (5 unless --repeats), printed with its range; the two languages' pages alternate,
// visit by visit.
//   node scripts/bench-page.mjs [--repeats N] [--json] [--site DIR] [--by-file]
// --by-file also lists the bytes of every file of the last visit, at the top of the page and with every widget
// computed, largest first.
// --site measures another built site (a copy of dist/ from another commit), to set two builds side by side.
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { WIDGETS } from '../web/components/registry.js';
import { startServer } from './serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from './lib/chromium.mjs';
import { median } from './lib/median.mjs';
import { LANGUAGES } from '../web/languages.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const WIDGET_TAGS = WIDGETS.map((widget) => widget.tag);
// The widgets with a worker: they compute as they near the viewport, or on their Run button (worker 'on-run').
const WORKER_WIDGETS = WIDGETS.filter((widget) => widget.worker);
const PAGES = LANGUAGES.map((row) => row.page); // visited in turn
const RUN_TIMEOUT_MS = 120000;
// Event names V8 gives a WebAssembly module's compilation in a trace (synchronous, asynchronous, streaming).
const WASM_COMPILE_EVENTS = new Set(['wasm.SyncCompile', 'wasm.AsyncCompile', 'wasm.StartStreamingCompilation']);

/** Runs in the page before its scripts: long tasks and the moment the first widget shows numbers. */
function pageProbe() {
  window.benchLongTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      window.benchLongTasks.push({ start: entry.startTime, duration: entry.duration });
  }).observe({ type: 'longtask', buffered: true });
  window.benchFirstNumbers = null;
  new MutationObserver((records, observer) => {
    if (records.some((r) => r.target.hasAttribute?.('data-ready'))) {
      window.benchFirstNumbers = performance.now();
      observer.disconnect();
    }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-ready'] });
}

/**
 * Watches every finished request of a browser context, pages and workers alike; `take()` resolves to the
 * responses since the last take(): { url, bytes (headers and encoded body, as received), status }.
 */
function watchNetwork(context) {
  let pending = [];
  context.on('requestfinished', (request) => {
    pending.push(
      (async () => {
        const [sizes, response] = await Promise.all([request.sizes(), request.response()]);
        return {
          url: request.url(),
          bytes: sizes.responseHeadersSize + sizes.responseBodySize,
          status: response?.status(),
        };
      })(),
    );
  });
  return {
    async take() {
      const taken = pending;
      pending = [];
      return Promise.all(taken);
    },
  };
}

const sum = (values) => values.reduce((a, b) => a + b, 0);

function networkFigures(responses) {
  return {
    bytes: sum(responses.map((r) => r.bytes)),
    responses: responses.length,
    // A response from the cache arrives with no byte on the wire (a revalidated one, with its headers).
    fromNetwork: responses.filter((r) => r.bytes > 0).length,
    wasmFetches: responses.filter((r) => /\.wasm(\?|$)/.test(r.url) && r.bytes > 0).length,
  };
}

/** Until every widget has drawn and the chapter is laid out (shell/page.js marks the article when its turns end). */
async function waitWidgetsDrawn(page) {
  await page.waitForFunction(
    (tags) =>
      tags.every((tag) => [...document.querySelectorAll(tag)].every((el) => el.hasAttribute('data-ready'))) &&
      document.querySelector('article')?.hasAttribute('data-laid-out') !== false,
    WIDGET_TAGS,
    { timeout: RUN_TIMEOUT_MS },
  );
}

async function settle(page) {
  await page.waitForLoadState('networkidle', { timeout: RUN_TIMEOUT_MS });
}

async function computeEveryWidget(page) {
  for (const { tag, worker } of WORKER_WIDGETS) {
    for (const widget of await page.locator(tag).all()) {
      await widget.scrollIntoViewIfNeeded();
      if (worker === 'on-run') {
        // The model table has no Run of its own in the chapter: its button hands the block to the placement lab.
        const run = widget.locator('button.run');
        if (!(await run.count())) continue;
        await run.click();
      }
      await page.waitForFunction(
        (el) => el.dataset.status === 'done' || el.dataset.status === 'error',
        await widget.elementHandle(),
        { timeout: RUN_TIMEOUT_MS, polling: 100 },
      );
    }
  }
}

function countWasmCompilations(traceEvents) {
  return traceEvents.filter(
    (e) => WASM_COMPILE_EVENTS.has(e.name) && (e.ph === 'X' || e.ph === 'B' || e.ph === 'I' || e.ph === 'i'),
  ).length;
}

/**
 * The longest task of the page's main thread before and after the page's 'bench-loaded' time stamp, by its CPU
 * time and on the clock (ms). A long task's wall-clock length also counts the time the thread waited for a core
 * or for another process, which on a shared machine can be most of it; its CPU time is the work the page asked
 * for. The trace sees every task, the page's first layout included, which the Long Tasks API seldom reports.
 */
function longestTasks(traceEvents, origin) {
  const renderers = new Set(
    traceEvents
      .filter((e) => e.name === 'ResourceSendRequest' && e.args?.data?.url?.startsWith(origin))
      .map((e) => e.pid),
  );
  const mainThreads = new Set(
    traceEvents
      .filter((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && renderers.has(e.pid))
      .map((e) => `${e.pid}:${e.tid}`),
  );
  const tasks = traceEvents.filter((e) => e.name === 'RunTask' && e.ph === 'X' && mainThreads.has(`${e.pid}:${e.tid}`));
  const loaded =
    traceEvents.find((e) => e.name === 'TimeStamp' && e.args?.data?.message === 'bench-loaded')?.ts ?? Infinity;
  const longest = (list) => ({
    cpu: Math.max(0, ...list.map((t) => (t.tdur ?? t.dur) / 1000)),
    clock: Math.max(0, ...list.map((t) => t.dur / 1000)),
  });
  return { load: longest(tasks.filter((t) => t.ts < loaded)), compute: longest(tasks.filter((t) => t.ts >= loaded)) };
}

async function visit(browser, url, { revisit }) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(pageProbe);
  const network = watchNetwork(context);
  const page = await context.newPage();
  await browser.startTracing(page, {
    categories: [
      'v8.wasm',
      'disabled-by-default-v8.wasm.detailed',
      'devtools.timeline',
      'disabled-by-default-devtools.timeline',
    ],
  });
  await page.goto(url);
  await waitWidgetsDrawn(page);
  await settle(page);
  const topResponses = await network.take();
  const top = {
    ...networkFigures(topResponses),
    ...(await page.evaluate(() => ({
      firstNumbersMs: window.benchFirstNumbers,
      longestTaskMs: Math.max(0, ...window.benchLongTasks.map((t) => t.duration)),
      longTasks: window.benchLongTasks.length,
      loadedAt: performance.now(),
    }))),
  };
  await page.evaluate(() => console.timeStamp('bench-loaded'));
  await computeEveryWidget(page);
  await settle(page);
  const { traceEvents } = JSON.parse((await browser.stopTracing()).toString('utf8'));
  const traced = longestTasks(traceEvents, new URL(url).origin);
  top.longestTaskCpuMs = traced.load.cpu;
  top.longestTaskTracedMs = traced.load.clock;
  const during = await page.evaluate(
    (from) => window.benchLongTasks.filter((t) => t.start >= from).map((t) => t.duration),
    top.loadedAt,
  );
  const allResponses = [...topResponses, ...(await network.take())];
  const all = {
    ...networkFigures(allResponses),
    wasmCompilations: countWasmCompilations(traceEvents),
    longestTaskMs: Math.max(0, ...during),
    longestTaskCpuMs: traced.compute.cpu,
    longTasks: during.length,
  };
  let again = null;
  if (revisit) {
    const second = await context.newPage();
    await second.goto(url);
    await waitWidgetsDrawn(second);
    await settle(second);
    again = networkFigures(await network.take());
  }
  await context.close();
  return { top, all, revisit: again, responses: { top: topResponses, all: allResponses } };
}

const FIGURES = [
  ['top', 'bytes', 'top of the page: bytes on the wire', 'KB'],
  ['top', 'responses', 'top of the page: responses', ''],
  ['top', 'fromNetwork', 'top of the page: responses over the network', ''],
  ['top', 'firstNumbersMs', 'first numbers after navigation', 'ms'],
  ['top', 'longestTaskMs', 'longest main-thread task, loading', 'ms'],
  ['top', 'longestTaskCpuMs', '  the longest by CPU time, loading', 'ms'],
  ['top', 'longestTaskTracedMs', '  the longest on the clock, first layout too', 'ms'],
  ['top', 'longTasks', 'main-thread tasks over 50 ms, loading', ''],
  ['all', 'bytes', 'every widget computed: bytes on the wire', 'KB'],
  ['all', 'responses', 'every widget computed: responses', ''],
  ['all', 'fromNetwork', 'every widget computed: over the network', ''],
  ['all', 'wasmFetches', 'WebAssembly fetches (not from cache)', ''],
  ['all', 'wasmCompilations', 'WebAssembly compilations', ''],
  ['all', 'longestTaskMs', 'longest main-thread task, widgets computing', 'ms'],
  ['all', 'longestTaskCpuMs', '  the longest by CPU time, computing', 'ms'],
  ['all', 'longTasks', 'main-thread tasks over 50 ms, computing', ''],
  ['revisit', 'bytes', 'second visit (warm cache): bytes on the wire', 'KB'],
  ['revisit', 'responses', 'second visit: responses', ''],
  ['revisit', 'fromNetwork', 'second visit: over the network (304s included)', ''],
];

/** Visits the chapter `repeats` times (the two languages alternating); resolves to the figures with ranges. */
export async function benchPage({ repeats = 5, log = console.log, siteRoot = join(root, 'dist') } = {}) {
  const { server, url } = await startServer({ siteRoot, port: 0 });
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
  const runs = [];
  try {
    for (let k = 0; k < repeats; k++) {
      const path = PAGES[k % PAGES.length];
      log(`page visit ${k + 1} of ${repeats} (${path})...`);
      runs.push(await visit(browser, new URL(path, url).href, { revisit: true }));
    }
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
  const figures = FIGURES.map(([phase, key, label, unit]) => {
    const values = runs.map((run) => run[phase]?.[key]).filter((v) => typeof v === 'number');
    const scale = unit === 'KB' ? 1 / 1000 : 1;
    return {
      phase,
      key,
      label,
      unit,
      value: median(values) * scale,
      min: Math.min(...values) * scale,
      max: Math.max(...values) * scale,
      runs: values.length,
    };
  });
  figures.lastVisitResponses = runs.at(-1)?.responses ?? { top: [], all: [] };
  return figures;
}

/** The bytes of each file of one visit, largest first (a file fetched twice, by the page and a worker, sums). */
export function printBytesByFile(responses, heading, log = console.log) {
  const byPath = new Map();
  for (const { url, bytes } of responses) {
    const path = new URL(url).pathname;
    byPath.set(path, (byPath.get(path) ?? 0) + bytes);
  }
  log(`\nBytes on the wire by file, ${heading}:`);
  for (const [path, bytes] of [...byPath].sort((a, b) => b[1] - a[1]))
    log(`${(bytes / 1000).toFixed(1).padStart(8)} KB  ${path}`);
}

export function printPageFigures(figures, log = console.log) {
  const fmt = (v, unit) => (unit === 'KB' ? v.toFixed(0) : unit === 'ms' ? v.toFixed(0) : String(Math.round(v)));
  log(`\nThe page in headless Chromium (scripts/bench-page.mjs): median of ${figures[0]?.runs ?? 0} visits (range)`);
  // Task lengths are wall-clock time: on a busy machine a task also counts the time its thread waited for a core.
  log(`(load average ${loadavg()[0].toFixed(1)} on ${cpus().length} cores as the visits ended)`);
  for (const f of figures)
    log(
      `${f.label.padEnd(46)} ${fmt(f.value, f.unit).padStart(7)} ${f.unit.padEnd(3)} (${fmt(f.min, f.unit)}-${fmt(f.max, f.unit)})`,
    );
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const flag = process.argv.indexOf('--repeats');
  const repeats = flag > 0 ? Number(process.argv[flag + 1]) : 5;
  const asJson = process.argv.includes('--json');
  const site = process.argv.indexOf('--site');
  const siteRoot = site > 0 ? process.argv[site + 1] : undefined;
  const figures = await benchPage({ repeats, siteRoot, log: asJson ? () => {} : console.log });
  if (asJson) console.log(JSON.stringify(figures, null, 1));
  else printPageFigures(figures);
  if (process.argv.includes('--by-file')) {
    const { top, all } = figures.lastVisitResponses;
    printBytesByFile(top, 'the last visit, the top of the page');
    printBytesByFile(all, 'the last visit with every widget computed');
  }
}
