// <rl-checkpoint-probe>'s experiments: an address naming one opens the probe at it, runs it in the lab worker on
// the shipped toy and shows the answer lab.openCheckpoint's experiment gives for the same files and prompt, with a
// chart and a table of one row per layer; an experiment the toy cannot run (no soft-cap) says so, with no chart,
// and the address follows the select. Then every experiment on every shipped toy, as the chapter's lines open
// them: the API's answer, and a chart with bars, or the sentence that the toy cannot run it.
//   node --test --test-concurrency=1 tests/e2e/checkpoint-probe-experiments.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { readTokenizer, shownToken } from '../../web/components/checkpoint-probe/compute.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { CLAIMS } from '../../web/lib/checkpoint/claims.js';
import { stringsOf } from '../../web/languages.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
import { probeDone } from './probe-helpers.mjs';
import { EN, eventually, openReady, textOf } from './widget-helpers.mjs';

const S = stringsOf('en', 'rl-checkpoint-probe');
let lab, api;
before(async () => {
  lab = await startLab();
  api = await load();
});
after(async () => {
  await lab?.close();
});

test('an address naming the layer-drop sweep runs it on the toy; soft-caps say the toy cannot run them', async () => {
  const toy = record.toys[0];
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  const ids = ckpt.tokenize(toyWindow(toy));
  const sweep = await ckpt.claim('dropLayers', ids);
  ckpt.dispose();
  const view = await openReady(lab, `${EN}?probe.experiment=dropLayers#rl-probe`);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy and the sweep are run');
  assert.equal(await textOf(widget.locator('[data-experiment-claim]')), S.experiments.dropLayers.claim);
  await eventually(
    () => textOf(widget.locator('[data-experiment-answer]')),
    (t) => t === S.experiments.dropLayers.answer(sweep),
    'the answer is the API’s',
  );
  assert.equal(await widget.locator('table.experiment-table tbody tr').count(), sweep.layers.length);
  assert.ok(await widget.locator('.experiment-figure svg rect').count(), 'the chart has bars');

  await widget.getByLabel('Experiment', { exact: true }).selectOption('softcaps');
  await probeDone(widget, 'the soft-cap experiment is run');
  await eventually(
    () => textOf(widget.locator('[data-experiment-answer]')),
    (t) => t === S.experiments.softcaps.unsupported,
    'the toy has no soft-cap, and the page says so',
  );
  assert.ok(await widget.locator('.experiment-figure').isHidden(), 'no empty chart');
  await eventually(
    () => view.page.url(),
    (url) => url.includes('probe.experiment=softcaps'),
    'the address names the experiment (written after a short delay)',
  );
  view.assertClean();
  await view.close();
});

test('every experiment on every shipped toy: the API’s answer, and a chart with bars or the sentence that it cannot run', async () => {
  const names = Object.keys(CLAIMS);
  const view = await openReady(lab, `${EN}?probe.experiment=${names[0]}#rl-probe`);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy and the first experiment are run');
  for (const toy of record.toys) {
    const files = toyFiles(toy);
    const ckpt = await api.openCheckpoint(files);
    const ids = ckpt.tokenize(toyWindow(toy));
    const name = readTokenizer(files).name;
    const t = (id) => shownToken(name(id));
    if (toy !== record.toys[0]) await widget.getByLabel(S.toy, { exact: true }).selectOption(toy.name);
    for (const experiment of names) {
      const what = `${experiment} on ${toy.name}`;
      const result = await ckpt.claim(experiment, ids);
      const e = S.experiments[experiment];
      const expected = result.unsupported ? (e.unsupported ?? S.cannotRun(result.unsupported)) : e.answer(result, t);
      if (experiment !== names[0] || toy !== record.toys[0])
        await widget.getByLabel('Experiment', { exact: true }).selectOption(experiment);
      await probeDone(widget, `${what} is run`);
      await eventually(
        () => textOf(widget.locator('[data-experiment-answer]')),
        (text) => text === expected,
        `${what}: the answer is the API’s`,
        30000,
      );
      assert.equal(await textOf(widget.locator('[data-experiment-claim]')), e.claim, `${what}: the claim beside it`);
      const figure = widget.locator('.experiment-figure');
      if (result.unsupported) {
        assert.ok(await figure.isHidden(), `${what}: no empty chart`);
        continue;
      }
      assert.ok(await figure.isVisible(), `${what}: the chart shows`);
      assert.ok(await figure.locator('svg rect').count(), `${what}: the chart has bars`);
      assert.ok(await widget.locator('table.experiment-table tbody tr').count(), `${what}: the table has rows`);
    }
    ckpt.dispose();
  }
  view.assertClean();
  await view.close();
});

test('the chapter’s link to the attention-score experiment opens the probe at it, on the toy OLMo 2', async () => {
  const toy = record.toys.find((x) => x.name === 'toy-olmo2');
  const files = toyFiles(toy);
  const ckpt = await api.openCheckpoint(files);
  const result = await ckpt.claim('attentionScores', ckpt.tokenize(toyWindow(toy)));
  ckpt.dispose();
  const view = await openReady(lab, EN);
  const link = view.page.locator('a[href*="probe.experiment=attentionScores"]');
  assert.equal(await link.count(), 1, 'one line links the experiment');
  await link.click();
  await view.page.waitForURL(/probe\.toy=toy-olmo2/);
  const widget = view.page.locator('rl-checkpoint-probe');
  await eventually(
    () => textOf(widget.locator('[data-experiment-answer]')),
    (text) => text === S.experiments.attentionScores.answer(result),
    'the answer is the API’s on the toy OLMo 2, bound and all',
    60000,
  );
  assert.equal(await widget.getByLabel(S.toy, { exact: true }).inputValue(), 'toy-olmo2');
  assert.equal(await widget.getByLabel('Experiment', { exact: true }).inputValue(), 'attentionScores');
  assert.equal((await widget.locator('.experiment-figure svg rect').count()) > 0, true, 'the chart has bars');
  view.assertClean();
  await view.close();
});

test('the experiments that look at one position follow the Position field: the answer is the API’s at that position', async () => {
  const toy = record.toys[0];
  const files = toyFiles(toy);
  const ckpt = await api.openCheckpoint(files);
  const ids = ckpt.tokenize(toyWindow(toy));
  const name = readTokenizer(files).name;
  const t = (id) => shownToken(name(id));
  const position = 10;
  const view = await openReady(lab, `${EN}?probe.experiment=noFinalNorm&probe.position=${position}#rl-probe`);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy and the experiment are run at the position');
  for (const experiment of ['noFinalNorm', 'dropLayers', 'wrongConvention']) {
    if (experiment !== 'noFinalNorm') {
      await widget.getByLabel('Experiment', { exact: true }).selectOption(experiment);
      await probeDone(widget, `${experiment} is run`);
    }
    const there = await ckpt.claim(experiment, ids, { position });
    const atLast = await ckpt.claim(experiment, ids);
    const expected = S.experiments[experiment].answer(there, t);
    assert.notEqual(expected, S.experiments[experiment].answer(atLast, t), `${experiment}: the position matters`);
    await eventually(
      () => textOf(widget.locator('[data-experiment-answer]')),
      (text) => text === expected,
      `${experiment}: the answer at position ${position}`,
      30000,
    );
  }
  ckpt.dispose();
  view.assertClean();
  await view.close();
});
