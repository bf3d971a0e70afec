// <rl-checkpoint-probe>'s experiments: an address naming one opens the probe at it, runs it in the lab worker on
// the shipped toy and shows the answer lab.openCheckpoint's experiment gives for the same files and prompt, with a
// chart and a table of one row per layer; an experiment the toy cannot run (no soft-cap) says so, with no chart,
// and the address follows the select.
//   node --test --test-concurrency=1 tests/e2e/checkpoint-probe-experiments.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { toyWindow } from '../../web/components/checkpoint-probe/compute.js';
import { stringsOf } from '../../web/languages.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
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

const done = (widget, what) =>
  eventually(
    () => widget.getAttribute('data-status'),
    (s) => s === 'done' || s === 'error',
    what,
    60000,
  ).then((status) => assert.equal(status, 'done', what));

test('an address naming the layer-drop sweep runs it on the toy; soft-caps say the toy cannot run them', async () => {
  const toy = record.toys[0];
  const ckpt = await api.openCheckpoint(toyFiles(toy));
  const ids = ckpt.tokenize(toyWindow(toy));
  const sweep = await ckpt.experiment('dropLayers', ids);
  ckpt.dispose();
  const view = await openReady(lab, `${EN}?probe.experiment=dropLayers#rl-probe`);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await done(widget, 'the toy and the sweep are run');
  assert.equal(await textOf(widget.locator('[data-experiment-claim]')), S.experiments.dropLayers.claim);
  await eventually(
    () => textOf(widget.locator('[data-experiment-answer]')),
    (t) => t === S.experiments.dropLayers.answer(sweep),
    'the answer is the API’s',
  );
  assert.equal(await widget.locator('table.experiment-table tbody tr').count(), sweep.layers.length);
  assert.ok(await widget.locator('.experiment-figure svg rect').count(), 'the chart has bars');

  await widget.getByLabel('Experiment', { exact: true }).selectOption('softcaps');
  await done(widget, 'the soft-cap experiment is run');
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
