// <rl-gradient-flow>'s trained-model half in the served chapter: a link opens it on a shipped toy, the select on the
// other, and it draws what ckpt.gradients gives for the same files and text, run here in node from web/models/
// (gradientSummary, the figures the chapter quotes: tests/js/content-gradients.test.mjs); a broken file is refused
// with a message and the last figures stay, dimmed; a model the probe stored from a (mock) Hub is listed and
// measured from this browser's storage, on the chapter's prompt; the Chinese page speaks Chinese.
//   node --test --test-concurrency=1 tests/e2e/gradient-flow-model.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { stringsOf } from '../../web/languages.js';
import { startFakeHub } from '../fixtures/fake-hub.mjs';
import { gradientSummary } from '../../web/components/gradient-flow/model-gradients.js';
import { formatFixed } from '../../web/components/shared/format.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
import { probeDone } from './probe-helpers.mjs';
import {
  EN,
  ZH,
  eventually,
  finished,
  numbers,
  readout,
  relative,
  screenshotWidget,
  textOf,
} from './widget-helpers.mjs';

const EN_TEXT = stringsOf('en', 'rl-gradient-flow');
const PROBE_EN = stringsOf('en', 'rl-checkpoint-probe');

let lab, api, hub;
before(async () => {
  hub = await startFakeHub({ 'lab/toy-llama': { files: toyFiles(record.toys[0]) } });
  [lab, api] = await Promise.all([startLab({ connectSrc: [hub.endpoint, hub.cdnOrigin] }), load()]);
});
after(async () => {
  await lab?.close();
  await hub?.close();
});

/** What the widget should draw for a toy: gradientSummary of ckpt.gradients on `text` (the toy's window), in node. */
async function expected(toy, text = toyWindow(toy)) {
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  try {
    return gradientSummary(await ckpt.gradients(ckpt.tokenize(text)));
  } finally {
    ckpt.dispose();
  }
}

/** Waits for the model half to settle after `action`; returns its status ('done' or 'error'). */
async function modelRun(widget, action, what) {
  await widget.evaluate((el) => {
    el.dataset.modelStatus = 'stale';
  });
  await action();
  return eventually(
    () => widget.getAttribute('data-model-status'),
    (status) => status === 'done' || status === 'error',
    what,
    60000,
  );
}

/** The page `path` opened on a toy by a link (`?grad.model=`), once its random stack and the toy are computed. */
async function openMeasured(path, toy) {
  const view = await lab.open(`${path}?grad.model=${toy}#rl-grad`);
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget); // the random stack still computes, as before
  const status = await eventually(
    () => widget.getAttribute('data-model-status'),
    (s) => s === 'done' || s === 'error',
    `${toy} is measured`,
    60000,
  );
  assert.equal(status, 'done', await textOf(widget.locator('[data-model-error]')));
  return { view, widget };
}

/** Asserts that the top of `locator` lies in the window, below the page's sticky header (held there a while). */
async function assertInView(page, locator, what) {
  const header = await page.locator('body > header').boundingBox();
  const { height } = page.viewportSize();
  await eventually(
    () => locator.boundingBox(),
    (box) => Boolean(box) && box.y >= header.height && box.y < height,
    `${what}: its top between the header (${header.height}px) and the window's foot`,
    5000,
  );
}

/** The figures drawn: the embedding's gradient with and without the skips, and the gains table as text. */
async function drawn(widget) {
  const [stream] = await numbers(readout(widget, 'model-stream'));
  const [branchOnly] = await numbers(readout(widget, 'model-branch-only'));
  const gains = await widget
    .locator('[data-branch-gains] tr')
    .evaluateAll((rows) => rows.slice(1).map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)));
  return { stream, branchOnly, gains };
}

/** The label of the model's chart, which its PNG, SVG and CSV exports carry as their title. */
const chartLabel = (widget) => widget.locator('[data-model-results] .line-chart').getAttribute('aria-label');

/** The label the model's chart should carry for a toy drawn beside gain^(L−l) for `gain`, in language `code`. */
const modelChartLabel = (code, toy, gain) =>
  stringsOf(code, 'rl-gradient-flow').modelChartLabel(stringsOf(code, 'rl-checkpoint-probe').toyLabels[toy], gain);

function assertDrawn(got, want, what) {
  assert.ok(
    relative(got.stream, want.stream[0]) < 1e-4,
    `${what}: with the skips ${got.stream}, API ${want.stream[0]}`,
  );
  assert.ok(
    relative(got.branchOnly, want.branchOnly[0]) < 1e-4,
    `${what}: skips removed ${got.branchOnly}, API ${want.branchOnly[0]}`,
  );
  assert.deepEqual(
    got.gains,
    want.gains.map(({ attn, mlp }) => [formatFixed(attn, 3), formatFixed(mlp, 3)]),
    `${what}: the branch gains per layer`,
  );
}

test('a link opens the toy Llama; the select opens the toy OLMo 2; each drawn as the API computes it', async () => {
  const [llama, olmo] = record.toys;
  const { view, widget } = await openMeasured(EN, llama.name);
  const want = await expected(llama);
  assertDrawn(await drawn(widget), want, llama.name);
  assert.equal(
    await chartLabel(widget),
    modelChartLabel('en', llama.name, 0.1),
    'the label names the toy and the gain',
  );
  // the section's claim on a trained model: the skips keep the embedding's gradient, the branches alone do not
  assert.ok(want.stream[0] > 100 * want.branchOnly[0], 'with the skips far more than without');
  assert.equal(
    await textOf(widget.locator('[data-model-results] li').first()),
    EN_TEXT.modelWhat(PROBE_EN.toyLabels[llama.name], 4, 64, formatFixed(want.loss, 4)),
    'the toy named once, its layers, tokens and loss',
  );
  assert.equal((await widget.locator('[data-model-results] canvas').count()) > 0, true, 'the chart is drawn');
  assert.match(
    await textOf(widget.locator('[data-model-results] .hint')),
    /^A branch gain is/,
    'what a branch gain says',
  );
  // the link lands on what it names: the toy's figures, below the random stack, held in view while they come
  await assertInView(view.page, widget.locator('#model-title'), 'the model half');
  await screenshotWidget(view, widget, 'gradient-flow-model-en');

  assert.equal(
    await modelRun(widget, () => widget.getByLabel('Model', { exact: true }).selectOption(olmo.name), olmo.name),
    'done',
  );
  assertDrawn(await drawn(widget), await expected(olmo), olmo.name);
  assert.equal(
    await chartLabel(widget),
    modelChartLabel('en', olmo.name, 0.1),
    "the chart's label, its exports' title",
  );
  await eventually(
    () => view.page.url(),
    (url) => url.includes(`grad.model=${olmo.name}`),
    'the toy in the URL',
  );
  await widget.getByRole('button', { name: '0.8 × 32 layers' }).click(); // the dashed line follows the gain
  await eventually(
    () => chartLabel(widget),
    (label) => label === modelChartLabel('en', olmo.name, 0.8),
    'the label follows the gain',
  );
  view.assertClean();
  await view.close();
});

test('a broken checkpoint is refused with a message; the last figures stay, dimmed', async () => {
  const [llama] = record.toys;
  const { view, widget } = await openMeasured(EN, llama.name);
  const before = await drawn(widget);
  const files = toyFiles(llama);
  const status = await modelRun(
    widget,
    () =>
      widget.getByLabel(/^Or your checkpoint’s files/).setInputFiles([
        { name: 'config.json', mimeType: 'application/json', buffer: Buffer.from(files['config.json']) },
        { name: 'model.safetensors', mimeType: 'application/octet-stream', buffer: Buffer.from('not a checkpoint') },
      ]),
    'the broken files',
  );
  assert.equal(status, 'error');
  assert.match(await textOf(widget.locator('[data-model-error]')), /could not be computed/);
  assert.deepEqual(await drawn(widget), before, 'the last figures stay');
  assert.equal(await widget.getAttribute('data-stale'), '', 'dimmed');
  assert.match(await textOf(widget.locator('.stale-label').last()), /latest run failed/);
  const regions = await widget
    .locator('.results-region')
    .evaluateAll((all) =>
      all.map((r) => [r.contains(r.querySelector('[data-model-results]')), r.hasAttribute('data-stale')]),
    );
  assert.deepEqual(
    regions,
    [
      [false, false],
      [true, true],
    ],
    "the model's figures dimmed, the random stack's not",
  );
  assert.equal(await widget.getByLabel('Model', { exact: true }).inputValue(), 'none', 'no toy in the menu');
  await eventually(
    () => view.page.url(),
    (url) => !url.includes('grad.model='),
    'no toy in the address for the files picked',
  );
  // the next good run clears it
  assert.equal(
    await modelRun(widget, () => widget.getByLabel('Model', { exact: true }).selectOption('toy-olmo2'), 'toy-olmo2'),
    'done',
  );
  assert.equal(await widget.getAttribute('data-stale'), null, 'no longer dimmed');
  view.assertClean();
  await view.close();
});

test('a run held up while it reads the files can be cancelled; the last figures stay and the next run works', async () => {
  const [llama, olmo] = record.toys;
  const { view, widget } = await openMeasured(EN, llama.name);
  const before = await drawn(widget);
  // the other toy's weights are held back until the reader has cancelled
  let release;
  const held = new Promise((resolve) => (release = resolve));
  const hold = async (route) => {
    await held;
    await route.continue().catch(() => {});
  };
  await view.page.route(`**/${olmo.name}/model*.safetensors*`, hold);
  await widget.evaluate((el) => {
    el.dataset.modelStatus = 'stale';
  });
  await widget.getByLabel('Model', { exact: true }).selectOption(olmo.name);
  const cancel = widget.getByRole('button', { name: 'Cancel' });
  await cancel.waitFor({ state: 'visible', timeout: 10000 });
  assert.ok(await widget.locator('.model-gradients progress').isVisible(), 'a progress bar while it runs');
  await eventually(
    () => textOf(widget.locator('[data-model-run]')),
    (t) => /Reading the files/.test(t),
    'held',
  );
  await cancel.click();
  assert.equal(await widget.getAttribute('data-model-status'), 'cancelled');
  assert.match(await textOf(widget.locator('[data-model-run]')), /Cancelled/);
  // the menu names the toy drawn again (a select does not report the option it already shows being chosen again)
  assert.equal(await widget.getByLabel('Model', { exact: true }).inputValue(), llama.name, 'the toy drawn');
  await eventually(
    () => view.page.url(),
    (url) => url.includes(`grad.model=${llama.name}`),
    'the address names the toy drawn',
  );
  release();
  await view.page.unroute(`**/${olmo.name}/model*.safetensors*`, hold);
  assert.deepEqual(await drawn(widget), before, 'the last figures stay');
  assert.equal(
    await modelRun(widget, () => widget.getByLabel('Model', { exact: true }).selectOption(olmo.name), 'again'),
    'done',
  );
  assertDrawn(await drawn(widget), await expected(olmo), `${olmo.name} after the cancel`);
  view.assertClean();
  await view.close();
});

test("the probe's link measures the probe's model here: its toy, chosen in the menu, its figures in view", async () => {
  const [llama] = record.toys;
  const view = await lab.open(EN);
  const probe = view.page.locator('rl-checkpoint-probe');
  await probe.scrollIntoViewIfNeeded();
  await probeDone(probe, 'the probe runs');
  const widget = view.page.locator('rl-gradient-flow');
  const status = await modelRun(widget, () => probe.locator('[data-gradients-link] a').click(), 'measured');
  assert.equal(status, 'done', await textOf(widget.locator('[data-model-error]')));
  assert.equal(await widget.getByLabel('Model', { exact: true }).inputValue(), llama.name, "the probe's toy");
  assertDrawn(await drawn(widget), await expected(llama), llama.name);
  await assertInView(view.page, widget.locator('#model-title'), 'the model half');
  view.assertClean();
  await view.close();
});

test('the Chinese page: the model half in Chinese', async () => {
  const { view, widget } = await openMeasured(ZH, 'toy-olmo2');
  assert.match(await textOf(widget.locator('h4')), /训练过的模型/);
  assert.match(await textOf(widget.locator('[data-branch-gains] caption')), /分支增益/);
  assert.equal(await chartLabel(widget), modelChartLabel('zh', 'toy-olmo2', 0.1));
  const menu = widget.locator('details.share-menu');
  await menu.locator('summary').click();
  const share = stringsOf('zh', 'common').share;
  const gains = share.table(1, stringsOf('zh', 'rl-gradient-flow').gainsCaption);
  assert.equal(await menu.getByRole('button', { name: share.saveAs('CSV', gains), exact: true }).count(), 1, gains);
  view.assertClean();
  await view.close();
});

test('a model the probe stored from the Hub is listed and measured from storage, on the chapter’s prompt', async () => {
  const [llama] = record.toys;
  const view = await lab.open(EN);
  const probe = view.page.locator('rl-checkpoint-probe');
  await probe.scrollIntoViewIfNeeded();
  await probeDone(probe, 'the probe runs');
  const fetchPanel = probe.locator('.fetch-panel');
  if (!(await fetchPanel.evaluate((details) => details.open))) await fetchPanel.locator('summary').click();
  await probe.locator('#field-host').selectOption('custom');
  await probe.locator('#field-endpoint').fill(hub.endpoint);
  await probe.locator('#field-repo').fill('lab/toy-llama');
  await probe.locator('[data-fetch-repo]').click();
  await eventually(
    () => textOf(probe.locator('[data-fetch-status]')),
    (t) => t.startsWith('lab/toy-llama (commit '),
    'stored',
    30000,
  );
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  const requests = hub.requests.length;
  await widget.locator('h4').hover(); // the panel lists the stored models again as the reader comes to it
  const entry = widget.locator('li[data-repo="lab/toy-llama"]');
  await entry.waitFor({ timeout: 5000 });
  assert.equal(await modelRun(widget, () => entry.getByRole('button').click(), 'the stored model'), 'done');
  assert.equal(hub.requests.length, requests, 'measured from storage: no request to the Hub');
  const prompt = stringsOf('en', 'rl-checkpoint-probe').chapterPrompt;
  assertDrawn(await drawn(widget), await expected(llama, prompt), 'lab/toy-llama from storage');
  assert.match(await textOf(widget.locator('[data-model-results] li').first()), /^lab\/toy-llama: 4 layers/);
  view.assertClean();
  await view.close();
});
