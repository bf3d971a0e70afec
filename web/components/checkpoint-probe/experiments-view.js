// The probe's experiments (web/lib/checkpoint/claims.js, run in the lab worker through the checkpoint
// handle's `experiment`): a select of them, the chapter's sentence beside the measured answer, a bar chart and a
// table with the same numbers (the accessible alternative, and the chart's CSV). `s` is the widget's strings:
// s.experiments[name] = { name, claim, answer(result, token) } is the one table of each language.
import { barChart, legendEntry, niceLimit } from '../shared/bar-chart.js';
import { h } from '../shared/dom.js';
import { formatFixed, formatTrimmed } from '../shared/format.js';
import { keepInView } from '../shared/keep-in-view.js';
import { shownToken } from './compute.js';

const g = (v) => (v == null ? '–' : formatTrimmed(v, 3));
const f = (digits) => (v) => (v == null ? '–' : formatFixed(v, digits));
const layerNames = (n) => Array.from({ length: n }, (_, l) => String(l));

/**
 * What each experiment's result shows: chart (categories and series), table (head and rows). `t` names a token
 * id; `s` the strings. A result with `unsupported` shows no chart.
 */
const PRESENT = {
  noFinalNorm: (r, s, t) => ({
    chart: {
      categories: [s.withNorm, s.withoutNorm, s.withoutGain],
      series: [
        { label: s.entropy, className: 'series-attn', values: [r.real.entropy, r.raw.entropy, r.noGain.entropy] },
      ],
    },
    table: {
      head: [s.readingColumn, s.entropy, s.topTokens],
      rows: [
        [s.withNorm, g(r.real.entropy), tops(r.real, t)],
        [s.withoutNorm, g(r.raw.entropy), tops(r.raw, t)],
        [s.withoutGain, g(r.noGain.entropy), tops(r.noGain, t)],
      ],
    },
  }),
  dropLayers: (r, s, t) => ({
    chart: {
      categories: layerNames(r.layers.length),
      series: [{ label: s.kl, className: 'series-attn', values: r.layers.map((l) => l.kl) }],
    },
    table: {
      head: [s.layer, s.kl, s.topStays, s.cosine],
      rows: r.layers.map((l) => [l.layer, g(l.kl), l.topSurvives ? s.yes : `${s.no} (${t(l.top)})`, f(4)(l.cosine)]),
    },
  }),
  wrongConvention: (r, s, t) => ({
    chart: {
      categories: [s.rightReading, s.wrongReading],
      series: [{ label: s.entropy, className: 'series-attn', values: [r.right.entropy, r.wrong.entropy] }],
    },
    table: {
      head: [s.readingColumn, s.entropy, s.topTokens],
      rows: [
        [s.rightReading, g(r.right.entropy), tops(r.right, t)],
        [s.wrongReading, g(r.wrong.entropy), tops(r.wrong, t)],
      ],
    },
  }),
  increments: (r, s) => ({
    chart: {
      categories: layerNames(r.layers.length),
      series: [
        { label: s.attention, className: 'series-attn', values: r.layers.map((l) => l.attn) },
        { label: s.mlp, className: 'series-mlp', values: r.layers.map((l) => l.mlp) },
      ],
    },
    table: {
      head: [s.layer, s.attention, s.mlp, s.streamLength, s.outputGains],
      rows: r.layers.map((l) => [
        l.layer,
        f(3)(l.attn),
        f(3)(l.mlp),
        f(3)(l.stream),
        l.attnGain == null ? '–' : `${f(3)(l.attnGain)}, ${f(3)(l.mlpGain)}`,
      ]),
    },
  }),
  epsMargin: (r, s) => ({
    chart: {
      categories: r.rows.map((x) => (x.layer == null ? s.finalShort : s.normBar(x.layer, s.normShort[x.slot]))),
      series: [{ label: s.log10Ratio, className: 'series-attn', values: r.rows.map((x) => Math.log10(x.ratio)) }],
    },
    table: {
      head: [s.layer, s.norm, s.minMeanSquare, s.ratioToEps],
      rows: r.rows.map((x) => [x.layer ?? '–', s.normNames[x.slot], g(x.minMeanSquare), g(x.ratio)]),
    },
  }),
  attentionScores: (r, s) => ({
    chart: {
      categories: layerNames(r.layers.length),
      series: [
        { label: s.maxScore, className: 'series-attn', values: r.layers.map((l) => Math.max(...l.maxPerHead)) },
        ...(r.layers[0]?.bound == null
          ? []
          : [{ label: s.bound, className: 'series-mlp', values: r.layers.map((l) => l.bound) }]),
      ],
    },
    table: {
      head: [s.layer, s.maxPerHead, s.bound],
      rows: r.layers.map((l) => [l.layer, l.maxPerHead.map(f(2)).join(', '), g(l.bound)]),
    },
  }),
  softcaps: (r, s) => ({
    chart: {
      categories: [...(r.attention ?? []).map((l) => String(l.layer)), ...(r.final ? [s.finalShort] : [])],
      series: [
        {
          label: s.maxBefore,
          className: 'series-attn',
          values: [...(r.attention ?? []).map((l) => l.maxBefore), ...(r.final ? [r.final.maxBefore] : [])],
        },
        {
          label: s.maxAfter,
          className: 'series-mlp',
          values: [...(r.attention ?? []).map((l) => l.maxAfter), ...(r.final ? [r.final.maxAfter] : [])],
        },
      ],
    },
    table: {
      head: [s.layer, s.maxBefore, s.maxAfter, s.bent],
      rows: [
        ...(r.attention ?? []).map((l) => [l.layer, f(2)(l.maxBefore), f(2)(l.maxAfter), `${l.bent} / ${l.count}`]),
        ...(r.final
          ? [[s.finalShort, f(2)(r.final.maxBefore), f(2)(r.final.maxAfter), `${r.final.bent} / ${r.final.count}`]]
          : []),
      ],
    },
  }),
  streamTop: (r, s) => ({
    chart: {
      categories: r.states.map((x) => String(x.state)),
      series: [{ label: s.topShare(r.k), className: 'series-attn', values: r.states.map((x) => x.share) }],
    },
    table: {
      head: [s.state, s.streamLength, s.topShare(r.k), s.coordinates],
      rows: r.states.map((x) => [
        x.state,
        f(3)(x.norm),
        f(3)(x.share),
        x.coords.map((c) => `${c.index}: ${formatTrimmed(c.value, 3)}`).join(', '),
      ]),
    },
  }),
  bf16Norm: (r, s) => ({
    chart: {
      categories: r.positions.map((p) => String(p.position)),
      series: [
        {
          label: s.meanSquareError,
          className: 'series-attn',
          values: r.positions.map((p) => Math.abs(p.meanSquareError)),
        },
        { label: s.outputError, className: 'series-mlp', values: r.positions.map((p) => p.outputError) },
      ],
    },
    table: {
      head: [s.positionShort, s.meanSquare, s.meanSquareBf16, s.meanSquareError, s.outputError],
      rows: r.positions.map((p) => [
        p.position,
        g(p.meanSquare),
        g(p.meanSquareBf16),
        g(p.meanSquareError),
        g(p.outputError),
      ]),
    },
  }),
};

const tops = (d, t) => d.ids.map((id, i) => `${t(id)} ${formatFixed(d.probs[i], 2)}`).join(', ');

/**
 * The experiment section, choosing among `choices` (the state row's):
 * { root, select, choose(name), running(), show(name, result, tokenName), failed() }. `barTitle`: the bars' hover
 * text (common.barTitle). `gradientsLink`: a link to the chapter's gradient section (LabElement.sectionLink),
 * where the gradients of the same models are measured, or null.
 */
export function experimentsView(s, { choices, value, onChoose, barTitle, gradientsLink = null }) {
  const select = h(
    'select',
    { id: 'field-experiment', name: 'experiment', onchange: () => onChoose(select.value) },
    choices.map((name) => h('option', { value: name, selected: name === value }, s.experiments[name].name)),
  );
  const claim = h('blockquote', { class: 'experiment-claim', 'data-experiment-claim': '' });
  const answer = h('p', { class: 'experiment-answer', 'aria-live': 'polite', 'data-experiment-answer': '' });
  const ranNote = h('p', { class: 'experiment-ran', 'data-experiment-ran': '' });
  const chart = barChart({ label: s.experimentChart, barTitle });
  const legend = h('figcaption', { class: 'legend', 'data-experiment-legend': '' });
  const figure = h('figure', { class: 'experiment-figure', hidden: true }, legend, chart.root);
  const body = h('tbody');
  const head = h('thead');
  const table = h(
    'div',
    { class: 'table-scroll', hidden: true },
    h('table', { class: 'experiment-table' }, head, body),
  );
  const section = h('div', { class: 'experiment-result' }, claim, answer, ranNote, figure, table);
  const root = h(
    'section',
    { class: 'experiment', 'data-experiment': value },
    h('h4', {}, s.experimentTitle),
    h('div', { class: 'field' }, h('label', { for: 'field-experiment' }, s.experiment), select),
    gradientsLink && h('p', { class: 'hint', 'data-gradients-link': '' }, s.gradientsElsewhere, ' ', gradientsLink),
    section,
  );
  const choose = (name) => {
    select.value = name;
    root.dataset.experiment = name;
    claim.textContent = s.experiments[name].claim;
    claim.hidden = name === 'none';
    section.hidden = name === 'none';
  };
  choose(value);
  return {
    root,
    select,
    choose,
    running() {
      answer.textContent = s.experimentRunning;
      ranNote.textContent = '';
    },
    /** Says the answer above is a run's that has just ended (`text`), and draws the eye to it. */
    ran(text) {
      ranNote.textContent = text;
      root.classList.remove('just-ran');
      void root.offsetWidth; // the highlight starts again
      root.classList.add('just-ran');
    },
    /**
     * Scrolls to the section and keeps it in view while the page above it changes, until `until` (the run a link
     * started) has ended and a little after; the keyboard goes on from its heading.
     */
    reveal(until) {
      const title = root.querySelector('h4');
      title.tabIndex = -1;
      title.focus({ preventScroll: true });
      keepInView(root, { until });
    },
    /** Draws `result` of experiment `name`; tokenName(id) -> its text. */
    show(name, result, tokenName) {
      choose(name);
      const e = s.experiments[name];
      if (result.unsupported) {
        answer.textContent = e.unsupported ?? s.cannotRun(result.unsupported);
        answer.dataset.unsupported = '';
        figure.hidden = table.hidden = true;
        return;
      }
      delete answer.dataset.unsupported;
      const t = (id) => shownToken(tokenName(id));
      answer.textContent = e.answer(result, t);
      const shown = PRESENT[name](result, s, t);
      legend.replaceChildren(...shown.chart.series.map((x) => legendEntry(x.className, x.label)));
      const values = shown.chart.series.flatMap((x) => x.values).filter(Number.isFinite);
      chart.draw({
        ...shown.chart,
        axes: s.axes[name],
        limit: niceLimit(Math.max(...values.map(Math.abs), 1e-12)),
        format: (v) => formatTrimmed(v, 2),
      });
      head.replaceChildren(
        h(
          'tr',
          {},
          shown.table.head.map((c) => h('th', { scope: 'col' }, c)),
        ),
      );
      body.replaceChildren(
        ...shown.table.rows.map(([first, ...rest]) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, String(first)),
            rest.map((c) => h('td', {}, String(c))),
          ),
        ),
      );
      figure.hidden = table.hidden = false;
    },
  };
}
