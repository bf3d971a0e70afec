// What <rl-checkpoint-probe>'s experiment charts say they draw: every chart has a legend naming each colour its
// bars use (the series' names, bf16Norm's and increments' two among them) and axis titles (the strings' `axes`);
// epsMargin's bars are log10 of the ratios its table lists, as its value axis's title says, each bar named by its
// norm's layer and short name, and the table naming each norm as the reader knows it. Every bar's hover text is
// the language’s (common.barTitle: full-width punctuation in Chinese). In both languages, on the shipped toy,
// against the API's results for the same files and prompt.
//   node --test --test-concurrency=1 tests/e2e/checkpoint-probe-charts.test.mjs     after `node scripts/build.mjs`
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from '../../dist/lib/residual-lab.js';
import { formatTrimmed } from '../../web/components/shared/format.js';
import { toyWindow } from '../../web/components/shared/toys.js';
import { CLAIMS } from '../../web/lib/checkpoint/claims.js';
import { stringsOf } from '../../web/languages.js';
import { record, toyFiles } from '../fixtures/toys.mjs';
import { startLab } from './harness.mjs';
import { probeDone } from './probe-helpers.mjs';
import { LANGUAGE_PAGES, eventually, openReady } from './widget-helpers.mjs';

let lab, api;
before(async () => {
  lab = await startLab();
  api = await load();
});
after(async () => {
  await lab?.close();
});

const noSpace = (text) => text.replace(/\s+/g, '');

/** The chart as drawn: legend entries { name, swatch class }, the bars' series classes, axis titles, bar titles. */
const drawnChart = (figure) =>
  figure.evaluate((fig) => {
    const seriesClass = (el) => [...el.classList].find((c) => c.startsWith('series-'));
    const title = (axis) =>
      [...fig.querySelectorAll(`.axis-title[data-axis="${axis}"] tspan`)].map((t) => t.textContent).join(' ');
    return {
      legend: [...fig.querySelectorAll('.legend-entry')].map((entry) => ({
        name: entry.textContent.trim(),
        swatch: seriesClass(entry.querySelector('.swatch')),
      })),
      barClasses: [...new Set([...fig.querySelectorAll('rect.bar')].map(seriesClass))],
      x: title('x'),
      y: title('y'),
      bars: [...fig.querySelectorAll('rect.bar title')].map((t) => t.textContent),
    };
  });

for (const [code, path] of LANGUAGE_PAGES) {
  test(`${code}: every experiment chart has a legend of its colours and axis titles; epsMargin's bars are log10 of its table's ratios`, async () => {
    const S = stringsOf(code, 'rl-checkpoint-probe');
    const C = stringsOf(code, 'common');
    const seriesPrefix = (name) => C.barTitle(name, '\0', '').split('\0')[0]; // "name, " in English
    const toy = record.toys[0];
    const ckpt = await api.openCheckpoint(toyFiles(toy));
    const ids = ckpt.tokenize(toyWindow(toy));
    const names = Object.keys(CLAIMS);
    const view = await openReady(lab, `${path}?probe.experiment=${names[0]}#rl-probe`);
    const widget = view.page.locator('rl-checkpoint-probe');
    await widget.scrollIntoViewIfNeeded();
    await probeDone(widget, 'the toy and the first experiment are run');
    let checked = 0;
    for (const experiment of names) {
      const result = await ckpt.claim(experiment, ids);
      if (result.unsupported) continue; // no chart (checkpoint-probe-experiments.test.mjs)
      if (experiment !== names[0]) {
        await widget.getByLabel(S.experiment, { exact: true }).selectOption(experiment);
        await probeDone(widget, `${experiment} is run`);
      }
      const figure = widget.locator('.experiment-figure');
      await eventually(
        () => figure.evaluate((fig) => fig.closest('[data-experiment]').dataset.experiment),
        (shown) => shown === experiment,
        `${experiment} is drawn`,
      );
      const chart = await drawnChart(figure);
      const what = `${code}, ${experiment}`;
      // the legend names every colour the bars use, and only those
      assert.ok(chart.legend.length >= 1, `${what}: a legend`);
      assert.deepEqual(
        chart.legend.map((e) => e.swatch),
        chart.barClasses,
        `${what}: one legend entry per colour`,
      );
      for (const entry of chart.legend)
        assert.ok(
          chart.bars.some((bar) => bar.startsWith(seriesPrefix(entry.name))),
          `${what}: "${entry.name}" names bars`,
        );
      assert.equal(noSpace(chart.x), noSpace(S.axes[experiment].x), `${what}: the x axis's title`);
      assert.equal(noSpace(chart.y), noSpace(S.axes[experiment].y), `${what}: the value axis's title`);
      checked += 1;
      if (experiment === 'bf16Norm' || experiment === 'increments') {
        const two = experiment === 'bf16Norm' ? [S.meanSquareError, S.outputError] : [S.attention, S.mlp];
        assert.deepEqual(
          chart.legend.map((e) => e.name),
          two,
          `${what}: both colours named`,
        );
      }
      if (experiment === 'epsMargin') {
        // each bar is log10 of the ratio its table row shows, both read from the API's row, and named after the
        // row's norm: its layer and short name, or the final norm
        const rows = await widget
          .locator('table.experiment-table tbody tr')
          .evaluateAll((trs) => trs.map((tr) => [...tr.children].map((c) => c.textContent.trim())));
        assert.equal(chart.bars.length, result.rows.length);
        const categories = result.rows.map((row) =>
          row.layer == null ? S.finalShort : S.normBar(row.layer, S.normShort[row.slot]),
        );
        assert.equal(new Set(categories).size, categories.length, `${what}: no two bars share a name`);
        // every bar named under the axis (slanted where the names would not fit side by side)
        const drawnNames = await figure.evaluate((fig) =>
          [...fig.querySelectorAll('text.category')].map((t) => t.textContent),
        );
        assert.deepEqual(drawnNames, categories, `${what}: every bar's name drawn`);
        result.rows.forEach((row, i) => {
          assert.equal(rows[i][1], S.normNames[row.slot], `${what}: row ${i}'s norm, as the reader knows it`);
          // the page's kernels and node's may part in float32's last bits (the toy's ratios are written in full)
          const ratio = Number(rows[i][3]);
          assert.ok(Math.abs(ratio / row.ratio - 1) < 1e-5, `${what}: row ${i}'s ratio to ε, ${ratio}`);
          const value = formatTrimmed(Math.log10(row.ratio), 2);
          assert.equal(chart.bars[i], C.barTitle(S.log10Ratio, categories[i], value), `${what}: bar ${i}`);
        });
        assert.match(S.axes.epsMargin.y, /log₁₀/);
      }
    }
    assert.equal(checked, names.length - 1, 'every experiment but the soft-caps draws a chart on the toy');
    ckpt.dispose();
    view.assertClean();
    await view.close();
  });
}
