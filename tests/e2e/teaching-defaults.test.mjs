// The page teaches at its defaults and says only what its numbers show: the gradient-flow widget opens on the
// section's claim (with residuals the gradient reaching layer 0 stays near the top's, without them it vanishes)
// and a preset leads to the growth with large branches; the Gemma verdict follows the measured cosine; the
// warmup chart's smoothed curves are the experiment's own moving average; factors read as the value used.
// Expected values are closed forms (0.1^32, (1 + g²)^(L/2)), the float64 cosine, or the run's own reported
// finalSmoothedLoss, never the widget's code.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startLab } from './harness.mjs';
import { stringsOf } from '../../web/languages.js';
import { formatFixed } from '../../web/components/shared/format.js';
import { LANGUAGE_PAGES, eventually, finished, numbers, openReady, readout, rerun, textOf } from './widget-helpers.mjs';

let lab;
before(async () => {
  lab = await startLab();
});
after(async () => {
  await lab?.close();
});

/** The fixed words of a string function of the widget's, around its numbers: each must appear in what it wrote. */
const wordsOf = (template, arity) =>
  template(...Array.from({ length: arity }, (_, k) => `\u0000${k}`))
    .split(/\u0000\d/)
    .filter((part) => part.trim());
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

for (const [lang, path] of LANGUAGE_PAGES) {
  const s = stringsOf(lang, 'rl-gradient-flow');
  test(`${lang}: gradient flow as it opens shows the section's claim; the large-branch preset shows growth`, async () => {
    const view = await openReady(lab, path);
    const widget = view.page.locator('rl-gradient-flow');
    await finished(widget);
    const [plain] = await numbers(readout(widget, 'plain'));
    const [residual] = await numbers(readout(widget, 'residual'));
    assert.ok(
      plain < 1e-30 && Math.abs(plain / 0.1 ** 32 - 1) < 1e-3,
      `without residuals it vanishes: 0.1^32, shown ${plain}`,
    );
    assert.ok(residual > 0.9 && residual < 1.3, `with residuals it stays near 1: ${residual}`);
    const remark = await textOf(widget.locator('.remark'));
    for (const words of wordsOf(s.residualFlat, 2)) assert.ok(remark.includes(words), `the remark says "${words}"`);
    assert.ok(
      remark.includes(s.residualFlat(formatFixed(residual, 2), 2)),
      `the remark gives the measured ratio as the readout does: ${remark}`,
    );

    const large = s.preset(1, 32, 'large');
    await rerun(widget, () => widget.getByRole('button', { name: new RegExp(escape(large)) }).click());
    const [grown] = await numbers(readout(widget, 'residual'));
    const [, expected] = await numbers(readout(widget, 'residual'));
    assert.equal(expected, 2 ** 16, '(1 + 1²)^(32/2)');
    assert.ok(grown > 2 ** 15 && grown < 2 ** 18, `large branches: the residual gradient grows, ${grown}`);
    const [rotations] = await numbers(readout(widget, 'plain'));
    assert.ok(Math.abs(rotations - 1) < 1e-9, `gain 1 without residuals: rotations keep the norm, ${rotations}`);
    const grownRemark = await textOf(widget.locator('.remark'));
    assert.ok(
      grownRemark.includes(`×${Math.round(grown).toLocaleString('en-US')}`),
      `the remark gives the measured growth: ${grownRemark}`,
    );
    for (const words of wordsOf(s.residualLarge, 2))
      assert.ok(grownRemark.includes(words), `the remark says "${words}"`);
    view.assertClean();
    await view.close();
  });
}

/** The float64 cosine and length ratio of the two readings y = x̂·(w + offset), x̂ = x / rms(x). */
function readings(x, w, trainedOffset, eps = 1e-6) {
  const rms = Math.sqrt(x.reduce((a, v) => a + v * v, 0) / x.length + eps);
  const read = (offset) => x.map((v, i) => (v / rms) * (w[i] + offset));
  const [r, m] = [read(trainedOffset), read(1 - trainedOffset)];
  const dot = (a, b) => a.reduce((t, v, i) => t + v * b[i], 0);
  return { cosine: dot(r, m) / Math.sqrt(dot(r, r) * dot(m, m)), ratio: Math.sqrt(dot(m, m) / dot(r, r)) };
}

for (const [lang, path] of LANGUAGE_PAGES) {
  test(`${lang}: the Gemma trap's verdict follows the cosine (bands 0.99 and 0.9), and w = -1 is said in words`, async () => {
    const s = stringsOf(lang, 'rl-gemma-trap');
    // Each verdict as the strings word it, with the float64 cosine and length ratio of the two readings.
    const said = (sentence, { cosine, ratio }, ...bands) =>
      sentence(cosine.toFixed(3), `${Number(ratio.toFixed(2))}×`, ...bands);
    const view = await openReady(lab, path);
    const widget = view.page.locator('rl-gemma-trap');
    await widget.scrollIntoViewIfNeeded();
    const verdict = widget.locator('.verdict');
    const w = widget.getByLabel(s.w, { exact: true });
    const kind = () => verdict.getAttribute('data-verdict');

    // The opening Gemma example: cosine 0.921, between the bands.
    const opening = readings([2, -1, 3, 0], [0.2, -0.3, 0.5, 0.1], 1);
    assert.ok(opening.cosine > 0.9 && opening.cosine < 0.99);
    await eventually(kind, (k) => k === 'turned', 'the opening verdict');
    assert.equal(await textOf(verdict), said(s.verdictTurned, opening, 0.9, 0.99));

    // A Llama checkpoint read as Gemma: cosine 0.998, the same direction.
    await widget.getByLabel(s.llama).check();
    const llama = readings([2, -1, 3, 0], [1.2, 0.7, 1.5, 1.1], 0);
    assert.ok(llama.cosine >= 0.99);
    await eventually(kind, (k) => k === 'same', 'the Llama verdict');
    assert.equal(await textOf(verdict), said(s.verdictSame, llama, 0.99));

    // Far apart: below 0.9, the only verdict that says the model's output is lost.
    await widget.getByLabel(s.gemma).check();
    await w.fill('-0.9, 0.8, -0.5, 0.3');
    const far = readings([2, -1, 3, 0], [-0.9, 0.8, -0.5, 0.3], 1);
    assert.ok(far.cosine < 0.9);
    await eventually(kind, (k) => k === 'far', 'the far verdict');
    assert.equal(await textOf(verdict), said(s.verdictFar, far, 0.9));

    // w = -1 in a Gemma checkpoint: the trained output is all zeros, said in words (no "– as long").
    await w.fill('-1, -1, -1, -1');
    await eventually(kind, (k) => k === 'trained-zero', 'the all-zero verdict');
    assert.equal(await textOf(verdict), s.verdictTrainedZero);
    view.assertClean();
    await view.close();
  });
}

for (const [lang, path] of LANGUAGE_PAGES) {
  test(`${lang}: the vector lab's scale slider shows the factor it uses`, async () => {
    const view = await openReady(lab, path);
    const widget = view.page.locator('rl-vector-lab');
    const slider = widget.locator('input[name="scale"]');
    await slider.fill('0.2');
    await eventually(
      () => slider.getAttribute('aria-valuetext'),
      (text) => text === '×1.58',
      'the shown factor is 10^0.2 to three digits',
    );
    view.assertClean();
    await view.close();
  });
}

// The four runs of the warmup race, in its legend's order (its strings' runs are keyed by them).
const RUN_KEYS = ['post-false', 'post-true', 'pre-false', 'pre-true'];

for (const [lang, path] of LANGUAGE_PAGES) {
  const race = stringsOf(lang, 'rl-warmup-race');
  test(`${lang}: warmup race: smoothed curves end at the reported final smoothed loss, legend swatches show the dashes, y axis named`, async () => {
    const view = await openReady(lab, `${path}?warm.steps=100`);
    const widget = view.page.locator('rl-warmup-race');
    await widget.scrollIntoViewIfNeeded();
    await widget.locator('button.run').click();
    await finished(widget, 180000);
    const chart = await widget.evaluate((el) => {
      const legend = [...el.shadowRoot.querySelectorAll('.u-legend .u-series')].filter(
        (row) => getComputedStyle(row).display !== 'none',
      );
      return {
        legend: legend.map((row) => ({
          label: row.querySelector('.u-label')?.textContent,
          swatch: getComputedStyle(row.querySelector('.u-marker')).backgroundImage,
        })),
        // uPlot draws axis titles on the canvas: read them from the chart's options.
        axes: el.chartOptions(() => '#000').axes.map((a) => a.label),
      };
    });
    assert.deepEqual(
      chart.legend.slice(1).map((row) => row.label),
      [...RUN_KEYS.map((key) => race.runs[key]), race.unigramEntropy],
      'raw curves stay out of the legend; the reference line is named',
    );
    const patterns = chart.legend.slice(1, 5).map((row) => row.swatch);
    assert.equal(patterns[0], 'none', 'solid line');
    for (const dashed of patterns.slice(1)) assert.match(dashed, /repeating-linear-gradient/);
    assert.equal(new Set(patterns).size, 4, 'four runs, four patterns');
    assert.ok(chart.axes.includes(race.lossAxis), `axis titles: ${chart.axes}`);
    // The legend's hover readout at the last step gives the bold (smoothed) curves' values there: each is the run's
    // reported finalSmoothedLoss (the same moving average as the training loop's monitor).
    const over = widget.locator('.u-over');
    const box = await over.boundingBox();
    await view.page.mouse.move(box.x + box.width - 1, box.y + box.height / 2);
    const shownAtEnd = await eventually(
      () =>
        widget.evaluate((el) =>
          [...el.shadowRoot.querySelectorAll('.u-legend .u-series')]
            .filter((row) => getComputedStyle(row).display !== 'none')
            .map((row) => row.querySelector('.u-value')?.textContent),
        ),
      (values) => values[0] === '100',
      'the cursor at step 100',
    );
    for (const [i, key] of RUN_KEYS.entries()) {
      const [finalSmoothed] = await numbers(readout(widget, key));
      assert.equal(
        shownAtEnd[i + 1],
        finalSmoothed.toFixed(3),
        `${key}: the smoothed curve ends at the final smoothed loss`,
      );
    }
    // The reference line sits at the training text's unigram entropy, 2.967 nats (-sum p ln p of its characters).
    assert.equal(shownAtEnd[5], '2.967', 'the unigram entropy line');
    view.assertClean();
    await view.close();
  });
}
