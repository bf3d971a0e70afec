// The precision lab, the Gemma trap and the soft-cap explorer in the served chapter. Expected values are the
// chapter's numbers or an independent float64 computation in this file, never the widget's own code.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { startLab } from './harness.mjs';
import { EN, ZH, eventually, expectText, openReady, screenshotWidget, textOf } from './widget-helpers.mjs';

const root = join(import.meta.dirname, '../..');
let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

/** float64 RMSNorm and relative error, written out here as the reference. */
function exactRmsNorm(x, eps) {
  const rms = Math.sqrt(x.reduce((sum, v) => sum + v * v, 0) / x.length + eps);
  return { y: Array.from(x, (v) => v / rms), rms };
}
function relativeError(y, exact) {
  let diff = 0;
  let norm = 0;
  exact.forEach((e, i) => {
    diff += (y[i] - e) ** 2;
    norm += e * e;
  });
  return Math.sqrt(diff / norm);
}

test('precision lab: bfloat16 accumulation is far worse than float32, and the shown errors are the real ones', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-precision-lab');
  const shownError = async (key) => Number(await widget.locator(`#error-${key} data`).getAttribute('value'));
  await expectText(widget.getByRole('heading', { name: /One RMSNorm at d/ }), 'One RMSNorm at d = 4096', 'default d');
  const fp32 = await shownError('fp32');
  const bf16 = await shownError('bf16');
  assert.ok(fp32 > 0 && fp32 < 1e-6, `float32 error ${fp32}`);
  assert.ok(bf16 > 0.01, `bfloat16 error ${bf16}`);
  assert.ok(bf16 > 1e4 * fp32, `bf16 ${bf16} vs fp32 ${fp32}`);

  // The same vector (seed 1), through the public API in node, against this file's float64 reference.
  const { load } = await import(pathToFileURL(join(root, 'dist/lib/residual-lab.js')).href);
  const { randomVector } = await import(pathToFileURL(join(root, 'web/components/precision-lab/compute.js')).href);
  const api = await load();
  const x = randomVector(4096, 1);
  const exact = exactRmsNorm(x, 1e-5);
  for (const [precision, shown] of [
    ['fp32', fp32],
    ['bf16', bf16],
  ]) {
    const expected = relativeError(api.rmsNorm(x, null, { eps: 1e-5, precision }), exact.y);
    assert.ok(Math.abs(shown - expected) <= 0.05 * expected, `${precision}: shown ${shown}, expected ${expected}`);
  }
  assert.equal(await textOf(widget.locator('#rms-exact')), exact.rms.toFixed(4).replace(/\.?0+$/, ''));
  await screenshotWidget(view, widget, 'precision-lab-en');

  const slider = widget.getByLabel('Dimension d', { exact: true });
  await slider.focus();
  await view.page.keyboard.press('Home');
  await expectText(widget.getByRole('heading', { name: /One RMSNorm at d/ }), 'One RMSNorm at d = 4', 'smallest d');
  await widget.getByRole('button', { name: 'New random vector' }).click();
  assert.equal(await widget.getByLabel('Random seed', { exact: true }).inputValue(), '2');

  await widget.getByLabel('typed in').check();
  const typed = widget.getByLabel('Your vector', { exact: true });
  await typed.fill('1, 2, 3');
  await expectText(widget.getByRole('heading', { name: /One RMSNorm at d/ }), 'One RMSNorm at d = 3', 'typed vector');
  await typed.fill('1, 2, oops');
  await eventually(
    () => textOf(widget.locator('#field-typed-error')),
    (text) => /not part of a number/.test(text),
    'typed error',
  );
  await expectText(
    widget.getByRole('heading', { name: /One RMSNorm at d/ }),
    'One RMSNorm at d = 3',
    'last good result stays',
  );
  view.assertClean();
  await view.close();
});

test('Gemma trap: the weights read as trained and as misread, in both directions', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-gemma-trap');
  const output = (which) => widget.locator(`output[aria-labelledby="label-${which}"]`);
  const x = [2, -1, 3, 0];
  const { y: xhat } = exactRmsNorm(x, 1e-6);
  const show = (values) => `[${values.map((v) => (v === 0 ? '0' : v.toFixed(3).replace(/\.?0+$/, ''))).join(', ')}]`;
  const w = [0.2, -0.3, 0.5, 0.1];
  assert.equal(await widget.getByLabel('Stored norm weights w', { exact: true }).inputValue(), '0.2, -0.3, 0.5, 0.1');
  await expectText(output('right'), show(xhat.map((v, i) => v * (1 + w[i]))), 'Gemma read as Gemma');
  await expectText(output('wrong'), show(xhat.map((v, i) => v * w[i])), 'Gemma read as Llama');
  await expectText(widget.getByLabel('signs flipped'), '1 of 4', 'the misread output flips a sign');
  await screenshotWidget(view, widget, 'gemma-trap-en');

  await widget.getByLabel(/^a × w checkpoint/).check();
  const g = w.map((v) => 1 + v);
  assert.equal(await widget.getByLabel('Stored norm weights w', { exact: true }).inputValue(), '1.2, 0.7, 1.5, 1.1');
  await expectText(output('right'), show(xhat.map((v, i) => v * g[i])), 'the same trained multiplier');
  await expectText(output('wrong'), show(xhat.map((v, i) => v * (1 + g[i]))), 'Llama read as Gemma');

  await widget.getByLabel('Stored norm weights w', { exact: true }).fill('1, 1');
  await eventually(
    () => textOf(widget.locator('#field-w-error')),
    (text) => /does not match x/.test(text),
    'length mismatch',
  );
  await expectText(output('right'), show(xhat.map((v, i) => v * g[i])), 'last good result stays');
  view.assertClean();
  await view.close();
});

test('soft-cap explorer: the chapter table computed live, the cap editable, a bad cap refused', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-softcap-explorer');
  const cell = (row, column) => widget.locator('table.values tbody tr').nth(row).locator('td').nth(column);
  const rows = { 10: 0, 30: 1, 60: 2, 100: 3, 200: 4 };
  // cap 30 at 10, 30, 60, 200 and cap 50 at 100, as in the chapter
  for (const [x, text] of [
    [10, '9.6'],
    [30, '22.8'],
    [60, '28.9'],
    [200, '30.0'],
  ])
    await expectText(cell(rows[x], 0), text, `cap 30 at ${x}`);
  await expectText(cell(rows[100], 1), '48.2', 'cap 50 at 100');
  await expectText(cell(rows[30], 3), (1 - Math.tanh(1) ** 2).toFixed(3), 'gradient at x = c');
  assert.equal(await widget.locator('canvas').count(), 2, 'curve and gradient charts drawn');
  await screenshotWidget(view, widget, 'softcap-explorer-en');

  await widget.getByRole('button', { name: 'c = 50' }).click();
  await expectText(cell(rows[100], 2), '48.2', 'your cap 50 at 100');
  const capField = widget.getByLabel('Cap c', { exact: true });
  for (const bad of ['0', '-5', 'abc']) {
    await capField.fill(bad);
    await eventually(
      () => textOf(widget.locator('#field-cap-error')),
      (text) => text.length > 0,
      `cap ${bad} refused`,
    );
    await expectText(cell(rows[100], 2), '48.2', 'last good table stays');
  }
  await capField.fill('10');
  await expectText(cell(rows[10], 2), (10 * Math.tanh(1)).toFixed(1), 'cap 10 at 10');
  const slider = widget.getByLabel('Drag the cap c', { exact: true });
  await slider.focus();
  await view.page.keyboard.press('End');
  assert.equal(await capField.inputValue(), '100');
  await expectText(cell(rows[100], 2), (100 * Math.tanh(1)).toFixed(1), 'cap 100 at 100');
  view.assertClean();
  await view.close();
});

test('the Chinese widgets speak Chinese and compute the same', async () => {
  const view = await openReady(lab, ZH);
  const softcap = view.page.locator('rl-softcap-explorer');
  await softcap.getByLabel('上限 c', { exact: true }).fill('0');
  await eventually(
    () => textOf(softcap.locator('#field-cap-error')),
    (text) => text === '上限 c 必须是大于 0 的数',
    'zh cap message',
  );
  const precision = view.page.locator('rl-precision-lab');
  await expectText(
    precision.getByRole('heading', { name: /时的一次 RMSNorm/ }),
    'd = 4096 时的一次 RMSNorm',
    'zh precision',
  );
  await eventually(
    () => precision.locator('.u-legend .u-series .u-label').allInnerTexts(),
    (labels) => labels.includes('float32，你选的 d') && labels.includes('bfloat16，你选的 d'),
    'zh marker legend, full-width comma',
  );
  const gemma = view.page.locator('rl-gemma-trap');
  assert.equal(await gemma.getByLabel('存储的 Norm 权重 w', { exact: true }).inputValue(), '0.2, -0.3, 0.5, 0.1');
  await screenshotWidget(view, precision, 'precision-lab-zh');
  await screenshotWidget(view, gemma, 'gemma-trap-zh');
  await screenshotWidget(view, softcap, 'softcap-explorer-zh');
  view.assertClean();
  await view.close();
});
