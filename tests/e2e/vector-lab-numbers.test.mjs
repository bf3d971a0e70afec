// <rl-vector-lab> with hard vectors: tiny values keep their significant digits everywhere they are shown, and a
// 1,000-value vector is shown by its ends and its length while the table's CSV keeps it whole.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { startLab } from './harness.mjs';
import { eventually, expectText, screenshotWidget, textOf, openVectorLab, WORKED_RMS } from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
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
  const { view, widget, $ } = await openVectorLab(lab);
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
  const { view, widget, $ } = await openVectorLab(lab);
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
