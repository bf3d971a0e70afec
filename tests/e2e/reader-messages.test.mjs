// What a reader is told when something cannot be computed, in the page's language: the vector lab's reason per
// method (the API's own, translated) with every method that can run still shown, the length line following the
// vector on screen, a link that opens on refused inputs; the config inspector's JSON errors and the fetch panel's
// host check in Chinese; the precision lab's typed vector and whole-number fields; and the residual-growth charts
// marked as the earlier settings' while a training run waits for its button.
//   node --test --test-concurrency=1 tests/e2e/reader-messages.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { stringsOf } from '../../web/languages.js';
import { makeCheckpoint } from '../fixtures/checkpoints/make-checkpoints.mjs';
import { startLab } from './harness.mjs';
import { probeDone } from './probe-helpers.mjs';
import { formatBytes } from '../../web/components/shared/format.js';
import {
  EN,
  ZH,
  eventually,
  expectText,
  finished,
  openReady,
  openVectorLab,
  reopen,
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

/** The English page with its probe in view, once the toy it opens by default has run. */
async function openToyProbe() {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-checkpoint-probe');
  await widget.scrollIntoViewIfNeeded();
  await probeDone(widget, 'the toy is run');
  return { view, widget };
}

const ENGLISH_RUN = /\b[A-Za-z]+(?:[ ,]+[A-Za-z]+){3}\b/;

test('vector lab: each method that refuses x says why in its row, the others still compute, the length follows x', async () => {
  const { view, widget, $ } = await openVectorLab(lab);
  const row = (name) => $(name);
  // all zeros with eps 0: RMSNorm's RMS is 0 and LayerNorm's spread is 0, each refused for its own reason
  await $('Epsilon ε').fill('0');
  await $('Input vector x').fill('0, 0, 0, 0');
  await expectText(
    row('RMSNorm output'),
    'not computed: x is all zeros and ε is 0, so its RMS is 0 and x / RMS is undefined; use ε > 0',
    'RMSNorm refuses',
  );
  await eventually(
    () => textOf(row('LayerNorm output')),
    (text) => /^not computed: x is constant: its variance \(0\) is only rounding noise .* and ε is 0/.test(text),
    'LayerNorm refuses for its own reason',
  );
  assert.equal(await textOf(widget.locator('#field-x-error')), '', 'x itself is fine: no message under it');
  assert.equal(await widget.getAttribute('data-stale'), null, 'what is shown is for these inputs');
  assert.match(await textOf(widget.locator('.length-note')), /‖x‖ = 0, RMS = 0$/);
  // every step the kernels computed: the statistics (all 0), then a dash for x̂ and y
  await widget.getByRole('group', { name: 'Step through the computation' }).focus();
  await view.page.keyboard.press('End');
  const steps = (await widget.locator('.step-value').allTextContents()).slice(0, 11);
  assert.deepEqual(steps, ['[0, 0, 0, 0]', '0', '0', '–', '–', '0', '[0, 0, 0, 0]', '0', '0', '–', '–']);
  await screenshotWidget(view, widget, 'vector-lab-refused-en');

  // 1e18, 1e18: RMSNorm works (each output 1), LayerNorm refuses the constant vector
  await $('Epsilon ε').fill('1e-5');
  await $('Input vector x').fill('1e18, 1e18');
  await expectText(row('RMSNorm output'), '[1, 1]', 'RMSNorm of a constant vector');
  await eventually(
    () => textOf(row('LayerNorm output')),
    (text) => /^not computed: x is constant: .* and ε is smaller than that, .*use ε ≥ 4\.25e\+22$/.test(text),
    'LayerNorm names the ε it would need',
  );
  // ‖x‖ = sqrt(2) * 1e18, RMS = 1e18: the line follows the vector on screen
  assert.match(await textOf(widget.locator('.length-note')), /‖x‖ = 1\.41 × 10¹⁸, RMS = 1 × 10¹⁸$/);
  assert.deepEqual(
    await widget.locator('.legend > span:not([hidden])').evaluateAll((els) => els.map((el) => el.className)),
    ['legend-rms'],
    'the legend names only the curve drawn',
  );

  // 3.4e38, 3.4e38: the sum of squares overflows float32 for both; the float64 length is still shown
  await $('Input vector x').fill('3.4e38, 3.4e38');
  for (const name of ['RMSNorm output', 'LayerNorm output'])
    await expectText(
      row(name),
      'not computed: the sum of squares of x overflows float32 (the largest |xᵢ| is 3.4e+38); scale x down',
      name,
    );
  // ‖x‖ = sqrt(2) * 3.4e38 = 4.8e38, beyond float32 but not float64
  assert.match(await textOf(widget.locator('.length-note')), /‖x‖ = 4\.81 × 10³⁸, RMS = 3\.4 × 10³⁸$/);

  // eps below float32's normal range: its own field says so
  await $('Input vector x').fill('2, -1, 3, 0');
  await $('Epsilon ε').fill('1e-45');
  await eventually(
    () => textOf(widget.locator('#field-eps-error')),
    (text) => text === 'ε must be 0 or at least 1.2e-38 (a smaller one is not a normal float32)',
    'eps 1e-45',
  );
  // the weights' placeholders have x's length
  await $('Input vector x').fill('1, 2');
  assert.equal(await $('RMSNorm weight g').getAttribute('placeholder'), '1, 1');
  assert.equal(await $('Bias β (LayerNorm, DyT)').getAttribute('placeholder'), '0, 0');
  view.assertClean();
  await view.close();
});

test('vector lab: a link to refused inputs opens on what can be shown, not an empty "last valid" frame; zh says why in Chinese', async () => {
  const view = await openReady(lab, `${ZH}?vec.x=1e18,1e18&vec.eps=0`);
  const widget = view.page.locator('rl-vector-lab');
  const $ = (label) => widget.getByLabel(label, { exact: true });
  await expectText($('x × s'), '[1e18, 1e18]', 'the input row is drawn');
  await expectText($('RMSNorm 输出'), '[1, 1]', 'RMSNorm computed');
  const refused = await textOf($('LayerNorm 输出'));
  assert.match(refused, /^无法计算：x 是常数向量：/);
  assert.doesNotMatch(refused, ENGLISH_RUN, refused);
  assert.equal(await widget.getAttribute('data-stale'), null, 'no "last valid result" frame');
  assert.equal(await widget.locator('.stale-label').first().isHidden(), true);
  await screenshotWidget(view, widget, 'vector-lab-refused-zh');
  view.assertClean();
  await view.close();
});

test('zh: the config inspector’s JSON errors and the fetch panel’s host check are in Chinese', async () => {
  const view = await openReady(lab, ZH);
  const inspector = view.page.locator('rl-config-inspector');
  await inspector.locator('#field-config-json').fill('{"model_type": "qwen3", "hidden_size": }');
  await expectText(
    inspector.locator('.field-error'),
    '这不是合法的 JSON：“}”不能作为一个值的开头（第 40 个字符）。',
    'JSON error',
  );
  await inspector.locator('#field-config-json').fill('{"a": 1, "a": 2}');
  await expectText(inspector.locator('.field-error'), '这不是合法的 JSON：键“a”出现了两次（第 10 个字符）。', 'key');

  const probe = view.page.locator('rl-checkpoint-probe');
  await probe.locator('.fetch-panel summary').click();
  await probe.locator('#field-host').selectOption('custom');
  // the custom host's field has a label of its own
  await probe.getByLabel('主机地址（Hugging Face 镜像）', { exact: true }).fill('ftp://example.org');
  await probe.locator('[data-fetch-chapter]').click();
  await expectText(
    probe.locator('[data-fetch-error]'),
    '“ftp://example.org”不是主机地址，地址形如 https://huggingface.co。',
    'host check',
  );
  view.assertClean();
  await view.close();
});

test('precision lab: "typed in" says nothing is wrong before anything is typed; a seed of 3.5 must be a whole number', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-precision-lab');
  await widget.getByLabel('random (standard normal)', { exact: true }).scrollIntoViewIfNeeded();
  await widget.getByLabel('typed in', { exact: true }).check();
  await expectText(
    widget.locator('.verdict'),
    'Type a vector above to measure it; until then the table shows the last vector measured.',
    'the sentence under the table',
  );
  assert.equal(await textOf(widget.locator('#field-typed-error')), '', 'no error before typing');
  assert.equal(await widget.getAttribute('data-stale'), null);
  await widget.getByLabel('Your vector', { exact: true }).fill('3, 4');
  await expectText(widget.locator('#results-title'), 'One RMSNorm at d = 2', 'a typed vector is measured');
  await widget.getByLabel('Your vector', { exact: true }).fill('');
  assert.equal(await textOf(widget.locator('#field-typed-error')), '', 'emptied: still no error');

  await widget.getByLabel('random (standard normal)', { exact: true }).check();
  await widget.getByLabel('Random seed', { exact: true }).fill('3.5');
  await expectText(widget.locator('#field-seed-error'), 'must be a whole number', 'seed 3.5');
  view.assertClean();
  await view.close();
});

test('precision lab: a link opening on "typed in" with no vector says so, hides the empty table and draws the chart', async () => {
  const view = await openReady(lab, `${EN}?prec.source=typed`);
  const widget = view.page.locator('rl-precision-lab');
  await expectText(
    widget.locator('.verdict'),
    'No vector is typed yet: type one above to measure it. The chart below shows random vectors.',
    'nothing measured, nothing claimed',
  );
  assert.equal(await widget.locator('table.precision').isVisible(), false, 'no table of blanks');
  const csvRows = () =>
    widget.evaluate((el) => el.shadowRoot.querySelector('.line-chart').chartExport.csv().trim().split('\n').length);
  await eventually(csvRows, (rows) => rows === 13, 'the random vectors’ curves: a header and d = 4 to 8192');
  assert.equal(await widget.getAttribute('data-stale'), null);
  await widget.getByLabel('Your vector', { exact: true }).fill('3, 4');
  await expectText(widget.locator('#results-title'), 'One RMSNorm at d = 2', 'a typed vector is measured');
  assert.deepEqual(await widget.locator('table.precision thead th').allInnerTexts(), [
    'accumulation',
    'the RMS actually divided by, ‖x‖ / ‖y‖',
    'relative error ‖y − y*‖ / ‖y*‖',
  ]);
  await widget.getByLabel('Your vector', { exact: true }).fill('');
  await expectText(
    widget.locator('.verdict'),
    'Type a vector above to measure it; until then the table shows the last vector measured.',
    'emptied: the table is the last vector’s',
  );
  assert.equal(await widget.locator('table.precision').isVisible(), true);
  view.assertClean();
  await view.close();
});

test('residual growth: a trained run’s charts are marked as the earlier settings’ once placement or seed changes', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-residual-growth');
  await finished(widget);
  await widget.getByLabel('Training steps before measuring', { exact: true }).selectOption('50');
  await rerun(widget, () => widget.getByRole('button', { name: 'Train and measure' }).click(), 60000);
  assert.equal(await widget.getAttribute('data-stale'), null, 'the trained run matches its settings');
  const label = widget.locator('.stale-label').first();
  const seed = widget.getByLabel('Random seed', { exact: true });
  const trainedSeed = await seed.inputValue();
  for (const change of [
    () => widget.getByLabel('Post-Norm', { exact: true }).check(),
    () => seed.fill(String(Number(trainedSeed) + 5)),
  ]) {
    await change();
    await eventually(
      () => widget.getAttribute('data-stale'),
      (v) => v === '',
      'marked stale',
    );
    await expectText(
      label,
      'Earlier result: it belongs to the settings before your change; run again to see the new ones.',
      'the label says why',
    );
    assert.equal(await widget.getAttribute('data-status'), 'done', 'nothing ran by itself');
  }
  // back to the settings drawn: the charts are theirs again
  await seed.fill(trainedSeed);
  await widget.getByLabel('Pre-Norm', { exact: true }).check();
  await eventually(
    () => widget.getAttribute('data-stale'),
    (v) => v === null,
    'unmarked',
  );
  view.assertClean();
  await view.close();
});

test('soft-cap explorer: a typed cap of 0.01 reads 0.01 on the slider, not the slider’s end', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-softcap-explorer');
  const slider = widget.getByLabel('Drag the cap c', { exact: true });
  await widget.getByLabel('Cap c', { exact: true }).fill('0.01');
  await eventually(
    () => slider.getAttribute('aria-valuetext'),
    (text) => text === '0.01',
    'cap 0.01',
  );
  assert.equal(await slider.inputValue(), '1', 'the slider sits at its end');
  await widget.getByLabel('Cap c', { exact: true }).fill('30');
  await eventually(
    () => slider.getAttribute('aria-valuetext'),
    (text) => text === '30',
    'cap 30',
  );
  view.assertClean();
  await view.close();
});

test('soft-cap explorer: the field takes exactly the caps a link carries, and the smallest plots readable ticks', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-softcap-explorer');
  const field = widget.getByLabel('Cap c', { exact: true });
  const { min, max } = await widget.evaluate((el) => el.bounds('cap'));
  assert.deepEqual([min, max], [0.01, 1000]);
  await field.fill('0.0001');
  await expectText(widget.locator('#field-cap-error'), 'must be between 0.01 and 1000', 'below the range: refused');
  assert.ok(!view.page.url().includes('cap.cap='), `a refused cap stays out of the link: ${view.page.url()}`);
  await field.fill(String(min));
  await eventually(
    () => view.page.url(),
    (url) => url.includes(`cap.cap=${min}`),
    'the smallest cap goes into the link',
  );
  assert.equal(await textOf(widget.locator('#field-cap-error')), '', 'and is accepted');
  const page = await reopen(view, view.page.url());
  const shared = page.locator('rl-softcap-explorer');
  assert.equal(await shared.getByLabel('Cap c', { exact: true }).inputValue(), String(min), 'the link reproduces it');
  // the curve's y-axis labels as uPlot drew them (the SVG export reads them off the plot)
  const labels = await shared.evaluate((el) => {
    const svg = el.shadowRoot.querySelector('.line-chart').chartExport.svg();
    return [...svg.matchAll(/text-anchor="end">([^<]*)</g)].map((m) => m[1]);
  });
  assert.deepEqual(labels, ['-0.01', '0', '0.01'], 'whole labels, no clipped exponent');
  view.assertClean();
  await view.close();
});

test('gradient flow: the legend lists only the curves switched on', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-gradient-flow');
  await finished(widget);
  const listed = () =>
    widget.locator('.u-legend .u-series').evaluateAll((rows) =>
      rows
        .slice(1)
        .filter((row) => row.checkVisibility())
        .map((row) => row.innerText.trim()),
    );
  assert.equal((await listed()).length, 3, 'both curves and the reference');
  await rerun(widget, () => widget.getByLabel('without residual', { exact: true }).uncheck());
  const shown = await listed();
  assert.equal(shown.length, 2, `one curve and the reference: ${shown.join(' | ')}`);
  assert.ok(!shown.some((text) => text.startsWith('without residual')), 'the curve switched off is not listed');
  view.assertClean();
  await view.close();
});

test("a table's edge covers are painted in the widget's background, a course's --rl-background included", async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-vector-lab');
  await widget.evaluate((el) => el.style.setProperty('--rl-background', 'rgb(250, 230, 200)'));
  const covers = await widget.evaluate(
    (el) => getComputedStyle(el.shadowRoot.querySelector('.table-scroll')).backgroundImage,
  );
  const linear = covers.match(/linear-gradient\([^)]*\)[^)]*\)/g) ?? [];
  assert.equal(linear.length, 2, covers);
  for (const cover of linear) assert.match(cover, /rgb\(250, 230, 200\)/, cover);
  view.assertClean();
  await view.close();
});

test('warmup race: no empty chart frame before the first race', async () => {
  const view = await openReady(lab, EN);
  const widget = view.page.locator('rl-warmup-race');
  await widget.scrollIntoViewIfNeeded();
  assert.equal(await widget.locator('figure').isHidden(), true, 'the chart waits for a race');
  assert.match(await textOf(widget.locator('.widget-body > .hint')), /Press “Run the four trainings”/);
  view.assertClean();
  await view.close();
});

test("the probe says what the toys show of position 0 while a toy is drawn, not over the reader's own model", async () => {
  const { view, widget } = await openToyProbe();
  const toys = widget.locator('.position-zero .hint span');
  assert.match(await textOf(toys), /^The toys are too small to show that/);
  assert.equal(await toys.isVisible(), true, 'said of the toy');
  const { files } = makeCheckpoint({ family: 'llama', dtype: 'BF16', seed: 3 }); // no tokenizer.json: token ids
  await widget.evaluate((el) => (el.dataset.status = 'stale'));
  await widget.locator('input[type=file]').setInputFiles(
    Object.entries(files).map(([name, content]) => ({
      name,
      mimeType: 'application/octet-stream',
      buffer: Buffer.from(content),
    })),
  );
  await probeDone(widget, 'the files are run');
  assert.equal(await toys.isVisible(), false, "not said of the reader's own model");
  view.assertClean();
  await view.close();
});

test("gradient flow on a 390 px phone: the layer axis's title fits its chart, in both languages", async () => {
  for (const [code, path] of [
    ['en', EN],
    ['zh', ZH],
  ]) {
    const view = await lab.open(path, { viewport: { width: 390, height: 844 }, hasTouch: true });
    const chart = view.page.locator('rl-gradient-flow .line-chart');
    await chart.waitFor();
    const title = stringsOf(code, 'rl-gradient-flow').layerAxis;
    // uPlot centres the title on the canvas in the axis font (line-chart.js axis(): 12px system-ui)
    const [titleWidth, chartWidth] = await chart.evaluate((el, text) => {
      const context = document.createElement('canvas').getContext('2d');
      context.font = '12px system-ui, sans-serif';
      return [context.measureText(text).width, el.getBoundingClientRect().width];
    }, title);
    assert.ok(titleWidth < chartWidth - 20, `${code}: "${title}" is ${titleWidth} px, the chart ${chartWidth} px`);
    view.assertClean();
    await view.close();
  }
});

test('the probe: a position of 2.5 must be a whole number, and one past the prompt says so instead of moving', async () => {
  const { view, widget } = await openToyProbe();
  const position = widget.getByLabel('Position', { exact: true });
  await position.fill('2.5');
  await expectText(widget.locator('#field-position-error'), 'must be a whole number', 'position 2.5');
  await position.fill('4000');
  await eventually(
    () => textOf(widget.locator('#field-position-error')),
    (text) => /^The prompt has (\d+) tokens, at positions 0 to (\d+): there is no position 4000\./.test(text),
    'position past the prompt',
    30000,
  );
  assert.equal(await widget.getAttribute('data-stale'), '', 'the last result stays, dimmed');
  await widget.evaluate((el) => (el.dataset.status = 'stale'));
  await position.fill('');
  await probeDone(widget, 'the last position runs again');
  assert.equal(await textOf(widget.locator('#field-position-error')), '');
  view.assertClean();
  await view.close();
});

test("the probe's run progress: the bar and its words count the same bytes up to the cost line's total; a run from memory counts its steps", async () => {
  const { view, widget } = await openToyProbe();
  await widget.evaluate((el) => {
    const status = el.view.status;
    const bar = el.view.progress;
    window.progressSeen = [];
    new MutationObserver(() =>
      window.progressSeen.push({ text: status.textContent, value: bar.value, max: bar.max }),
    ).observe(status, { childList: true, characterData: true, subtree: true });
    el.dataset.status = 'stale';
  });
  // the other toy: a model not yet run, so this run reads its weights from the files
  await widget.getByLabel('Trained toy', { exact: true }).selectOption('toy-olmo2');
  await probeDone(widget, 'the other toy is run');
  const seen = (await view.page.evaluate(() => window.progressSeen)).filter((p) => / [MG]B read\.$/.test(p.text));
  assert.ok(seen.length >= 2, `progress reported: ${seen.length}`);
  for (const { text, value, max } of seen) {
    const [, read, total] = text.match(/: ([\d.]+ [MG]B) of ([\d.]+ [MG]B) read\.$/);
    assert.equal(read, formatBytes(value), `${text}: the words say what the bar shows`);
    assert.equal(total, formatBytes(max), `${text}: the total is the bar's`);
    assert.match(total, / MB$/, "a toy's few hundred kB in MB, not 0.00 GB");
    assert.ok(max > 1e5, 'the bar counts bytes (the toy reads hundreds of kB), not layers');
  }
  const last = seen.at(-1);
  assert.match(last.text, /The output layer done: /);
  assert.equal(last.value, last.max, 'done: the bar is full');
  // the same toy again: its weights stayed in memory, so the run reads none and the bar counts its steps
  await view.page.evaluate(() => (window.progressSeen = []));
  await widget.evaluate((el) => (el.dataset.status = 'stale'));
  await widget.getByLabel('Position', { exact: true }).fill('2');
  await probeDone(widget, 'the toy is run once more, its weights in memory');
  const warm = await view.page.evaluate(() => window.progressSeen);
  assert.ok(!warm.some((p) => / [MG]B read\.$/.test(p.text)), 'a run that reads nothing counts no bytes');
  const inMemory = warm.filter((p) => /: the weights are in memory, nothing is read\.$/.test(p.text));
  assert.ok(inMemory.length >= 2, `steps reported: ${inMemory.length}`);
  const done = inMemory.at(-1);
  assert.match(done.text, /The output layer done: /);
  assert.equal(done.value, done.max, 'done: the bar is full');
  view.assertClean();
  await view.close();
});
