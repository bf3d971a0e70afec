// The gradient-flow widget in the served chapter: it runs its experiment in the lab worker and shows the ratios it
// computed. Expected values are closed forms (gain^L for a linear stack of scaled rotations) or the chapter's
// figures (0.8^32 ≈ 0.0008), never the widget's own code.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { stringsOf } from '../../web/languages.js';
import { formatFixed } from '../../web/components/shared/format.js';
import {
  EN,
  ZH,
  eventually,
  finished,
  numbers,
  openReady,
  readout,
  relative,
  rerun,
  screenshotWidget,
  textOf,
} from './widget-helpers.mjs';

const EN_TEXT = stringsOf('en', 'rl-gradient-flow');

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

test('gradient flow: without residuals layer 0 gets gain^L of the top gradient; with them it does not vanish', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  await rerun(widget, () => widget.getByRole('button', { name: '0.8 × 32 layers' }).click());
  const [plainRatio, expected] = await numbers(readout(widget, 'plain'));
  assert.ok(relative(plainRatio, 0.8 ** 32) < 1e-3, `0.8^32: shown ${plainRatio}`);
  assert.ok(relative(expected, 0.8 ** 32) < 1e-12, `reference ${expected}`);
  assert.ok(Math.abs(plainRatio - 0.0008) < 0.00005, 'the chapter rounds it to 0.0008');
  const [residualRatio] = await numbers(readout(widget, 'residual'));
  // Linear residual layer: |g_l|^2 ≈ (1 + gain^2) |g_{l+1}|^2 in high dimension, so about 1.64^16 ≈ 2,700.
  assert.ok(residualRatio > 1000 && residualRatio < 8000, `residual, gain 0.8: ${residualRatio}`);
  assert.match(await textOf(widget.locator('.remark')), /chapter's figure 0\.8\^32 ≈ 0\.0008/);
  await screenshotWidget(view, widget, 'gradient-flow-en');

  await rerun(widget, () => widget.getByRole('button', { name: '1.2 × 32 layers' }).click());
  const [exploding] = await numbers(readout(widget, 'plain'));
  assert.ok(relative(exploding, 1.2 ** 32) < 1e-3 && Math.abs(exploding - 342) < 0.5, `1.2^32: shown ${exploding}`);

  await rerun(widget, () => widget.getByRole('button', { name: /^0\.1 × 32 layers/ }).click());
  const [small] = await numbers(readout(widget, 'residual'));
  assert.ok(small > 0.9 && small < 1.3, `small branches keep the gradient near 1: ${small}`);
  assert.match(await textOf(widget.locator('.remark')), /identity path carries the gradient down/);
  // the chapter's "about 1.13 times it": a multiple of the top gradient, not a factor sign
  assert.ok(
    (await textOf(widget.locator('.remark'))).includes(EN_TEXT.residualFlat(formatFixed(small, 2), 2)),
    `the remark quotes ${small} as the readout does`,
  );

  await rerun(widget, () => widget.getByLabel('Layers L', { exact: true }).fill('8'));
  const [eight] = await numbers(readout(widget, 'plain'));
  assert.ok(relative(eight, 0.1 ** 8) < 1e-3, `0.1^8: shown ${eight}`);
  await eventually(
    () => view.page.url(),
    (url) => url.includes('grad.layers=8') && !url.includes('grad.gain='),
    'settings in the URL',
  );

  await rerun(widget, () => widget.getByLabel('without residual', { exact: true }).uncheck());
  assert.equal(await readout(widget, 'plain').count(), 0, 'the unchecked curve is not computed');
  view.assertClean();
  await view.close();
});

test('gradient flow: a link restores the settings, the MLP variant runs, and the Chinese page is translated', async () => {
  const view = await lab.open(`${ZH}?grad.gain=1.2&grad.layers=16&grad.variant=mlp&grad.width=64`);
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  assert.equal(await widget.getByLabel('层数 L', { exact: true }).inputValue(), '16');
  assert.equal(await widget.getByLabel('每层增益', { exact: true }).inputValue(), '1.2');
  assert.ok(await widget.getByLabel(/^MLP/).isChecked());
  const [mlpPlain] = await numbers(readout(widget, 'plain'));
  assert.ok(Number.isFinite(mlpPlain) && mlpPlain > 0, `mlp ratio ${mlpPlain}`);
  assert.match(await textOf(widget.locator('.remark')), /GELU/);
  const zh = stringsOf('zh', 'rl-gradient-flow');
  assert.equal(
    await widget.locator('.line-chart').first().getAttribute('aria-label'),
    zh.chartLabel(16, 1.2, zh.mlp),
    "the chart's label, its exports' title, says the layers are MLPs",
  );
  await screenshotWidget(view, widget, 'gradient-flow-zh-mlp');
  view.assertClean();
  await view.close();
});

test('gradient flow: a link that switches both curves off still draws both, as the checkboxes would', async () => {
  const view = await lab.open(`${EN}?grad.plain=false&grad.residual=false`);
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  assert.ok(await widget.getByLabel('without residual', { exact: true }).isChecked());
  assert.ok(await widget.getByLabel('with residual', { exact: true }).isChecked());
  const [plainRatio] = await numbers(readout(widget, 'plain'));
  assert.ok(relative(plainRatio, 0.1 ** 32) < 1e-3, `0.1^32: shown ${plainRatio}`);
  const [residualRatio] = await numbers(readout(widget, 'residual'));
  assert.ok(residualRatio > 0.9 && residualRatio < 1.3, `residual, gain 0.1: ${residualRatio}`);
  await eventually(
    () => view.page.url(),
    (url) => !url.includes('grad.plain=') && !url.includes('grad.residual='),
    'the address holds the curves drawn',
  );
  view.assertClean();
  await view.close();
});

test('gradient flow: a gain from a link between the slider’s steps is the gain the slider names and the run uses', async () => {
  const view = await lab.open(`${EN}?grad.gain=0.123&grad.layers=8`);
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  const slider = widget.getByLabel('Gain per layer', { exact: true });
  assert.equal(await slider.getAttribute('aria-valuetext'), '0.123');
  const [plainRatio] = await numbers(readout(widget, 'plain'));
  assert.ok(relative(plainRatio, 0.123 ** 8) < 1e-3, `0.123^8: shown ${plainRatio}`);
  // moved by the reader, the slider names its own steps again
  await rerun(widget, () => slider.fill('0.5'));
  assert.equal(await slider.getAttribute('aria-valuetext'), '0.50');
  const [moved] = await numbers(readout(widget, 'plain'));
  assert.ok(relative(moved, 0.5 ** 8) < 1e-3, `0.5^8: shown ${moved}`);
  view.assertClean();
  await view.close();
});

test('gradient flow: a long run shows progress and can be cancelled, keeping the last result', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  const before = await numbers(readout(widget, 'plain'));
  await widget.getByLabel(/^MLP/).check();
  await widget.getByLabel('Width', { exact: true }).selectOption('512');
  await widget.getByLabel('Layers L', { exact: true }).fill('64');
  const cancel = widget.getByRole('button', { name: 'Cancel' });
  await cancel.waitFor({ state: 'visible', timeout: 5000 });
  assert.ok(await widget.locator('progress').isVisible(), 'a progress bar while it runs');
  await cancel.click();
  assert.equal(await widget.getAttribute('data-status'), 'cancelled');
  assert.match(await textOf(widget.getByRole('status').last()), /Cancelled/);
  assert.deepEqual(await numbers(readout(widget, 'plain')), before, 'the last finished result stays');
  await rerun(widget, () => widget.getByLabel('Layers L', { exact: true }).fill('4')); // the next run works
  view.assertClean();
  await view.close();
});

test('gradient flow in the dark theme', async () => {
  const view = await openReady(lab, EN, { colorScheme: 'dark' });
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  await screenshotWidget(view, widget, 'gradient-flow-dark');
  view.assertClean();
  await view.close();
});
