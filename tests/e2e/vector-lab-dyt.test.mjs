// <rl-vector-lab>'s DyT row (y = gamma * tanh(alpha x) + beta) in the served chapter: its checkbox, the worked
// numbers at alpha 0.5, the scale slider that moves DyT while RMSNorm stays, and the Chinese page. The expected
// numbers are computed here from the formula on the chapter's worked example.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import {
  ZH,
  eventually,
  expectText,
  reopen,
  screenshotWidget,
  textOf,
  openVectorLab,
  WORKED_RMS,
  WORKED_LN,
} from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

// DyT, y = gamma * tanh(alpha x) + beta, as the widget prints it (three decimals, trailing zeros dropped).
const dytText = (x, alpha) =>
  `[${x
    .map((v) =>
      Math.tanh(alpha * v)
        .toFixed(3)
        .replace(/\.?0+$/, '')
        .replace(/^-0$/, '0'),
    )
    .join(', ')}]`;
const WORKED = [2, -1, 3, 0];

async function showDyt(view, $) {
  await $('Also show Dynamic Tanh (DyT)').focus();
  await view.page.keyboard.press('Space'); // a real checkbox: the keyboard toggles it
  assert.equal(await $('Also show Dynamic Tanh (DyT)').isChecked(), true);
}

test('DyT: shown by its checkbox, the worked numbers at alpha 0.5, alpha changes them, a bad alpha keeps them', async () => {
  const { view, widget, $ } = await openVectorLab(lab);
  assert.equal(await $('DyT output').isVisible(), false, 'DyT is hidden until the reader asks for it');
  assert.equal(await $('DyT scale α').isVisible(), false, 'so is its alpha field');
  await showDyt(view, $);
  assert.equal(dytText(WORKED, 0.5), '[0.762, -0.462, 0.905, 0]');
  await expectText($('DyT output'), '[0.762, -0.462, 0.905, 0]', 'DyT at alpha 0.5');
  await expectText($('RMSNorm output'), WORKED_RMS, 'RMSNorm beside it');
  assert.equal(await $('DyT scale α').inputValue(), '0.5');

  await $('DyT scale α').fill('1');
  await expectText($('DyT output'), dytText(WORKED, 1), 'DyT at alpha 1'); // [0.964, -0.762, 0.995, 0]
  assert.equal(dytText(WORKED, 1), '[0.964, -0.762, 0.995, 0]');
  const alphaError = widget.locator('#field-alpha-error');
  await $('DyT scale α').fill('1x');
  await eventually(
    () => textOf(alphaError),
    (text) => text === 'not a number',
    'alpha that is not a number',
  );
  assert.equal(await $('DyT scale α').getAttribute('aria-invalid'), 'true');
  await $('DyT scale α').fill('20');
  await eventually(
    () => textOf(alphaError),
    (text) => text === 'must be between -10 and 10',
    'alpha out of range',
  );
  await expectText($('DyT output'), '[0.964, -0.762, 0.995, 0]', 'the last good DyT output stays');
  await $('DyT scale α').fill('0.25');
  await expectText($('DyT output'), dytText(WORKED, 0.25), 'DyT at alpha 0.25');
  assert.equal(await textOf(alphaError), '', 'the message is gone once alpha is valid');

  // DyT's three steps follow LayerNorm's: 14 in all.
  await widget.getByRole('group', { name: 'Step through the computation' }).focus();
  await view.page.keyboard.press('End');
  await expectText(widget.locator('.step-now'), `Step 14 of 14 · DyT, output y: ${dytText(WORKED, 0.25)}`, 'last step');
  await screenshotWidget(view, widget, 'vector-lab-dyt-steps');
  await view.page.keyboard.press('ArrowLeft');
  await expectText(widget.locator('.step-now'), `Step 13 of 14 · DyT, tanh(αx): ${dytText(WORKED, 0.25)}`, 'tanh step');
  await view.page.keyboard.press('ArrowLeft');
  await expectText(
    widget.locator('.step-now'),
    'Step 12 of 14 · DyT, scaled αx: [0.5, -0.25, 0.75, 0]',
    'alpha x step',
  );

  await eventually(
    () => view.page.url(),
    (url) => url.includes('vec.dyt=true') && url.includes('vec.alpha=0.25'),
    'URL carries DyT and alpha',
  );
  const again = (await reopen(view, view.page.url())).locator('rl-vector-lab');
  assert.equal(await again.getByLabel('Also show Dynamic Tanh (DyT)', { exact: true }).isChecked(), true);
  assert.equal(await again.getByLabel('DyT scale α', { exact: true }).inputValue(), '0.25');
  await expectText(again.getByLabel('DyT output', { exact: true }), dytText(WORKED, 0.25), 'restored DyT');
  view.assertClean();
  await view.close();
});

test("the scale slider moves DyT's output while RMSNorm's stays, and the widget says so", async () => {
  const { view, widget, $ } = await openVectorLab(lab);
  await showDyt(view, $);
  const note = widget.locator('.scale-note');
  await expectText(
    note,
    'At ×1 there is nothing to compare yet: move the slider and see which outputs change.',
    'note at x1',
  );
  await $('Scale x by').focus();
  for (let i = 0; i < 10; i++) await view.page.keyboard.press('ArrowRight');
  assert.equal(await $('Scale x by').getAttribute('aria-valuetext'), '×10');
  await expectText($('DyT output'), '[1, -1, 1, 0]', 'DyT at x10: tanh saturates');
  await expectText($('RMSNorm output'), WORKED_RMS, 'RMSNorm at x10');
  await expectText($('LayerNorm output'), WORKED_LN, 'LayerNorm at x10');
  // The largest change of DyT's output from x1: tanh(-5) - tanh(-0.5) = -0.538; the norms move by eps alone (2e-6).
  const moved = Math.max(...WORKED.map((v) => Math.abs(Math.tanh(5 * v) - Math.tanh(0.5 * v)))).toPrecision(2);
  assert.equal(moved, '0.54');
  await eventually(
    () => textOf(note),
    (text) =>
      text.startsWith(
        `Compared with ×1, at ×10 each output changes by at most: RMSNorm < 10⁻⁵, LayerNorm < 10⁻⁵, DyT ${moved}.`,
      ) &&
      text.includes('DyT does not: it is not scale-invariant') &&
      text.includes('tanh has saturated'),
    'note at x10',
  );
  await screenshotWidget(view, widget, 'vector-lab-dyt');

  // At x0.1 eps = 1e-5 moves RMSNorm by 2.3e-4 (its largest output, 3 / rms); the note puts that down to eps, and
  // with eps 0 only DyT moves.
  await view.page.keyboard.press('Home');
  await expectText(
    $('DyT output'),
    dytText(
      WORKED.map((v) => v / 10),
      0.5,
    ),
    'DyT at x0.1',
  );
  const rmsMoved = 3 / Math.sqrt(3.5 + 1e-5) - 0.3 / Math.sqrt(0.035 + 1e-5);
  assert.equal(rmsMoved.toPrecision(2), '0.00023');
  await eventually(
    () => textOf(note),
    (text) =>
      text.includes('RMSNorm 2.3 × 10⁻⁴') &&
      text.includes('The norms move only through ε') &&
      !text.includes('saturated'),
    'note at x0.1, eps 1e-5',
  );
  await $('Epsilon ε').fill('0');
  await eventually(
    () => textOf(note),
    (text) => text.includes('RMSNorm < 10⁻⁵, LayerNorm < 10⁻⁵') && text.includes('not scale-invariant'),
    'note at x0.1, eps 0',
  );
  view.assertClean();
  await view.close();
});

test('DyT in Chinese: the checkbox, the numbers and the sentence under the slider', async () => {
  const { view, widget, $ } = await openVectorLab(lab, ZH);
  await $('同时显示 Dynamic Tanh（DyT）').focus();
  await view.page.keyboard.press('Space');
  await expectText($('DyT 输出'), '[0.762, -0.462, 0.905, 0]', 'zh DyT');
  await $('DyT 的缩放系数 α').fill('abc');
  await eventually(
    () => textOf(widget.locator('#field-alpha-error')),
    (text) => text === '不是数字',
    'zh alpha message',
  );
  await $('DyT 的缩放系数 α').fill('0.5');
  await $('x 的缩放倍数').focus();
  await view.page.keyboard.press('End');
  await expectText($('DyT 输出'), '[1, -1, 1, 0]', 'zh DyT at x100');
  await expectText($('RMSNorm 输出'), WORKED_RMS, 'zh RMSNorm at x100');
  await eventually(
    () => textOf(widget.locator('.scale-note')),
    (text) =>
      text.startsWith('与 ×1 相比，×100 时各输出的最大变化：RMSNorm < 10⁻⁵，LayerNorm < 10⁻⁵，DyT ') &&
      text.includes('不具备缩放不变性'),
    'zh note',
  );
  await screenshotWidget(view, widget, 'vector-lab-dyt-zh');
  view.assertClean();
  await view.close();
});
