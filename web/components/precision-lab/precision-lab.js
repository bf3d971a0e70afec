// <rl-precision-lab>: one RMSNorm of a d-dimensional vector (random or typed, d up to 8192) with float32 and
// with bfloat16 accumulation (lab.rmsNorm precision 'fp32' / 'bf16'), each against the exact float64 result,
// and the error of both as d grows. Compute lives in precision-lab/compute.js (worker-ready, DOM-free).
import { h } from '../shared/dom.js';
import { radioGroup, rangeField, seedControl, textField } from '../shared/fields.js';
import { formatScientific, formatTrimmed, powerOfTen } from '../shared/format.js';
import { widgetError } from '../shared/i18n.js';
import { LabElement } from '../shared/lab-element.js';
import { axis, lineChart } from '../shared/line-chart.js';
import { uplotCssUrl } from '../shared/styles.js';
import { EPS, FLOAT32_MAX, MAX_D, SWEEP_DIMS, compare, seededPrefix, sweep } from './compute.js';

const MAX_SEED = 2 ** 31 - 1;
const STATE = [
  { name: 'source', type: 'choice', choices: ['random', 'typed'], default: 'random' },
  { name: 'd', type: 'integer', default: 4096, min: 1, max: MAX_D },
  { name: 'seed', type: 'integer', default: 1, min: 0, max: MAX_SEED },
  { name: 'typed', type: 'text', default: '', maxLength: 200000, urlLimit: 2000 },
];

// The d slider moves log2(d) in quarters: 4, 5, 6, 7, 8, ... 4096, 4871, 5793, 6889, 8192.
const toSlider = (d) => Math.log2(d);
const fromSlider = (position) => Math.round(2 ** position);
const scientific = (value) => formatScientific(value).text;
const readout = (u, v) => (v == null ? '–' : scientific(v));
// An RMS as a decimal while it reads well, in powers of ten beyond (a typed 1e20 has an RMS near 7 × 10¹⁹).
const rmsText = (rms) => (rms === null ? '–' : rms >= 1e5 ? scientific(rms) : formatTrimmed(rms, 4));

/** Log-axis ticks at powers of ten only (uPlot's default also marks 2..9 times each), at most ~6 of them. */
function powersOfTen(u, axisIndex, min, max) {
  const low = Math.floor(Math.log10(min));
  const high = Math.ceil(Math.log10(max));
  const step = Math.max(1, Math.ceil((high - low) / 6));
  const ticks = [];
  for (let e = low; e <= high; e += step) ticks.push(10 ** e);
  return ticks;
}
const powerLabel = (v) => (v == null ? '' : powerOfTen(Math.round(Math.log10(v))));

export class RlPrecisionLab extends LabElement {
  static tag = 'rl-precision-lab';
  static stateRows = STATE;
  static styles = [new URL('./precision-lab.css', import.meta.url), uplotCssUrl()];
  static charts = true; // line charts: their colours are read before the build (LabElement)

  build() {
    const s = this.strings;
    const source = radioGroup({
      name: 'source',
      legend: s.source,
      value: this.state.source,
      options: [
        { value: 'random', label: s.random },
        { value: 'typed', label: s.typed },
      ],
      onChange: (value) => this.setState({ source: value }),
    });
    this.dSlider = rangeField({
      name: 'd',
      label: s.d,
      min: 2,
      max: 13,
      step: 0.25,
      value: toSlider(this.state.d),
      valueText: (position) => s.dValue(fromSlider(position)),
      onInput: (position) => this.setState({ d: fromSlider(position) }),
    });
    this.typedField = textField({
      name: 'typed',
      label: s.typedLabel,
      hint: s.typedHint,
      multiline: true,
      value: this.state.typed,
      onInput: () => this.update(),
    });
    this.randomControls = h(
      'div',
      { class: 'inputs' },
      this.dSlider.root,
      seedControl(this, {
        label: s.seed,
        anotherLabel: s.reroll,
        max: MAX_SEED,
        onChange: (seed) => this.setState({ seed }),
      }),
    );

    this.resultsTitle = h('h4', { id: 'results-title' });
    this.cells = {};
    const cell = (key) => (this.cells[key] = h('td', { class: 'number', id: key }));
    const row = (key, label) =>
      h(
        'tr',
        { class: `row-${key}` },
        h('th', { scope: 'row' }, h('span', { class: `swatch series-${key}` }), label),
        cell(`rms-${key}`),
        cell(`error-${key}`),
      );
    this.verdict = h('p', { class: 'verdict', 'aria-live': 'polite' });
    this.explain = h('p', { class: 'hint explain', 'aria-live': 'polite', hidden: true });
    this.chart = lineChart({
      host: this,
      label: s.chartLabel,
      height: 240,
      build: (color) => this.chartOptions(color),
    });

    this.body.append(
      h(
        'header',
        { class: 'widget-header' },
        h('h3', {}, s.title),
        h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('precision-and-gemma', s.sectionLink)),
      ),
      source.root,
      this.randomControls,
      this.typedField.root,
      this.resultsRegion(
        this.resultsTitle,
        h(
          'div',
          { class: 'table-scroll' },
          (this.table = h(
            'table',
            { class: 'precision', 'aria-labelledby': 'results-title' },
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'col' }, s.method),
                h('th', { scope: 'col', class: 'number' }, s.rmsColumn),
                h('th', { scope: 'col', class: 'number' }, s.errorColumn),
              ),
            ),
            h('tbody', {}, row('exact', s.exact), row('fp32', s.fp32), row('bf16', s.bf16)),
          )),
        ),
        this.verdict,
        this.explain,
        h('p', { class: 'hint why' }, s.why),
        h('p', { class: 'hint models' }, s.models),
        h('figure', {}, h('figcaption', {}, s.chartTitle), this.chart.root),
      ),
    );
  }

  /** The vector to measure, or undefined (with the message shown) when the typed one is unusable. */
  currentVector() {
    const { state, lab } = this;
    if (state.source === 'random') {
      this.markStale(false, this.typedField); // the hidden field's text does not hold a random vector back
      return seededPrefix(state.d, state.seed);
    }
    const text = this.typedField.input.value;
    if (text.trim() === '') {
      // nothing typed yet is no mistake: no message, and the sentence under the table says what is shown
      this.clearError(this.typedField);
      return null;
    }
    const x = this.attempt(
      this.typedField,
      () => {
        const values = lab.parseVector(text);
        if (values.length > MAX_D) throw widgetError('too_many_numbers');
        return values;
      },
      text,
    );
    if (x) this.commit({ typed: text });
    return x;
  }

  update() {
    const { state, strings: s } = this;
    const typed = state.source === 'typed';
    this.randomControls.hidden = typed;
    this.typedField.root.hidden = !typed;
    const x = this.currentVector();
    if (x === null) {
      // Opened on "typed in" (a link) nothing has been measured: no table of blanks, and the random vectors'
      // curves, which need no typed vector, are drawn all the same.
      const measured = this.chartResult !== undefined;
      this.verdict.textContent = measured ? s.typedEmpty : s.typedNone;
      this.explain.hidden = true;
      this.resultsTitle.hidden = this.table.hidden = !measured;
      if (!measured) this.inLaterFrame(() => this.drawChart(null));
    }
    if (!x) return; // the last good result stays (marked stale after a mistake)
    // A typed vector may be anything parseVector accepts (1e20, all zeros): a kernel that refuses it shows its
    // message under the field instead of throwing out of the input event.
    const result = this.attempt(
      typed ? this.typedField : null,
      () => compare(this.lab, x),
      this.typedField.input.value,
    );
    if (!result) return;
    this.resultsTitle.hidden = this.table.hidden = false;
    this.resultsTitle.textContent = s.resultsTitle(result.d);
    this.setCell('rms-exact', rmsText(result.exactRms));
    this.setCell('error-exact', result.zero ? '–' : '0');
    for (const key of ['fp32', 'bf16']) {
      const { rms = null, error = null } = result[key] ?? {};
      this.setCell(`rms-${key}`, result.overflow ? s.overflowCell : rmsText(rms));
      const shown = error === null ? { text: '–', value: '' } : formatScientific(error);
      this.cells[`error-${key}`].replaceChildren(h('data', { value: shown.value }, shown.text));
    }
    const [verdict, explain = ''] = this.verdictText(result);
    this.verdict.textContent = verdict;
    this.explain.textContent = explain;
    this.explain.hidden = !explain;
    this.chartResult = result;
    this.inLaterFrame(() => this.drawChart(this.chartResult)); // the sweep: 8,192 values through both kernels
  }

  /** The sentence under the table (how the errors compare, or why there is nothing to compare) and its detail. */
  verdictText({ zero, overflow, sumSquares, fp32, bf16 }) {
    const s = this.strings;
    if (zero) return [s.zeroVerdict, s.zeroVector(formatTrimmed(Math.sqrt(EPS), 4))];
    if (overflow) return [s.overflowVerdict(scientific(sumSquares)), s.overflow(scientific(FLOAT32_MAX))];
    if (bf16.error === fp32.error) return [s.verdictEqual];
    if (fp32.error === 0) return [s.verdictFp32Exact(scientific(bf16.error))];
    const ratio = bf16.error / fp32.error;
    return [s.verdict(ratio >= 1000 ? formatScientific(ratio, 2).text : formatTrimmed(ratio, 1))];
  }

  setCell(key, text) {
    this.cells[key].textContent = text;
  }

  /** The sweep's curves, and the measured vector's errors at its d (none while `result` is null). */
  drawChart(result) {
    if (this.sweepSeed !== this.state.seed) {
      this.sweepResult = sweep(this.lab, this.state.seed);
      this.sweepSeed = this.state.seed;
    }
    const { dims, fp32, bf16 } = this.sweepResult;
    const xs = [...new Set([...dims, ...(result ? [result.d] : [])])].sort((a, b) => a - b);
    const at = (values) =>
      xs.map((d) => {
        const i = dims.indexOf(d);
        return i < 0 || !(values[i] > 0) ? null : values[i];
      });
    const mark = (error) => xs.map((d) => (d === result?.d && Number.isFinite(error) && error > 0 ? error : null));
    this.chart.setData([xs, at(fp32), at(bf16), mark(result?.fp32?.error), mark(result?.bf16?.error)]);
  }

  chartOptions(color) {
    const s = this.strings;
    const line = (label, name, dash) => ({
      label,
      stroke: color(name),
      width: 2.5,
      dash,
      spanGaps: true,
      value: readout,
      points: { show: true, size: 5 },
    });
    const marker = (label, name) => ({
      label: s.marker(label),
      stroke: color('fg'),
      fill: color(name),
      width: 0,
      paths: () => null,
      value: readout,
      points: { show: true, size: 12, width: 2, stroke: color('fg'), fill: color(name) },
    });
    return {
      scales: { x: { time: false, distr: 3, log: 2, range: [SWEEP_DIMS[0], MAX_D] }, y: { distr: 3, log: 10 } },
      axes: [
        axis(color, { label: 'd' }),
        axis(color, { size: 56, splits: powersOfTen, values: (u, splits) => splits.map(powerLabel) }),
      ],
      series: [
        { label: 'd', value: (u, v) => (v == null ? '–' : String(v)) },
        line(s.fp32, 'blue', undefined),
        line(s.bf16, 'vermillion', [8, 5]),
        marker(s.fp32, 'blue'),
        marker(s.bf16, 'vermillion'),
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
  }
}
