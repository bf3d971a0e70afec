// The single-file chapter, dist/offline/residual-lab-<lang>.html, opened from disk (file://) with no server: the
// widgets compute (the vector lab on the page, a decoder widget in its Blob worker, the checkpoint probe on its
// inlined toy) under the file's strict CSP, with no console error and no CSP violation; its language menu keeps the
// widgets' settings and the section (?state#section) as the served pages' does; the probe's fetch panel says why it
// cannot fetch from a file, in the page's language. And dist/index.html opened from disk points the reader to it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, SCREENSHOT_DIR } from './harness.mjs';
import { eventually, textOf } from './widget-helpers.mjs';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { load } from '../../dist/lib/residual-lab.js';
import { formatFixed } from '../../web/components/shared/format.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { loadLanguage, stringsOf } from '../../web/languages.js';

const dist = join(import.meta.dirname, '../../dist');
let browser;
before(async () => {
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
});
after(async () => {
  await browser?.close();
});

/** Opens a file:// page, recording console errors, uncaught errors, CSP violations and failed requests. */
async function openFile(path) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  page.on('worker', (worker) =>
    worker.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`worker console: ${msg.text()}`);
    }),
  );
  await page.goto(pathToFileURL(join(dist, path)).href);
  return { page, problems, context };
}

test('the offline file carries a strict policy: hashes for its inline code, no unsafe-eval, no file it would fetch', () => {
  const html = readFileSync(join(dist, 'offline/residual-lab-en.html'), 'utf8');
  const policy = html.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)">/)[1];
  assert.match(policy, /script-src 'sha256-[^']+' 'sha256-[^']+' 'wasm-unsafe-eval'/);
  assert.match(policy, /worker-src blob:/);
  assert.doesNotMatch(policy, /'unsafe-eval'|'unsafe-inline'|'self'/);
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+rel="stylesheet"/);
  assert.equal((html.match(/<script>/g) ?? []).length, 2, 'the theme script and the bundle');
});

test('offline, English: the vector lab shows its numbers and the gradient-flow widget computes in its worker', async () => {
  const { page, problems, context } = await openFile('offline/residual-lab-en.html');
  const vector = page.locator('rl-vector-lab').first();
  await eventually(
    () => vector.getAttribute('data-ready'),
    (v) => v !== null,
    'vector lab ready',
    15000,
  );
  // RMSNorm of (2, -1, 3, 0): rms = sqrt(14 / 4 + 1e-5) = 1.8708
  const rms = Math.sqrt(3.5 + 1e-5);
  const shown = (await textOf(vector.locator('output[aria-labelledby="row-rms"]')))
    .replace(/[[\]]/g, '')
    .split(',')
    .map(Number);
  assert.deepEqual(
    shown.map((v, i) => Math.abs(v - [2, -1, 3, 0][i] / rms) < 1e-3),
    [true, true, true, true],
    `RMSNorm output ${shown}`,
  );

  // Offline there is no embed page to frame: the share menu offers the link and the tag only.
  await vector.locator('details.share-menu summary').click();
  assert.deepEqual(await vector.locator('.share-actions button').allInnerTexts(), ['Copy link', 'Copy tag code']);

  const flow = page.locator('rl-gradient-flow');
  await flow.scrollIntoViewIfNeeded();
  await eventually(
    () => flow.getAttribute('data-status'),
    (s) => s === 'done',
    'gradient flow finishes in its worker',
    30000,
  );
  const plain = Number(await flow.locator('[data-readout="plain"] data').first().getAttribute('value'));
  const { gain, layers } = await flow.evaluate((el) => el.state); // the widget's defaults, whatever they are
  assert.ok(Math.abs(plain / gain ** layers - 1) < 1e-3, `gain^L = ${gain}^${layers}: shown ${plain}`);
  assert.ok(
    page.workers().length >= 1 && page.workers().every((w) => w.url().startsWith('blob:')),
    'the worker runs from a Blob URL',
  );
  // the checkpoint probe's trained toy is inlined in the file: it opens and runs with no network
  const probe = page.locator('rl-checkpoint-probe');
  await probe.scrollIntoViewIfNeeded();
  await eventually(
    () => probe.getAttribute('data-status'),
    (s) => s === 'done' || s === 'error',
    'the checkpoint probe runs its toy',
    30000,
  );
  assert.equal(await probe.getAttribute('data-status'), 'done', await textOf(probe.locator('.run-error')));
  assert.equal(await probe.locator('table.logit-lens tbody tr').count(), record.toys[0].engineConfig.nLayers + 1);
  // and draws what the API gives for the same files and prompt
  const toy = record.toys[0];
  const ckpt = await (await load()).openCheckpoint(toyFiles(toy));
  try {
    const T = ckpt.tokenize(toyWindow(toy)).length;
    const r = await ckpt.run(toyWindow(toy));
    const last = (norms) => formatFixed(norms[T - 1], 3);
    assert.deepEqual((await textOf(probe.locator('[data-readout="stream"]'))).match(/\d+\.\d{3}/g), [
      last(r.streamNorms[0]),
      last(r.streamNorms.at(-1)),
    ]);
  } finally {
    ckpt.dispose();
  }
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'offline-en.png') });
  assert.deepEqual(problems, []);
  await context.close();
});

test('offline, Chinese: the page is the Chinese chapter and its language menu leads to the English file', async () => {
  const { page, problems, context } = await openFile('offline/residual-lab-zh.html');
  assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
  await eventually(
    () => page.locator('rl-vector-lab').getAttribute('data-ready'),
    (v) => v !== null,
    'vector lab ready',
    15000,
  );
  assert.equal(await page.locator('[data-lang-link="en"]').getAttribute('href'), 'residual-lab-en.html');
  assert.equal(await page.locator('[data-lang-link="zh"]').getAttribute('href'), 'residual-lab-zh.html');
  assert.deepEqual(problems, []);
  await context.close();
});

test('offline: the language menu keeps ?state#section; the fetch panel says, in the page’s language, why it cannot fetch', async () => {
  const { page, problems, context } = await openFile('offline/residual-lab-zh.html');
  const vector = page.locator('rl-vector-lab');
  await eventually(
    () => vector.getAttribute('data-ready'),
    (v) => v !== null,
    'vector lab ready',
    15000,
  );
  await vector.getByLabel('输入向量 x', { exact: true }).fill('1, 2, 3, 4');
  await eventually(
    () => page.evaluate(() => location.search),
    (search) => search.includes('vec.x='),
    'the setting in the address',
  );
  // the section, as a reader goes to it: its contents link (which holds it in view while the widgets above grow)
  await page.locator('[data-toc-link="softcap"]').click();
  await eventually(
    () => page.evaluate(() => document.getElementById('softcap').getBoundingClientRect().top),
    (top) => top >= 0 && top < 200,
    'the contents link scrolls to the section',
  );
  // the probe's fetch panel: a sentence in Chinese instead of fields that cannot work from file://
  await loadLanguage('zh');
  const panel = page.locator('rl-checkpoint-probe .fetch-panel');
  assert.equal(await panel.locator('#field-repo, [data-fetch-chapter], #field-token').count(), 0);
  const said = (where) => where.locator('.hint').evaluate((hint) => hint.textContent);
  assert.equal(await said(panel), stringsOf('zh', 'rl-checkpoint-probe').fetchFromFile);
  // the menu, as a reader reaches for it
  await page.locator('[data-lang-menu] summary').focus();
  await page.keyboard.press('Enter');
  await page.getByRole('link', { name: 'English', exact: true }).focus();
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/residual-lab-en\.html\?.*vec\.x=.*#softcap$/);
  await eventually(
    () => page.locator('rl-vector-lab').getAttribute('data-ready'),
    (v) => v !== null,
    'the English file’s vector lab ready',
    15000,
  );
  assert.equal(
    await page.locator('rl-vector-lab').getByLabel('Input vector x', { exact: true }).inputValue(),
    '1, 2, 3, 4',
  );
  await loadLanguage('en');
  assert.equal(
    await said(page.locator('rl-checkpoint-probe .fetch-panel')),
    stringsOf('en', 'rl-checkpoint-probe').fetchFromFile,
  );
  assert.deepEqual(problems, []);
  await context.close();
});

test('dist/index.html opened from disk says to use the offline file', async () => {
  const { page, context } = await openFile('en/index.html');
  const note = page.locator('.file-note');
  assert.equal(await note.isVisible(), true);
  assert.match(await note.innerText(), /offline/);
  assert.match(await note.locator('a').getAttribute('href'), /offline\/residual-lab-en\.html$/);
  await page.screenshot({ path: join(SCREENSHOT_DIR, 'file-protocol-note-en.png') });
  await context.close();
});
