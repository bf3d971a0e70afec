// The decoder widgets that train a small model in the lab worker: residual growth (the stream's norm layer by
// layer, before and after training) and the warmup race (Post-Norm and Pre-Norm, with and without warmup). They
// show progress, cancel keeping the last result, and their claims are checked against the run's own losses.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import {
  EN,
  ZH,
  eventually,
  expectText,
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

test('residual growth: the stream lengthens layer by layer, the increment ratio falls, training shows progress', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-residual-growth');
  await finished(widget);
  const [bottom, top, growth] = await numbers(readout(widget, 'norms'));
  assert.ok(bottom > 0 && top > bottom, `stream ${bottom} -> ${top}`);
  assert.ok(relative(growth, top / bottom) < 1e-12);
  const [attentionFirst, attentionLast, mlpFirst, mlpLast] = await numbers(readout(widget, 'ratios'));
  assert.ok(attentionFirst > 0 && attentionLast > 0, `attention ratio ${attentionFirst} -> ${attentionLast}`);
  assert.ok(mlpLast < mlpFirst, `the MLP increment shrinks against the stream: ${mlpFirst} -> ${mlpLast}`);
  // the ratios are drawn on a log axis (after training they span three decades): log10 of the readouts' values
  // (the chart's CSV gives 10^y of what it plots)
  const rows = (
    await widget.locator('[aria-label^="Line chart, log scale: the ratio"]').evaluate((root) => root.chartExport.csv())
  )
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.split(',').map(Number));
  for (const [column, first, last] of [
    [1, attentionFirst, attentionLast],
    [2, mlpFirst, mlpLast],
  ]) {
    assert.ok(relative(rows[0][column], first) < 1e-2, `first layer: ${rows[0][column]} against ${first}`);
    assert.ok(relative(rows.at(-1)[column], last) < 1e-2, `last layer: ${rows.at(-1)[column]} against ${last}`);
  }
  const [untrainedLoss] = await numbers(readout(widget, 'loss'));
  assert.match(await textOf(widget.locator('.remark')), /growth comes from training/);

  // Post-Norm resets the trunk to √d = 8 after every addition; sandwich normalizes every increment instead, so
  // even at initialization its trunk, a sum of 16 increments about 8 long, ends far above Pre-Norm's.
  await rerun(widget, () => widget.getByLabel('Post-Norm', { exact: true }).check());
  const [, postTop] = await numbers(readout(widget, 'norms'));
  assert.ok(Math.abs(postTop - 8) < 0.5, `Post-Norm's trunk at the top: ${postTop}`);
  const postRemark = await textOf(widget.locator('.remark'));
  assert.match(postRemark, /Post-Norm normalizes the trunk after every addition/);
  const [low, high] = postRemark
    .match(/between ([\d.]+) and ([\d.]+)/)
    .slice(1)
    .map(Number);
  assert.ok(low > 7 && high < 9, `every stream point near 8: ${low} to ${high}`);
  await rerun(widget, () => widget.getByLabel('sandwich', { exact: true }).check());
  const [, sandwichTop] = await numbers(readout(widget, 'norms'));
  assert.ok(sandwichTop > 10 * top, `sandwich ${sandwichTop} against Pre-Norm ${top}`);
  assert.match(await textOf(widget.locator('.remark')), /^Sandwich normalizes every increment/);
  await eventually(
    () => view.page.url(),
    (url) => url.includes('growth.placement=sandwich'),
    'the placement in the URL',
  );
  await rerun(widget, () => widget.getByLabel('Pre-Norm', { exact: true }).check());

  await widget.getByLabel('Training steps before measuring', { exact: true }).selectOption('50');
  assert.match(
    await textOf(widget.locator('.widget-body .hint').last()),
    /Press “Train and measure” to train 50 steps/,
  );
  await new Promise((resolve) => setTimeout(resolve, 500)); // past the recompute delay
  assert.equal(await widget.getAttribute('data-status'), 'done', 'a training run waits for the button');
  const progressSeen = widget.evaluate(
    (el) =>
      new Promise((resolve) => {
        const watch = setInterval(() => {
          const progress = el.shadowRoot.querySelector('progress');
          if (!progress.hidden && progress.value > 0) {
            clearInterval(watch);
            resolve({ value: progress.value, max: progress.max });
          }
        }, 20);
      }),
  );
  await rerun(widget, () => widget.getByRole('button', { name: 'Train and measure' }).click(), 60000);
  const progress = await progressSeen;
  assert.equal(progress.max, 50, 'the progress bar counts the training steps');
  const [trainedBottom, trainedTop] = await numbers(readout(widget, 'norms'));
  const [trainedLoss] = await numbers(readout(widget, 'loss'));
  assert.ok(trainedLoss < untrainedLoss, `training lowers the loss: ${untrainedLoss} -> ${trainedLoss}`);
  assert.ok(
    trainedTop / trainedBottom > top / bottom,
    `training grows the stream more: ×${trainedTop / trainedBottom}`,
  );
  assert.match(await textOf(readout(widget, 'norms').first().locator('..')), /^After 50 training steps/);
  await screenshotWidget(view, widget, 'residual-growth-trained-en');

  await widget.getByLabel('Training steps before measuring', { exact: true }).selectOption('1000');
  await widget.getByRole('button', { name: 'Train and measure' }).click();
  await eventually(
    () => textOf(widget.locator('.run-status')),
    (text) => /Training step \d+ of 1000/.test(text),
    'step counter',
    10000,
  );
  await widget.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await widget.getAttribute('data-status'), 'cancelled');
  assert.deepEqual(
    (await numbers(readout(widget, 'norms'))).slice(0, 2),
    [trainedBottom, trainedTop],
    'the last result stays',
  );
  await eventually(
    () => view.page.url(),
    (url) => url.includes('growth.trainSteps=1000'),
    'settings in the URL',
  );
  view.assertClean();
  await view.close();

  const zh = await openReady(lab, ZH);
  const zhWidget = zh.page.locator('rl-residual-growth');
  await finished(zhWidget);
  assert.match(await textOf(zhWidget.locator('.remark')), /增长来自训练/);
  await screenshotWidget(zh, zhWidget, 'residual-growth-zh');
  zh.assertClean();
  await zh.close();
});

test('warmup race: runs only on request, counts steps, cancels, and shows Post-Norm suffering without warmup', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-warmup-race');
  await widget.scrollIntoViewIfNeeded();
  const run = widget.getByRole('button', { name: 'Run the four trainings' });
  const idle = await textOf(widget.locator('.widget-body > .hint'));
  assert.match(idle, /Press “Run the four trainings”/);
  // The run's length depends on the machine (4 s here, far more on a phone): no fixed promise before it starts.
  assert.doesNotMatch(idle, /\d|minute|second/);
  assert.equal(await widget.getAttribute('data-status'), null, 'nothing runs before the button');

  await run.click();
  await eventually(
    () => textOf(widget.getByRole('status').last()),
    (text) => /Training step \d+ of 200/.test(text),
    'step counter',
    20000,
  );
  // the curves grow on the chart while the race runs
  await eventually(
    () => widget.getAttribute('data-steps-drawn'),
    (steps) => Number(steps) >= 10,
    'partial curves drawn',
    20000,
  );
  await widget.getByRole('button', { name: 'Cancel' }).click();
  assert.equal(await widget.getAttribute('data-status'), 'cancelled');
  const drawn = Number(await widget.getAttribute('data-steps-drawn'));
  assert.ok(drawn >= 10 && drawn < 200, `a cancelled race keeps its partial curves (${drawn} steps)`);
  assert.match(
    await textOf(widget.getByRole('status').last()),
    new RegExp(`Cancelled at step ${drawn} of 200: the curves so far stay on screen`),
  );
  assert.equal(await widget.locator('[data-readout] data').count(), 0, 'no result yet');
  await screenshotWidget(view, widget, 'warmup-race-cancelled-en');

  await rerun(widget, () => run.click(), 180000);
  const losses = {};
  for (const key of ['post-false', 'post-true', 'pre-false', 'pre-true']) {
    const [smoothed, heldOut] = await numbers(readout(widget, key));
    assert.ok(Number.isFinite(smoothed) && Number.isFinite(heldOut), `${key}: ${smoothed}, ${heldOut}`);
    losses[key] = smoothed;
  }
  // Every run starts near ln(vocabulary) ≈ 3.6; the defaults are where docs/experiments.md saw post-norm without
  // warmup lag behind its warmed-up twin while pre-norm barely cares.
  assert.ok(losses['pre-true'] < 3.6 && losses['post-true'] < 3.6, `the trainings learn: ${JSON.stringify(losses)}`);
  assert.ok(
    losses['post-false'] - losses['post-true'] > losses['pre-false'] - losses['pre-true'],
    `warmup matters more for Post-Norm: ${JSON.stringify(losses)}`,
  );
  await screenshotWidget(view, widget, 'warmup-race-en');
  view.assertClean();
  await view.close();
});

test('warmup race: a field holding an error runs nothing, says why, and the run goes once it is corrected', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-warmup-race');
  await widget.scrollIntoViewIfNeeded();
  const seed = widget.getByLabel('Random seed', { exact: true });
  await seed.fill('abc');
  await expectText(widget.locator('#field-seed-error'), 'not a number', 'the seed field says what is wrong');
  await widget.getByRole('button', { name: 'Run the four trainings' }).click();
  await expectText(
    widget.locator('.run-error'),
    'Nothing was run: correct the field marked above first.',
    'the run line says why',
  );
  assert.equal(await widget.getAttribute('data-status'), null, 'no training started');
  assert.equal(await widget.getAttribute('data-steps-drawn'), null, 'no curve drawn');

  await seed.fill('7');
  await widget.getByLabel('Training steps', { exact: true }).selectOption('100');
  await rerun(widget, () => widget.getByRole('button', { name: 'Run the four trainings' }).click(), 120000);
  assert.equal(await textOf(widget.locator('.run-error')), '', 'the message goes with the run');
  assert.equal(await widget.getAttribute('data-steps-drawn'), '100');
  view.assertClean();
  await view.close();
});
