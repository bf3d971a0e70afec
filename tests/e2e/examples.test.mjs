// The course material of examples/, served as a course site would serve it: from a second server on another
// origin (http://localhost:<port>, the lab on http://127.0.0.1:<other port>). A course page with hostile styles
// placing widgets by tag, a reveal.js deck whose slides are scaled by a CSS transform, an LMS page that allows
// no script and frames the embed page, and a notebook (its .ipynb and its HTML export) framing it too.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';
import { startExamplesServer } from '../../examples/serve.mjs';
import { CHROMIUM_ARGS, CHROMIUM_PATH, SCREENSHOT_DIR } from './harness.mjs';
import { eventually, textOf } from './widget-helpers.mjs';
import { load } from '../../dist/lib/residual-lab.js';
import { formatFixed } from '../../web/components/shared/format.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { record, toyFiles } from '../fixtures/toys.mjs';

const root = join(import.meta.dirname, '../..');
let labServer;
let examplesServer;
let browser;
let labUrl;
let examplesUrl;

before(async () => {
  const lab = await startServer({ siteRoot: join(root, 'dist'), port: 0 });
  labServer = lab.server;
  labUrl = lab.url;
  const examples = await startExamplesServer({ labOrigin: new URL(lab.url).origin, port: 0 });
  examplesServer = examples.server;
  examplesUrl = examples.url;
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: CHROMIUM_ARGS,
  });
});
after(async () => {
  await browser?.close();
  await Promise.all(
    [labServer, examplesServer].filter(Boolean).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

/** Opens an example page, recording console errors (of frames and workers too), CSP reports and failed requests. */
async function openExample(path, { viewport = { width: 1280, height: 900 }, route } = {}) {
  const context = await browser.newContext({ viewport });
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  if (route) await route(context);
  const page = await context.newPage();
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`uncaught: ${err.message}`));
  page.on('requestfailed', (req) => problems.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`HTTP ${res.status()}: ${res.url()}`);
  });
  page.on('worker', (worker) =>
    worker.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(`worker: ${msg.text()}`);
    }),
  );
  await page.goto(new URL(path, examplesUrl).href);
  return {
    page,
    problems,
    close: () => context.close(),
    async screenshot(name) {
      mkdirSync(SCREENSHOT_DIR, { recursive: true });
      await page.screenshot({ path: join(SCREENSHOT_DIR, `${name}.png`), fullPage: true });
    },
  };
}

const ready = (locator, timeout = 20000) =>
  eventually(
    () => locator.getAttribute('data-ready'),
    (v) => v !== null,
    'widget ready',
    timeout,
  );
const vectorOf = async (locator) => (await textOf(locator)).replace(/[[\]]/g, '').split(',').map(Number);
const near = (a, b, tolerance) => a.length === b.length && a.every((v, i) => Math.abs(v - b[i]) <= tolerance);

test('the examples are on another origin than the lab', () => {
  assert.notEqual(new URL(examplesUrl).origin, new URL(labUrl).origin);
});

test('course page on another origin: the one script and its tags work under hostile styles, the worker included', async () => {
  const view = await openExample('course-page/');
  const { page } = view;
  const vector = page.locator('rl-vector-lab');
  await ready(vector);
  // x="3, 4" from the tag's attribute: RMSNorm (3, 4) / sqrt(12.5 + 1e-5)
  const rms = Math.sqrt(12.5 + 1e-5);
  const shown = await vectorOf(vector.locator('output[aria-labelledby="row-rms"]'));
  assert.ok(near(shown, [3 / rms, 4 / rms], 1e-3), `RMSNorm output ${shown}`);

  // The hostile `canvas { display: none !important }` does not reach into the widget: its uPlot chart is drawn.
  const softcap = page.locator('rl-softcap-explorer');
  await ready(softcap);
  const canvas = await softcap.evaluate(
    (el) => el.shadowRoot.querySelector('.line-chart canvas').getBoundingClientRect().width,
  );
  assert.ok(canvas > 200, `chart canvas width ${canvas}`);

  // The decoder widget's worker: a Blob module that imports the lab's worker from the lab's origin.
  const flow = page.locator('rl-gradient-flow');
  await flow.scrollIntoViewIfNeeded();
  await eventually(
    () => flow.getAttribute('data-status'),
    (s) => s === 'done',
    'gradient flow finishes in its worker',
    30000,
  );
  const plain = Number(await flow.locator('[data-readout="plain"] data').first().getAttribute('value'));
  assert.ok(Math.abs(plain / 0.8 ** 8 - 1) < 1e-3, `layers="8" gain="0.8": gain^L = 0.8^8, shown ${plain}`);
  assert.ok(
    page.workers().some((w) => w.url().startsWith('blob:')),
    'the worker was started from a Blob URL',
  );
  await page.evaluate(() => window.scrollTo(0, 0));
  await view.screenshot('example-course-page');
  assert.deepEqual(view.problems, []);
  await view.close();
});

test('course page on another origin: the checkpoint probe fetches its toy from the lab and draws what the API gives', async () => {
  const view = await openExample('course-page/');
  const probe = view.page.locator('rl-checkpoint-probe');
  // the probe runs once it nears the viewport, and the widgets above it grow as they are defined, one per task:
  // it is brought into view until its run starts, not once
  await view.page.evaluate(() => customElements.whenDefined('rl-checkpoint-probe'));
  await eventually(
    async () => (await probe.getAttribute('data-status')) ?? (await probe.scrollIntoViewIfNeeded(), null),
    (s) => s === 'done' || s === 'error',
    'the probe runs its toy in its worker',
    60000,
  );
  assert.equal(await probe.getAttribute('data-status'), 'done', await textOf(probe.locator('.run-error')));
  // the default toy and its probe window, opened and run by the API in node from the same files
  const toy = record.toys[0];
  const api = await load();
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  try {
    const T = ckpt.tokenize(toyWindow(toy)).length;
    const r = await ckpt.run(toyWindow(toy), { lens: { k: 3, position: T - 1 } });
    const last = (norms) => formatFixed(norms[T - 1], 3);
    const numbers = async (name) => (await textOf(probe.locator(`[data-readout="${name}"]`))).match(/\d+\.\d{3}/g);
    assert.deepEqual(await numbers('stream'), [last(r.streamNorms[0]), last(r.streamNorms.at(-1))]);
    assert.deepEqual(await numbers('final'), [last(r.streamNorms.at(-1)), last(r.finalNorms)]);
    const lens = await probe
      .locator('table.logit-lens tbody tr')
      .evaluateAll((rows) => rows.map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent.trim())));
    assert.equal(lens.length, r.lens.layers.length);
    const vocab = JSON.parse(new TextDecoder().decode(toyFiles(toy)['tokenizer.json'])).model.vocab;
    const tokenOf = new Map(Object.entries(vocab).map(([token, id]) => [id, token.replace(/ /g, '␣')]));
    assert.deepEqual(
      lens,
      r.lens.layers.map((layer) =>
        Array.from(layer.ids, (id, j) => `${tokenOf.get(id)} ${formatFixed(layer.probs[j], 3)}`),
      ),
      "the lens table's tokens and probabilities",
    );
  } finally {
    ckpt.dispose();
  }
  // the site build names its assets by content: models/<toy>/model-<hash>.safetensors, on the lab's origin
  const fetched = await view.page.evaluate(() => performance.getEntriesByType('resource').map((entry) => entry.name));
  const weights = new RegExp(`^${new URL(labUrl).origin}/models/${toy.name}/model[^/]*\\.safetensors$`);
  assert.ok(
    fetched.some((url) => weights.test(url)),
    `the toy's weights come from the lab's origin: ${fetched.join(' ')}`,
  );
  assert.deepEqual(view.problems, []);
  await view.close();
});

test('course page: when the lab cannot be loaded from the other origin, each widget says so', async () => {
  const view = await openExample('course-page/', { route: (context) => context.route('**/*.wasm', (r) => r.abort()) });
  const notice = view.page.locator('rl-vector-lab').locator('.notice').first();
  await eventually(() => notice.isVisible(), Boolean, 'a notice is shown', 15000);
  assert.match(await notice.textContent(), /The lab could not be loaded/); // (the page's CSS upper-cases what it shows)
  await view.close();
});

test('node examples/serve.mjs beside a running `npm start` (port 8080 taken) picks free ports and prints both addresses', async () => {
  // The stand-in for `npm start` on its default port; when something else already holds 8080, that is the case too.
  const blocker = createServer((req, res) => res.end('npm start'));
  const blocked = await new Promise((resolve) => {
    blocker.once('error', () => resolve(false));
    blocker.listen(8080, '127.0.0.1', () => resolve(true));
  });
  const env = { ...process.env };
  delete env.PORT;
  delete env.EXAMPLES_PORT;
  const child = spawn(process.execPath, [join(root, 'examples/serve.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk) => {
    out += chunk;
  });
  child.stderr.on('data', (chunk) => {
    err += chunk;
  });
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const printed = await Promise.race([
      eventually(
        async () => out,
        (text) => /The examples: \S+/.test(text),
        'the addresses printed',
        15000,
      ),
      exited.then((code) => {
        throw new Error(`examples/serve.mjs exited with ${code}: ${err}`);
      }),
    ]);
    const labUrl = printed.match(/The lab: (\S+)/)[1];
    const examplesUrl = printed.match(/The examples: (\S+)course-page\//)[1];
    assert.notEqual(new URL(labUrl).port, '8080');
    assert.notEqual(new URL(labUrl).port, new URL(examplesUrl).port);
    assert.equal((await fetch(new URL('course-page/', examplesUrl))).status, 200);
    const lab = await fetch(labUrl);
    assert.equal(lab.status, 200);
    assert.doesNotMatch(await lab.text(), /^npm start$/);
    assert.equal(err, '');
  } finally {
    child.kill();
    await exited;
    if (blocked) await new Promise((resolve) => blocker.close(resolve));
  }
});

test('reveal.js deck: a hover on a chart in a scaled slide reads the point under the pointer; sliders land where clicked', async () => {
  const view = await openExample('slides/#/1');
  const { page } = view;
  await page.waitForFunction(() => window.Reveal?.isReady());
  const scale = await page.evaluate(() => window.Reveal.getScale());
  assert.ok(Math.abs(scale - 1) > 0.1, `the slide is scaled (${scale})`);
  const softcap = page.locator('rl-softcap-explorer');
  await ready(softcap);
  const over = softcap.locator('.line-chart .u-over').first();
  await over.scrollIntoViewIfNeeded(); // a widget's slide scrolls when the widget is taller
  const box = await over.boundingBox();
  const layoutWidth = await over.evaluate((el) => el.offsetWidth);
  assert.ok(
    Math.abs(box.width / layoutWidth - scale) < 0.02,
    `the chart is drawn at the slide's scale (${box.width} / ${layoutWidth})`,
  );
  for (const fraction of [0.25, 0.75]) {
    await page.mouse.move(box.x + fraction * box.width, box.y + box.height / 2);
    // x axis from -200 to 200; the readout shows the data point nearest the pointer (x is rounded to integers)
    const expected = -200 + 400 * fraction;
    const xReadout = softcap.locator('.line-chart').first().locator('.u-legend .u-series').first().locator('.u-value');
    const x = await eventually(
      async () => Number(await xReadout.innerText()),
      (v) => Math.abs(v - expected) <= 8,
      `hover at ${fraction} of the width reads x near ${expected}`,
    );
    assert.ok(Math.abs(x - expected) <= 8);
  }
  await view.screenshot('example-slides-softcap');

  await page.evaluate(() => window.Reveal.slide(2));
  const vector = page.locator('rl-vector-lab');
  await ready(vector);
  const slider = vector.getByLabel('Scale x by', { exact: true });
  await slider.scrollIntoViewIfNeeded();
  const track = await slider.boundingBox();
  // the slider moves log10(scale) from -1 to 2
  const valueAt = (fraction) => -1 + 3 * fraction;
  await page.mouse.click(track.x + 0.8 * track.width, track.y + track.height / 2);
  await eventually(
    async () => Number(await slider.inputValue()),
    (v) => Math.abs(v - valueAt(0.8)) <= 0.2,
    'a click at 80% of the slider',
  );
  await page.mouse.move(track.x + 0.8 * track.width, track.y + track.height / 2);
  await page.mouse.down();
  await page.mouse.move(track.x + 0.3 * track.width, track.y + track.height / 2, { steps: 5 });
  await page.mouse.up();
  await eventually(
    async () => Number(await slider.inputValue()),
    (v) => Math.abs(v - valueAt(0.3)) <= 0.2,
    'a drag to 30% of the slider',
  );
  await view.screenshot('example-slides-vector');
  assert.deepEqual(view.problems, []);
  await view.close();
});

/**
 * The smallest text of a widget as it appears on screen: each element with text of its own, its font size times
 * the scale it is drawn at (the SVG's screen transform for chart text, the slide's transform for the rest).
 */
const smallestText = (widget) =>
  widget.evaluate((host) => {
    const slideScale = host.getBoundingClientRect().width / host.offsetWidth;
    const sizes = [];
    for (const el of host.shadowRoot.querySelectorAll('*')) {
      const ownText = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
      if (
        !ownText ||
        el.closest('[hidden]') ||
        !el.getClientRects().length ||
        ['STYLE', 'TITLE', 'title', 'OPTION'].includes(el.tagName)
      )
        continue;
      if (getComputedStyle(el).visibility === 'hidden') continue;
      const scale = el instanceof SVGElement ? el.ownerSVGElement.getScreenCTM().a : slideScale;
      sizes.push({ size: parseFloat(getComputedStyle(el).fontSize) * scale, text: el.textContent.trim().slice(0, 30) });
    }
    return sizes.reduce((min, s) => (s.size < min.size ? s : min));
  });

test("reveal.js deck at 1280 x 800: widget text is at least 14 px, and the vector lab's slide scrolls to its step-through", async () => {
  const view = await openExample('slides/#/2', { viewport: { width: 1280, height: 800 } });
  const { page } = view;
  await page.waitForFunction(() => window.Reveal?.isReady());
  const vector = page.locator('rl-vector-lab');
  await ready(vector);
  // The bars are drawn at a default width first and again at their own once laid out (bar-chart.js): the second.
  const smallest = await eventually(
    () => smallestText(vector),
    (found) => found.size >= 14,
    'widget text of 14 px or more',
    5000,
  ).catch(() => smallestText(vector));
  console.log(
    `slides at 1280 x 800: scale ${await page.evaluate(() => window.Reveal.getScale())}, smallest vector-lab text ${smallest.size.toFixed(1)} px ("${smallest.text}")`,
  );
  assert.ok(smallest.size >= 14, `"${smallest.text}" is ${smallest.size.toFixed(1)} px`);
  const next = vector.getByRole('button', { name: /Next step/ });
  await next.click({ timeout: 5000 });
  const box = await next.boundingBox();
  assert.ok(box.y >= 0 && box.y + box.height <= 800, `the step-through is on screen (${box.y})`);
  await eventually(
    () => textOf(vector.locator('.step-now')),
    (text) => text !== '',
    'the first step is shown',
  );

  await page.evaluate(() => window.Reveal.slide(1));
  const softcap = page.locator('rl-softcap-explorer');
  await ready(softcap);
  const capSmallest = await eventually(
    () => smallestText(softcap),
    (found) => found.size >= 14,
    'widget text of 14 px or more',
    5000,
  ).catch(() => smallestText(softcap));
  assert.ok(capSmallest.size >= 14, `soft-cap explorer: "${capSmallest.text}" is ${capSmallest.size.toFixed(1)} px`);
  assert.deepEqual(view.problems, []);
  await view.close();
});

test('LMS page (script-src none) frames the embed page; the framed widgets compute', async () => {
  const view = await openExample('lms/');
  const { page } = view;
  const frame = page.frameLocator('iframe').first();
  const vector = frame.locator('rl-vector-lab');
  await ready(vector);
  const rms = Math.sqrt(12.5 + 1e-5);
  assert.ok(
    near(await vectorOf(vector.locator('output[aria-labelledby="row-rms"]')), [3 / rms, 4 / rms], 1e-3),
    'x=3, 4 from the embed address',
  );
  await page.locator('iframe').nth(1).scrollIntoViewIfNeeded(); // the framed widget computes once its frame is in view
  const flow = page.frameLocator('iframe').nth(1).locator('rl-gradient-flow');
  await eventually(
    () => flow.getAttribute('data-status'),
    (s) => s === 'done',
    'framed gradient flow finishes',
    30000,
  );
  const plain = Number(await flow.locator('[data-readout="plain"] data').first().getAttribute('value'));
  assert.ok(Math.abs(plain / 0.8 ** 8 - 1) < 1e-3, `layers=8, gain=0.8: shown ${plain}`);
  await page.evaluate(() => window.scrollTo(0, 0));
  await view.screenshot('example-lms');
  assert.deepEqual(view.problems, []);
  await view.close();
});

test('notebook: the .ipynb is nbformat 4 with the iframe; its HTML export loads the embed frame', async () => {
  const notebook = JSON.parse(readFileSync(join(root, 'examples/notebook/residual-lab.ipynb'), 'utf8'));
  assert.equal(notebook.nbformat, 4);
  assert.ok(notebook.nbformat_minor >= 5);
  assert.equal(notebook.metadata.kernelspec.language, 'python');
  for (const cell of notebook.cells) {
    assert.ok(
      ['markdown', 'code'].includes(cell.cell_type) &&
        Array.isArray(cell.source) &&
        typeof cell.metadata === 'object' &&
        /^[\w-]{1,64}$/.test(cell.id),
      `cell ${cell.id}`,
    );
    if (cell.cell_type === 'code') assert.ok(Array.isArray(cell.outputs) && 'execution_count' in cell);
  }
  const code = notebook.cells.find((c) => c.source.join('').includes('IFrame('));
  assert.match(code.source.join(''), /from IPython\.display import IFrame/);
  const html = code.outputs.find((o) => o.data?.['text/html']).data['text/html'].join('');
  const src = new URL(html.match(/src="([^"]+)"/)[1]);
  assert.equal(src.pathname, '/embed.html');
  assert.deepEqual(Object.fromEntries(src.searchParams), { widget: 'vector-lab', x: '3, 4', lang: 'en' });
  // The stream output of the third cell is the RMS the widget shows: sqrt(12.5)
  assert.equal(Number(notebook.cells[2].outputs[0].text.join('')), Math.sqrt(12.5));

  const view = await openExample('notebook/residual-lab.html');
  const vector = view.page.frameLocator('iframe').locator('rl-vector-lab');
  await ready(vector);
  const rms = Math.sqrt(12.5 + 1e-5);
  assert.ok(near(await vectorOf(vector.locator('output[aria-labelledby="row-rms"]')), [3 / rms, 4 / rms], 1e-3));
  await view.screenshot('example-notebook');
  assert.deepEqual(view.problems, []);
  await view.close();
});
