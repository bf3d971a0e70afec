// <rl-vector-lab> in the served chapter, driven the way a reader does: by labels, typing, the slider's
// keys, the step buttons and arrow keys. The expected numbers are the chapter's worked example.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import {
  EN,
  ZH,
  eventually,
  expectText,
  openReady,
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

test('the worked example: RMSNorm and LayerNorm of [2, -1, 3, 0] with their invariants', async () => {
  const { view, widget, $ } = await openVectorLab(lab);
  assert.equal(await $('Input vector x').inputValue(), '2, -1, 3, 0');
  await expectText($('RMSNorm output'), WORKED_RMS, 'RMSNorm');
  await expectText($('LayerNorm output'), WORKED_LN, 'LayerNorm');
  await expectText($('RMSNorm: RMS of x̂'), '1.000', 'RMS invariant');
  await expectText($('LayerNorm: mean of x̂'), '0.000', 'mean invariant');
  await expectText($('LayerNorm: variance of x̂'), '1.000', 'variance invariant');
  await screenshotWidget(view, widget, 'vector-lab-en');
  view.assertClean();
  await view.close();
});

test('x times 10, typed or by the slider, leaves the RMSNorm output where it was', async () => {
  const { view, $ } = await openVectorLab(lab);
  await $('Input vector x').fill('[20, -10, 30, 0]');
  await expectText($('x × s'), '[20, -10, 30, 0]', 'input row');
  await expectText($('RMSNorm output'), WORKED_RMS, 'RMSNorm of 10x');
  await expectText($('LayerNorm output'), WORKED_LN, 'LayerNorm of 10x');

  await $('Input vector x').fill('2, -1, 3, 0');
  const slider = $('Scale x by');
  assert.equal(await slider.getAttribute('type'), 'range', 'a real range input');
  await slider.focus();
  for (let i = 0; i < 10; i++) await view.page.keyboard.press('ArrowRight'); // log10 steps of 0.1
  assert.equal(await slider.getAttribute('aria-valuetext'), '×10');
  await expectText($('x × s'), '[20, -10, 30, 0]', 'scaled input');
  await expectText($('RMSNorm output'), WORKED_RMS, 'RMSNorm at x10');
  await view.page.keyboard.press('End');
  assert.equal(await slider.getAttribute('aria-valuetext'), '×100');
  await expectText($('x × s'), '[200, -100, 300, 0]', 'input at x100');
  await expectText($('RMSNorm output'), WORKED_RMS, 'RMSNorm at x100');
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
  await expectText($('RMSNorm output'), WORKED_RMS, 'RMSNorm at x0.1, eps 0');
  view.assertClean();
  await view.close();
});

test('a malformed vector shows its message by the field and the last good result stays', async () => {
  const { view, widget, $ } = await openVectorLab(lab);
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
  await expectText($('RMSNorm output'), WORKED_RMS, 'last good RMSNorm stays');

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
  ['normalized x̂', WORKED_RMS],
  ['output y', WORKED_RMS],
  ['mean μ', '1'],
  ['centered x − μ', '[1, -2, 2, -1]'],
  ['variance σ²', '2.5'],
  ['standard deviation', '1.581'],
  ['normalized x̂', WORKED_LN],
  ['output y', WORKED_LN],
];

test('stepping through every intermediate value, forward and back, with buttons and arrow keys', async () => {
  const { view, widget } = await openVectorLab(lab);
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
  const { view, widget, $ } = await openVectorLab(lab, ZH);
  await $('输入向量 x').fill('2 −1 3 0');
  await expectText($('RMSNorm 输出'), WORKED_RMS, 'zh RMSNorm');
  await expectText($('LayerNorm 输出'), WORKED_LN, 'zh LayerNorm');
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
  const { view, $ } = await openVectorLab(lab);
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
  await expectText(widget.getByLabel('RMSNorm output', { exact: true }), WORKED_RMS, 'defaults computed');
  broken.assertClean();
  await broken.close();
});

test('the first drawing is spread over frames: charts and step columns are laid out after the rest, all before data-ready', async () => {
  // Records, in the first frame after the widget starts drawing, which of its parts still wait for a frame of
  // their own; the whole drawing in one frame held the main thread longest of all the page's loading work.
  const initScript = () => {
    window.firstFrameParts = null;
    addEventListener('residual-lab:drawing', ({ target }) => {
      if (target.localName !== 'rl-vector-lab') return;
      requestAnimationFrame(() => {
        const waiting = [...target.shadowRoot.querySelectorAll('[data-later]')];
        window.firstFrameParts = {
          waiting: waiting.map((part) => part.className),
          results: target.shadowRoot.querySelector('output.vector')?.textContent ?? '',
        };
      });
    });
  };
  const view = await openReady(lab, EN, { initScript });
  const first = await view.page.evaluate(() => window.firstFrameParts);
  assert.deepEqual(first.waiting, ['charts', 'step-column step-rms', 'step-column step-ln', 'step-column step-dyt']);
  assert.equal(first.results, '[2, -1, 3, 0]', 'the numbers are drawn in the first frame');
  const widget = view.page.locator('rl-vector-lab');
  const now = await widget.evaluate((el) => ({
    waiting: el.shadowRoot.querySelectorAll('[data-later]').length,
    text: el.shadowRoot.querySelector('.stepper').innerText,
  }));
  assert.equal(now.waiting, 0, 'nothing waits once data-ready is set');
  for (const shown of ['RMSNorm', 'root mean square', 'LayerNorm', 'mean μ'])
    assert.ok(now.text.includes(shown), `the step-through's "${shown}" is rendered text`);
  view.assertClean();
  await view.close();
});
