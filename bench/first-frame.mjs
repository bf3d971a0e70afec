#!/usr/bin/env node
// What the first screen's parts cost the page before it is first shown, in Chromium with no automation attached
// (request interception alone adds about 10 ms to the Chinese page's first frame, a trace more). Each visit starts
// Chromium (the flags of scripts/lib/chromium.mjs) with a fresh profile on a page of another site showing
// Chinese and English text, as a reader's browser has shown before (its font service has then answered for
// those fonts); 2 s later that page opens the chapter. The chapter is served from a copy of dist/ whose pages
// load a probe script first (same origin, as the CSP asks), which reports the frames that began before the first
// paint, from their Long Animation Frame entries: the blocking time of the longest, that is how far its longest
// task, its rendering included, went over 50 ms (0 when none did). The first layout is the rendering of one of
// those frames, and the Long Tasks API seldom reports it. The chapter is measured as built and cut short at three
// points (what comes later taken out, not moved up into view), the variants and the languages taking turns.
//   node bench/first-frame.mjs [--repeats N]      (on the built dist/: `node scripts/build.mjs` first)
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { median } from '../scripts/lib/median.mjs';
import { LANGUAGES } from '../web/languages.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const VISIT_TIMEOUT_MS = 30000;

const cutAfter = (pattern) => (html) =>
  html.replace(/<article[^>]*>[\s\S]*<\/article>/, (article) => {
    const end = article.match(pattern);
    return article.slice(0, end.index + end[0].length) + '</article>';
  });
const VARIANTS = [
  ['as built', (html) => html],
  ['cut after the first section', cutAfter(/<\/section>/)],
  ['cut after the introduction', cutAfter(/(?=<section)/)],
  ['cut after the title', cutAfter(/<\/h1>/)],
];

// Runs first in the chapter's page; reports once the page has loaded and its first frames are over.
const PROBE = `(() => {
  const frames = [];
  new PerformanceObserver((list) => frames.push(...list.getEntries())).observe({ type: 'long-animation-frame', buffered: true });
  addEventListener('load', () => setTimeout(() => {
    const paint = performance.getEntriesByName('first-paint')[0].startTime;
    const blocking = Math.max(0, ...frames.filter((f) => f.startTime < paint).map((f) => f.blockingDuration));
    fetch('/__report?blocking=' + blocking);
  }, 2000));
})();`;

// The page of another site the browser shows first; it opens the page named by its ?to= (a script: the CSP).
const START_PAGE = `<!doctype html><meta charset="utf-8"><title>another page</title><script src="__start.js"></script>
<h1>另一个页面 Another page</h1><p>中文和 English 文字。<b>粗体 bold</b> <small>小字 small</small> <code>代码 code</code></p>`;
const START_SCRIPT = `setTimeout(() => location.replace(new URLSearchParams(location.search).get('to')), 2000);`;

/** One visit to `page` (a path of the site) in a new Chromium; resolves to the blocking time the page reported. */
async function visit(origins, page, reports) {
  const profile = mkdtempSync(join(tmpdir(), 'residual-lab-first-frame-'));
  const target = `${origins.page}${page}`;
  const reported = new Promise((resolve) => reports.push(resolve));
  const browser = spawn(
    CHROMIUM_PATH,
    [
      ...CHROMIUM_ARGS,
      `--user-data-dir=${profile}`,
      '--window-size=1280,900',
      `${origins.start}__start.html?to=${encodeURIComponent(target)}`,
    ],
    { stdio: 'ignore', detached: true },
  );
  let timer;
  const blocking = await Promise.race([
    reported,
    new Promise((resolve) => (timer = setTimeout(() => resolve(null), VISIT_TIMEOUT_MS))),
  ]);
  clearTimeout(timer);
  process.kill(-browser.pid, 'SIGKILL');
  await new Promise((resolve) => browser.once('exit', resolve));
  rmSync(profile, { recursive: true, force: true });
  if (blocking === null) throw new Error(`${target} reported nothing within ${VISIT_TIMEOUT_MS / 1000} s`);
  return blocking;
}

export async function benchFirstFrame({ repeats = 6, log = console.log } = {}) {
  const site = mkdtempSync(join(tmpdir(), 'residual-lab-first-frame-site-'));
  cpSync(join(root, 'dist'), site, { recursive: true });
  writeFileSync(join(site, '__probe.js'), PROBE);
  writeFileSync(join(site, '__start.html'), START_PAGE);
  writeFileSync(join(site, '__start.js'), START_SCRIPT);
  const pages = LANGUAGES.map((language) => {
    const file = join(site, language.page);
    rmSync(`${file}.br`, { force: true }); // the server would send these, not the variant written below
    rmSync(`${file}.gz`, { force: true });
    return { file, html: readFileSync(file, 'utf8').replace('<head>', '<head><script src="/__probe.js"></script>') };
  });
  const { server, url } = await startServer({ siteRoot: site, port: 8180 });
  // The chapter on 127.0.0.1, the first page on localhost: two sites, so the chapter gets a renderer of its own.
  const origins = { page: url, start: url.replace('127.0.0.1', 'localhost') };
  const reports = []; // a resolver per visit, in order: one visit runs at a time
  server.on('request', (req) => {
    const query = new URL(req.url, url);
    if (query.pathname === '/__report') reports.shift()?.(Number(query.searchParams.get('blocking')));
  });
  const blocking = VARIANTS.map(() => LANGUAGES.map(() => []));
  try {
    for (let round = 0; round < repeats; round++) {
      log(`round ${round + 1} of ${repeats}...`);
      for (const [v, [, rewrite]] of VARIANTS.entries())
        for (const [l, language] of LANGUAGES.entries()) {
          writeFileSync(pages[l].file, rewrite(pages[l].html));
          blocking[v][l].push(await visit(origins, language.page, reports));
        }
    }
  } finally {
    server.close();
    rmSync(site, { recursive: true, force: true });
  }
  log(`\nBefore the first paint, the longest task over 50 ms: median of ${repeats} visits (range), visits over 50 ms`);
  log(`${' '.repeat(32)}${LANGUAGES.map((row) => row.code.padEnd(26)).join('')}`);
  for (const [v, [name]] of VARIANTS.entries()) {
    const cells = blocking[v].map((values) => {
      const over = values.filter((ms) => ms > 0).length;
      const range = `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
      return `${range}, ${over} of ${values.length}`.padEnd(26);
    });
    log(`${name.padEnd(32)}${cells.join('')}`);
  }
  return blocking;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--repeats');
  await benchFirstFrame({ repeats: at > 0 ? Number(process.argv[at + 1]) : undefined });
}
