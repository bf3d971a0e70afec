#!/usr/bin/env node
// What the first screen's parts cost the page before it is first shown. The chapter is visited in headless
// Chromium (the flags of scripts/lib/chromium.mjs) as built and with parts of its HTML taken out on the way in,
// the variants and the two languages taking turns. Every variant, 'as built' included, passes through
// Playwright's request interception, which itself adds about 10 ms to the Chinese page's first frame; no trace
// runs (it slows the page further). For each visit, the Long Animation Frame entries of the frames that began
// before the first paint give their blocking time: how far a frame's longest task, its rendering included,
// went over 50 ms (0 when none did). The first layout is the rendering of one of them, and the Long Tasks API
// seldom reports it.
//   node bench/first-frame.mjs [--repeats N]      (on the built dist/: `node scripts/build.mjs` first)
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../scripts/lib/chromium.mjs';
import { LANGUAGES } from '../web/languages.js';

// The chapter cut short after a point: what comes later is taken out, not moved up into view. Each variant
// keeps less of the page than the one before.
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

/** Runs in the page before its scripts: the Long Animation Frame entries (frames over 50 ms only). */
function frameProbe() {
  window.benchFrames = [];
  new PerformanceObserver((list) => {
    for (const { startTime, duration, blockingDuration } of list.getEntries())
      window.benchFrames.push({ startTime, duration, blockingDuration });
  }).observe({ type: 'long-animation-frame', buffered: true });
}

/** The longest blocking time (ms) of the frames before the first paint, in one visit to `url`, its HTML rewritten by `rewrite`. */
async function firstFrameBlocking(browser, url, rewrite) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(frameProbe);
  const page = await context.newPage();
  await page.route(url, async (route) => {
    const response = await route.fetch();
    await route.fulfill({ response, body: rewrite(await response.text()) });
  });
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForTimeout(1000); // the frame's entry is reported after it ends
  // The frames before the first paint was shown: the first layout's and any before it (none: under 50 ms in all).
  const blocking = await page.evaluate(() => {
    const paint = performance.getEntriesByName('first-paint')[0].startTime;
    return Math.max(0, ...window.benchFrames.filter((f) => f.startTime < paint).map((f) => f.blockingDuration));
  });
  await context.close();
  return blocking;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

export async function benchFirstFrame({ repeats = 6, log = console.log } = {}) {
  const { server, url: base } = await startServer({ port: 8180 });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  const blocking = VARIANTS.map(() => LANGUAGES.map(() => []));
  try {
    for (let round = 0; round < repeats; round++) {
      log(`round ${round + 1} of ${repeats}...`);
      for (const [v, [, rewrite]] of VARIANTS.entries())
        for (const [l, language] of LANGUAGES.entries())
          blocking[v][l].push(await firstFrameBlocking(browser, new URL(language.page, base).href, rewrite));
    }
  } finally {
    await browser.close();
    server.close();
  }
  log(
    `\nBefore the first paint, the longest task over 50 ms (a frame's blocking time): median of ${repeats} visits (range), visits over`,
  );
  log(`${' '.repeat(40)}${LANGUAGES.map((row) => row.code.padEnd(26)).join('')}`);
  for (const [v, [name]] of VARIANTS.entries()) {
    const cells = blocking[v].map((values) => {
      const over = values.filter((ms) => ms > 0).length;
      const range = `${median(values).toFixed(0)} ms (${Math.min(...values).toFixed(0)}-${Math.max(...values).toFixed(0)})`;
      return `${range}, ${over} of ${values.length}`.padEnd(26);
    });
    log(`${name.padEnd(40)}${cells.join('')}`);
  }
  return blocking;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--repeats');
  await benchFirstFrame({ repeats: at > 0 ? Number(process.argv[at + 1]) : undefined });
}
