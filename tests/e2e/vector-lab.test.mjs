// <rl-vector-lab> in the served chapter, driven the way a reader does: by labels, typing, the slider's
// keys, the step buttons and arrow keys. The expected numbers are the chapter's worked example.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startLab } from './harness.mjs';
import { EN, ZH, eventually, expectText, openReady, reopen, screenshotWidget, textOf } from './widget-helpers.mjs';

const RMS = '[1.069, -0.535, 1.604, 0]';
const LN = '[0.632, -1.265, 1.265, -0.632]';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

async function openVectorLab(path = EN) {
  const view = await openReady(lab, path);
  const widget = view.page.locator('rl-vector-lab');
  const $ = (label) => widget.getByLabel(label, { exact: true });
  return { view, widget, $ };
}

test('the worked example: RMSNorm and LayerNorm of [2, -1, 3, 0] with their invariants', async () => {
  const { view, widget, $ } = await openVectorLab();
  assert.equal(await $('Input vector x').inputValue(), '2, -1, 3, 0');
  await expectText($('RMSNorm output'), RMS, 'RMSNorm');
  await expectText($('LayerNorm output'), LN, 'LayerNorm');
  await expectText($('RMSNorm: RMS of x̂'), '1.000', 'RMS invariant');
  await expectText($('LayerNorm: mean of x̂'), '0.000', 'mean invariant');
  await expectText($('LayerNorm: variance of x̂'), '1.000', 'variance invariant');
  await screenshotWidget(view, widget, 'vector-lab-en');
  view.assertClean();
  await view.close();
});

test('x times 10, typed or by the slider, leaves the RMSNorm output where it was', async () => {
  const { view, $ } = await openVectorLab();
  await $('Input vector x').fill('[20, -10, 30, 0]');
  await expectText($('x × s'), '[20, -10, 30, 0]', 'input row');
  await expectText($('RMSNorm output'), RMS, 'RMSNorm of 10x');
  await expectText($('LayerNorm output'), LN, 'LayerNorm of 10x');

  await $('Input vector x').fill('2, -1, 3, 0');
  const slider = $('Scale x by');
  assert.equal(await slider.getAttribute('type'), 'range', 'a real range input');
  await slider.focus();
  for (let i = 0; i < 10; i++) await view.page.keyboard.press('ArrowRight'); // log10 steps of 0.1
  assert.equal(await slider.getAttribute('aria-valuetext'), '×10');
  await expectText($('x × s'), '[20, -10, 30, 0]', 'scaled input');
  await expectText($('RMSNorm output'), RMS, 'RMSNorm at x10');
  await view.page.keyboard.press('End');
  assert.equal(await slider.getAttribute('aria-valuetext'), '×100');
  await expectText($('x × s'), '[200, -100, 300, 0]', 'input at x100');
  await expectText($('RMSNorm output'), RMS, 'RMSNorm at x100');
  await view.page.keyboard.press('PageDown');
  const afterPageDown = await slider.getAttribute('aria-valuetext');
  assert.ok(
    ['×79.4', '×63.1', '×50.1', '×39.8', '×31.6', '×25.1', '×20', '×15.8', '×12.6', '×10'].includes(afterPageDown),
    `PageDown lowers the scale (got ${afterPageDown})`,
  );
  // At x0.1 the mean square (0.035) is small enough for eps = 1e-5 to show in the third decimal, as the
  // chapter remarks; with eps = 0 the output is exactly the worked example again.
  await view.page.keyboard.press('Home');
  await expectText($('x × s'), '[0.2, -0.1, 0.3, 0]', 'input at x0.1');
  const rms = Math.sqrt((0.04 + 0.01 + 0.09) / 4 + 1e-5);
  await expectText(
    $('RMSNorm output'),
    `[${[0.2, -0.1, 0.3].map((v) => (v / rms).toFixed(3)).join(', ')}, 0]`,
    'RMSNorm at x0.1, eps 1e-5',
  );
  await $('Epsilon ε').fill('0');
  await expectText($('RMSNorm output'), RMS, 'RMSNorm at x0.1, eps 0');
  view.assertClean();
  await view.close();
});

test('a malformed vector shows its message by the field and the last good result stays', async () => {
  const { view, widget, $ } = await openVectorLab();
  const field = $('Input vector x');
  await field.fill('2, -1, 3x, 0');
  const error = widget.locator('#field-x-error');
  await eventually(
    () => textOf(error),
    (text) => /"x" is not part of a number \(at character 9\)/.test(text),
    'message names the character',
  );
  assert.equal(await field.getAttribute('aria-invalid'), 'true');
  assert.equal(await error.getAttribute('aria-live'), 'polite');
  await expectText($('RMSNorm output'), RMS, 'last good RMSNorm stays');

  await field.fill('');
  await eventually(
    () => textOf(error),
    (text) => /empty/.test(text),
    'empty field message',
  );
  await $('RMSNorm weight g').fill('1, 2');
  await field.fill('2, -1, 3, 0');
  await eventually(
    () => textOf(widget.locator('#field-g-error')),
    (text) => /does not match x/.test(text),
    'g of the wrong length',
  );
  await $('RMSNorm weight g').fill('1, 2, 1, 1');
  await expectText($('RMSNorm output'), '[1.069, -1.069, 1.604, 0]', 'g scales dimension 2');
  assert.equal(await textOf(error), '', 'the x message is gone once x is valid');
  await $('Epsilon ε').fill('-1');
  await eventually(
    () => textOf(widget.locator('#field-eps-error')),
    (text) => /0 or positive/.test(text),
    'negative eps',
  );
  await screenshotWidget(view, widget, 'vector-lab-error');
  view.assertClean();
  await view.close();
});

const STEPS = [
  ['squares x²', '[4, 1, 9, 0]'],
  ['mean square', '3.5'],
  ['root mean square', '1.871'],
  ['normalized x̂', RMS],
  ['output y', RMS],
  ['mean μ', '1'],
  ['centered x − μ', '[1, -2, 2, -1]'],
  ['variance σ²', '2.5'],
  ['standard deviation', '1.581'],
  ['normalized x̂', LN],
  ['output y', LN],
];

test('stepping through every intermediate value, forward and back, with buttons and arrow keys', async () => {
  const { view, widget } = await openVectorLab();
  const stepper = widget.getByRole('group', { name: 'Step through the computation' });
  const now = widget.locator('.step-now');
  const expectStep = (n) =>
    n === 0
      ? expectText(now, 'Step 0: nothing computed yet. Press “Next step”.', 'step 0')
      : expectText(
          now,
          `Step ${n} of 11 · ${n <= 5 ? 'RMSNorm' : 'LayerNorm'}, ${STEPS[n - 1][0]}: ${STEPS[n - 1][1]}`,
          `step ${n}`,
        );

  await expectStep(0);
  for (let n = 1; n <= 11; n++) {
    await widget.getByRole('button', { name: 'Next step' }).click();
    await expectStep(n);
    assert.equal(await widget.locator('.step.current').count(), 1, 'one highlighted formula');
  }
  await stepper.focus();
  await view.page.keyboard.press('ArrowRight'); // past the end: stays
  await expectStep(11);
  assert.equal(await widget.getByRole('button', { name: 'Next step' }).getAttribute('aria-disabled'), 'true');
  await screenshotWidget(view, widget, 'vector-lab-all-steps');
  for (let n = 10; n >= 0; n--) {
    await widget.getByRole('button', { name: 'Previous step' }).click();
    await expectStep(n);
  }
  await stepper.focus();
  for (let n = 1; n <= 11; n++) {
    await view.page.keyboard.press(n % 2 ? 'ArrowRight' : 'ArrowDown');
    await expectStep(n);
  }
  for (let n = 10; n >= 3; n--) {
    await view.page.keyboard.press(n % 2 ? 'ArrowLeft' : 'ArrowUp');
    await expectStep(n);
  }
  await screenshotWidget(view, widget, 'vector-lab-step-3');
  await view.page.keyboard.press('Home');
  await expectStep(0);
  await view.page.keyboard.press('End');
  await expectStep(11);
  view.assertClean();
  await view.close();
});

test('the Chinese page labels every control in Chinese and computes the same numbers', async () => {
  const { view, widget, $ } = await openVectorLab(ZH);
  await $('输入向量 x').fill('2 −1 3 0');
  await expectText($('RMSNorm 输出'), RMS, 'zh RMSNorm');
  await expectText($('LayerNorm 输出'), LN, 'zh LayerNorm');
  await $('输入向量 x').fill('2, -1, ?');
  await eventually(
    () => textOf(widget.locator('#field-x-error')),
    (text) => /“\?”不是数字的一部分（第 8 个字符）/.test(text),
    'zh message',
  );
  await widget.getByRole('group', { name: '逐步计算' }).focus();
  await view.page.keyboard.press('ArrowRight');
  await expectText(widget.locator('.step-now'), '第 1 步（共 11 步）· RMSNorm，平方 x²：[4, 1, 9, 0]', 'zh step 1');
  await screenshotWidget(view, widget, 'vector-lab-zh');
  view.assertClean();
  await view.close();
});

test('settings live in the URL: the link restores them, and a broken value falls back with a message', async () => {
  const { view, $ } = await openVectorLab();
  await $('Input vector x').fill('1, 2, 3, 4');
  await $('Scale x by').focus();
  await view.page.keyboard.press('ArrowRight');
  await eventually(
    () => view.page.url(),
    (url) => url.includes('vec.x=1%2C+2%2C+3%2C+4') && url.includes('vec.scale=1.26'),
    'URL carries the state',
  );
  const again = (await reopen(view, view.page.url())).locator('rl-vector-lab');
  assert.equal(await again.getByLabel('Input vector x', { exact: true }).inputValue(), '1, 2, 3, 4');
  assert.equal(
    await again.getByLabel('Scale x by', { exact: true }).getAttribute('aria-valuetext'),
    '×1.26',
    'the factor used, as in the link',
  );
  await expectText(again.getByLabel('x × s', { exact: true }), '[1.26, 2.52, 3.78, 5.04]', 'restored scaled input');
  view.assertClean();
  await view.close();

  const broken = await openReady(lab, `${EN}?vec.x=1,,zz&vec.eps=-3&vec.step=99`);
  const widget = broken.page.locator('rl-vector-lab');
  const notice = widget.getByRole('status').first();
  await eventually(
    () => textOf(notice),
    (text) => text.includes('vec.x="1,,zz"') && text.includes('vec.eps="-3"') && text.includes('vec.step="99"'),
    'notice names each broken setting',
  );
  assert.equal(await widget.getByLabel('Input vector x', { exact: true }).inputValue(), '2, -1, 3, 0');
  await expectText(widget.getByLabel('RMSNorm output', { exact: true }), RMS, 'defaults computed');
  broken.assertClean();
  await broken.close();
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
  const { view, widget, $ } = await openVectorLab();
  assert.equal(await $('DyT output').isVisible(), false, 'DyT is hidden until the reader asks for it');
  assert.equal(await $('DyT scale α').isVisible(), false, 'so is its alpha field');
  await showDyt(view, $);
  assert.equal(dytText(WORKED, 0.5), '[0.762, -0.462, 0.905, 0]');
  await expectText($('DyT output'), '[0.762, -0.462, 0.905, 0]', 'DyT at alpha 0.5');
  await expectText($('RMSNorm output'), RMS, 'RMSNorm beside it');
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
  const { view, widget, $ } = await openVectorLab();
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
  await expectText($('RMSNorm output'), RMS, 'RMSNorm at x10');
  await expectText($('LayerNorm output'), LN, 'LayerNorm at x10');
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
  const { view, widget, $ } = await openVectorLab(ZH);
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
  await expectText($('RMSNorm 输出'), RMS, 'zh RMSNorm at x100');
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

// "3.16 × 10⁻⁶", "[3.16e-6, 0]" or "0.000" as numbers (the superscript exponent read back).
const SUPERSCRIPT_DIGITS = {
  '⁻': '-',
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
};
const readNumber = (text) =>
  Number(
    text
      .trim()
      .replace(/ × 10([⁻⁰¹²³⁴⁵⁶⁷⁸⁹]+)/, (_, power) => `e${[...power].map((c) => SUPERSCRIPT_DIGITS[c]).join('')}`),
  );
const readVector = (text) =>
  text
    .replace(/^\[|\]$/g, '')
    .split(', ')
    .map(readNumber);
// to the 2 (fixed notation) or 3 (scientific notation) significant digits shown
const near = (shown, expected, what, digits = 3) =>
  assert.ok(
    Math.abs(shown - expected) <= 0.5 * 10 ** (1 - digits) * Math.abs(expected),
    `${what}: shown ${shown}, expected ${expected}`,
  );

test('small numbers keep their digits: x = [1e-8, 0, 0, 0] in the outputs, the invariants, the axis and the steps', async () => {
  const { view, widget, $ } = await openVectorLab();
  await $('Input vector x').fill('1e-8, 0, 0, 0');
  // float64 reference with eps = 1e-5: mean square 2.5e-17, RMSNorm x̂1 = 1e-8 / sqrt(2.5e-17 + 1e-5) ≈ 3.16e-6;
  // LayerNorm: mean 2.5e-9, variance 1.875e-17, x̂ = (x - mean) / sqrt(variance + eps)
  const eps = 1e-5;
  const meanSquare = 1e-16 / 4;
  const rms1 = 1e-8 / Math.sqrt(meanSquare + eps);
  const variance = (3 * 2.5e-9 ** 2 + 7.5e-9 ** 2) / 4;
  const ln = [7.5e-9, -2.5e-9, -2.5e-9, -2.5e-9].map((c) => c / Math.sqrt(variance + eps));
  await expectText($('x × s'), '[1e-8, 0, 0, 0]', 'input row');
  const rmsShown = readVector(await textOf($('RMSNorm output')));
  near(rmsShown[0], rms1, 'RMSNorm output x1');
  assert.deepEqual(rmsShown.slice(1), [0, 0, 0]);
  readVector(await textOf($('LayerNorm output'))).forEach((v, i) => near(v, ln[i], `LayerNorm output x${i + 1}`));
  near(readNumber(await textOf($('RMSNorm: RMS of x̂'))), rms1 / 2, 'RMS of x̂');
  near(readNumber(await textOf($('LayerNorm: variance of x̂'))), variance / (variance + eps), 'variance of x̂');
  assert.equal(
    await textOf($('LayerNorm: mean of x̂')),
    '0.000',
    'the mean of x̂ is 0 (its float32 rounding is not shown as a value)',
  );
  assert.match(await textOf(widget.locator('.length-note')), /‖x‖ = 1 × 10⁻⁸, RMS = 5 × 10⁻⁹/);

  // The input's bar axis runs from 0 to a nice 1e-8, not from "0" to "0"
  const ticks = await widget
    .locator('svg.bar-chart[aria-label="Bar chart of the input x × s"] text.tick')
    .allTextContents();
  assert.deepEqual(ticks, ['0', '1 × 10⁻⁸']);
  for (const chart of await widget.locator('svg.bar-chart').all()) {
    const { tickLeft, values } = await chart.evaluate((svg) => ({
      tickLeft: Math.min(...[...svg.querySelectorAll('text.tick')].map((t) => t.getBBox().x)),
      values: [...svg.querySelectorAll('text.bar-value')].map((t) => {
        const b = t.getBBox();
        return [b.x, b.x + b.width, b.y, b.y + b.height];
      }),
    }));
    assert.ok(tickLeft >= 0, `tick labels inside the chart: ${tickLeft}`);
    values.forEach((a, i) =>
      values
        .slice(i + 1)
        .forEach((b) =>
          assert.ok(a[1] <= b[0] || b[1] <= a[0] || a[3] <= b[2] || b[3] <= a[2], `bar values overlap: ${a} and ${b}`),
        ),
    );
  }

  const stepper = widget.getByRole('group', { name: 'Step through the computation' });
  await stepper.focus();
  await view.page.keyboard.press('End');
  const steps = await widget.locator('.step-value').allTextContents();
  near(readNumber(steps[1]), meanSquare, 'step: mean square');
  near(readNumber(steps[2]), Math.sqrt(meanSquare + eps), 'step: root mean square (with eps)', 2);
  const normalized = readVector(steps[3]);
  near(normalized[0], rms1, 'step: x̂1');
  assert.deepEqual(normalized.slice(1), [0, 0, 0]);
  await screenshotWidget(view, widget, 'vector-lab-small-values');
  view.assertClean();
  await view.close();
});

test('a 1,000-value vector is shown by its ends and its length, its bar labels thinned; the table CSV keeps it whole', async () => {
  const { view, widget, $ } = await openVectorLab();
  const defaultHeight = (await widget.boundingBox()).height;
  const values = Array.from({ length: 1000 }, (_, i) => (i % 9) - 4);
  await $('Input vector x').fill(values.join(','));
  const ends = `[${values.slice(0, 3).join(', ')}, …, ${values.slice(-3).join(', ')}] (1,000 values)`;
  await eventually(
    () => textOf($('x × s')),
    (text) => text === ends,
    'summarized input',
  );
  assert.match(
    await textOf($('RMSNorm output')),
    /^\[-1\.\d+, -1\.\d+, -0\.\d+, …, 1\.\d+, 1\.\d+, -1\.\d+\] \(1,000 values\)$/,
  );
  const height = (await widget.boundingBox()).height;
  assert.ok(
    height < defaultHeight + 200,
    `the widget stays about its size: ${height} px against ${defaultHeight} px for 4 values`,
  );

  for (const label of ['Bar chart of the input x × s', 'Bar chart of the outputs']) {
    const boxes = await widget.locator(`svg.bar-chart[aria-label="${label}"] text.category`).evaluateAll((texts) =>
      texts.map((t) => {
        const box = t.getBBox();
        return [box.x, box.x + box.width];
      }),
    );
    assert.ok(boxes.length >= 2 && boxes.length <= 16, `${label}: ${boxes.length} category labels`);
    boxes
      .slice(1)
      .forEach(([left], k) =>
        assert.ok(
          left > boxes[k][1],
          `${label}: labels ${k + 1} and ${k + 2} overlap (${boxes[k]} and ${boxes[k + 1]})`,
        ),
      );
  }

  const menu = widget.locator('details.share-menu');
  await menu.locator('summary').click();
  const [download] = await Promise.all([
    view.page.waitForEvent('download'),
    menu.getByRole('button', { name: 'Save Table 1 as CSV' }).click(),
  ]);
  const csv = (await readFile(await download.path(), 'utf8')).split('\r\n');
  const input = csv[0].match(/^x × s,"\[(.*)\]"$/);
  assert.ok(input, `the first row is x × s: ${csv[0].slice(0, 60)}`);
  assert.deepEqual(input[1].split(', ').map(Number), values, 'the whole input vector');
  assert.equal(csv[1].match(/"\[(.*)\]"/)[1].split(', ').length, 1000, 'the whole RMSNorm output');
  await screenshotWidget(view, widget, 'vector-lab-1000-values');
  view.assertClean();
  await view.close();
});
