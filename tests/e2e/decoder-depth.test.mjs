// The decoder widgets that measure scale against depth and gain at initialization: QK-Norm's score bound, the
// 1/√(2L) init scaling, and where the norm sits (Post-Norm against Pre-Norm). Expected values are closed forms
// (the Cauchy-Schwarz bound sqrt(d_head), gain², O(1/√L)), never the widget's own code.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
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

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

test('QK-Norm lab: the QK-Norm logit never passes √d_head, the plain logit grows as gain²', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-qk-norm-lab');
  await finished(widget);
  const [bound, qkMax] = await numbers(readout(widget, 'bound'));
  assert.ok(relative(bound, Math.sqrt(128)) < 1e-12, `√128: ${bound}`);
  assert.ok(qkMax > 0 && qkMax <= bound, `QK-Norm logit ${qkMax} <= ${bound}`);
  const [plainTop, entropyPlain, entropyQk] = await numbers(readout(widget, 'top-gain'));
  assert.ok(plainTop > 10 * bound, `without QK-Norm at gain 64: ${plainTop}`);
  assert.ok(entropyPlain < 0.1 && entropyQk > 1, `entropy ${entropyPlain} vs ${entropyQk}`);
  const [layer0Growth, gainSquared] = await numbers(readout(widget, 'layer0'));
  assert.equal(gainSquared, 64 ** 2);
  assert.ok(relative(layer0Growth, gainSquared) < 1e-3, `layer 0 grows as gain²: ${layer0Growth}`);
  assert.match(await textOf(widget.locator('.remark')), /√128 ≈ 11\.3/);
  await screenshotWidget(view, widget, 'qk-norm-lab-en');

  for (const dHead of ['16', '64']) {
    await rerun(widget, () => widget.getByLabel('Head dimension d_head', { exact: true }).selectOption(dHead));
    const [b, q] = await numbers(readout(widget, 'bound'));
    assert.ok(relative(b, Math.sqrt(Number(dHead))) < 1e-12 && q <= b, `d_head ${dHead}: ${q} <= ${b}`);
  }
  await rerun(widget, () => widget.getByLabel('Largest q/k gain', { exact: true }).selectOption('256'));
  const [, gain256] = await numbers(readout(widget, 'layer0'));
  assert.equal(gain256, 256 ** 2);
  await eventually(
    () => view.page.url(),
    (url) => url.includes('qk.dHead=64') && url.includes('qk.maxGain=256'),
    'settings in the URL',
  );
  view.assertClean();
  await view.close();

  const zh = await openReady(lab, ZH, { colorScheme: 'dark' });
  const zhWidget = zh.page.locator('rl-qk-norm-lab');
  await finished(zhWidget);
  assert.match(await textOf(zhWidget.getByRole('heading', { level: 3 })), /QK-Norm 与分数上界/);
  await screenshotWidget(zh, zhWidget, 'qk-norm-lab-zh-dark');
  zh.assertClean();
  await zh.close();
});

test('init scaling: the plain stream variance grows with depth, the 1/√(2L)-scaled one stays flat', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-init-scaling');
  await finished(widget);
  const [plain64, scaled64] = await numbers(readout(widget, 'deepest'));
  const [growthPlain, growthScaled] = await numbers(readout(widget, 'growth'));
  assert.ok(plain64 > 10 * scaled64, `at 64 layers: plain ${plain64}, scaled ${scaled64}`);
  // Without scaling the sum of 2L increments grows with L (64× more layers): well over ×10.
  assert.ok(growthPlain > 10 && growthPlain < 128, `plain growth ${growthPlain}`);
  assert.ok(Math.abs(growthScaled - 1) < 0.25, `scaled growth ${growthScaled}`);
  assert.ok(relative(plain64 / growthPlain, scaled64 / growthScaled) < 0.5, 'both start from the same 1-layer scale');
  await screenshotWidget(view, widget, 'init-scaling-en');
  await rerun(widget, () => widget.getByLabel('Deepest model (layers)', { exact: true }).selectOption('16'));
  assert.match(await textOf(readout(widget, 'deepest').locator('..')), /^At 16 layers/);
  await eventually(
    () => view.page.url(),
    (url) => url.includes('init.maxDepth=16'),
    'settings in the URL',
  );

  // The seed: a typo is reported under the field and runs nothing; another seed reruns, and the result holds.
  const seed = widget.getByLabel('Random seed', { exact: true });
  const before = await numbers(readout(widget, 'deepest'));
  await seed.fill('1.5x');
  assert.match(await textOf(widget.locator('#field-seed-error')), /not a number/i);
  assert.equal(await seed.getAttribute('aria-invalid'), 'true');
  assert.equal(await widget.getAttribute('data-status'), 'done', 'a bad seed starts no run');
  await rerun(widget, () => widget.getByRole('button', { name: 'Another seed' }).click());
  assert.equal(await seed.inputValue(), '1');
  assert.equal(await textOf(widget.locator('#field-seed-error')), '');
  const after = await numbers(readout(widget, 'deepest'));
  assert.notDeepEqual(after, before, 'another seed draws other weights');
  const [, growthScaledSeed1] = await numbers(readout(widget, 'growth'));
  assert.ok(Math.abs(growthScaledSeed1 - 1) < 0.25, `scaled growth with seed 1: ${growthScaledSeed1}`);
  await eventually(
    () => view.page.url(),
    (url) => url.includes('init.seed=1'),
    'the seed in the URL',
  );
  view.assertClean();
  await view.close();
});

test('placement lab: the last layer’s gradient stays put with depth for Post-Norm and shrinks for Pre-Norm (Xiong et al., Theorem 1)', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-placement-lab');
  assert.equal(await widget.getAttribute('data-status'), null, 'nothing runs before the widget nears the viewport');
  await finished(widget, 60000);
  const [postDepth] = await numbers(readout(widget, 'post'));
  const [preDepth] = await numbers(readout(widget, 'pre'));
  // 6 -> 48 layers: independent of L for Post-LN; O(1/√L) for Pre-LN, i.e. about ×√(6/48) = ×0.35.
  assert.ok(Math.abs(postDepth - 1) < 0.2, `Post-Norm, 6 -> 48 layers: ×${postDepth}`);
  assert.ok(preDepth < 0.6 && preDepth > 0.2, `Pre-Norm, 6 -> 48 layers: ×${preDepth}`);
  await screenshotWidget(view, widget, 'placement-lab-en');
  // the remark quotes what this run measured, and says the depth law holds only when Post-Norm's stays within ×1.5
  let remarks = 0;
  for (const init of ['normal', 'xavier']) {
    if (init === 'xavier') await rerun(widget, () => widget.getByLabel(/^Xavier/).check(), 60000);
    const [depth, profile] = await numbers(readout(widget, 'post'));
    const remark = await textOf(widget.locator('.remark'));
    if (profile >= 1.5 || profile <= 1 / 1.5) {
      assert.equal(remark, '', `${init}: Post-Norm's profile ×${profile} is not flat: no remark`);
      continue;
    }
    const factor = (x) => `×${Number(x.toPrecision(3))}`;
    assert.ok(remark.includes(`(the top layer’s is ${factor(profile)} the first’s)`), `${init}: ${remark}`);
    assert.ok(remark.includes(`moves ${factor(depth)} from 6 to 48 layers`), `${init}: ${remark}`);
    assert.equal(remark.includes('the depth law of Theorem 1 does hold'), depth < 1.5 && depth > 1 / 1.5, remark);
    remarks += 1;
  }
  assert.ok(remarks > 0, 'Post-Norm is flat under at least one of the two inits, as the chapter says');
  await rerun(widget, () => widget.getByLabel('OLMo 2', { exact: true }).check(), 60000);
  assert.equal(await readout(widget, 'olmo2').count(), 2);
  await eventually(
    () => view.page.url(),
    (url) => url.includes('place.olmo2=true'),
    'settings in the URL',
  );
  view.assertClean();
  await view.close();
});
