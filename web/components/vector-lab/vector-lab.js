// <rl-vector-lab>: RMSNorm and LayerNorm of a vector the reader edits, side by side as numbers and bars, with
// the chapter's hand calculation to step through and a slider that scales x (RMSNorm's output stays put). On
// request DyT, gamma * tanh(alpha x) + beta, joins them, and a sentence under the slider compares each output
// with its value at x1 (DyT's moves). Every number comes from the WASM kernels (lab.rmsNormSteps,
// lab.layerNormSteps, lab.dynamicTanhSteps); the work is a few microseconds, so it runs on the main thread.
import { barChart, legendEntry, niceLimit } from '../shared/bar-chart.js';
import { h } from '../shared/dom.js';
import { rangeField, textField } from '../shared/fields.js';
import {
  formatCount,
  formatFactor,
  formatFixed,
  formatTrimmed,
  formatVector,
  formatVectorSummary,
} from '../shared/format.js';
import { describeError, widgetError } from '../shared/i18n.js';
import { asciiNumberText, parseNumber } from '../shared/parse-number.js';
import { LabElement } from '../shared/lab-element.js';
import { dytControls, scaleComparison } from './dyt.js';
import { STEPS, createStepper, stepValues } from './stepper.js';

const MAX_TEXT = 200_000; // a link carries a long vector compressed (state.js)
// A vector longer than this is shown by its first and last three values and its length; the results table's CSV
// keeps it whole.
const SHOWN_IN_FULL = 16;
// A float32 sum of n values of size up to m is exact to within about n * 2^-24 * m: a measured mean of x̂ that
// small is rounding, and x̂'s mean is shown as the 0 it is. (A loop, not Math.max(...values): a vector may hold
// more values than a call takes arguments.)
const roundoffOfSum = (values) =>
  values.length * 2 ** -24 * Array.prototype.reduce.call(values, (max, v) => Math.max(max, Math.abs(v)), 0);
const vectorRow = (name, fallback, optional) => ({
  name,
  type: 'text',
  default: fallback,
  maxLength: MAX_TEXT,
  validate: (text, { parseVector }) => (optional && text.trim() === '' ? null : parseVector(text)),
});

const STATE = [
  vectorRow('x', '2, -1, 3, 0', false),
  vectorRow('g', '', true),
  vectorRow('gamma', '', true),
  vectorRow('beta', '', true),
  { name: 'eps', option: 'kernels.rmsNorm.eps', max: 1 },
  { name: 'scale', type: 'number', default: 1, min: 0.1, max: 100 },
  { name: 'step', type: 'integer', default: 0, min: 0, max: STEPS.length },
  { name: 'dyt', type: 'boolean', default: false },
  { name: 'alpha', option: 'kernels.dynamicTanh.alpha', min: -10, max: 10 },
];

// The slider moves log10(scale) in tenths, so x1 and x10 and x100 are exact positions.
const toSlider = (scale) => Math.log10(scale);
const fromSlider = (position) => Number((10 ** position).toPrecision(3));

export class RlVectorLab extends LabElement {
  static tag = 'rl-vector-lab';
  static stateRows = STATE;
  static styles = [new URL('./vector-lab.css', import.meta.url)];

  build() {
    const s = this.strings;
    // The fields are the source of truth while typing: update() parses them all and commits them to the
    // state (and the URL) only when every one is valid.
    const field = (name, label, hint, placeholder) =>
      textField({
        name,
        label,
        hint,
        placeholder,
        value: String(this.state[name]),
        onInput: () => this.update(),
      });
    this.fields = {
      x: field('x', s.x, s.xHint),
      g: field('g', s.g, s.weightHint, '1, 1, 1, 1'),
      gamma: field('gamma', s.gamma, s.weightHint, '1, 1, 1, 1'),
      beta: field('beta', s.beta, s.betaHint, '0, 0, 0, 0'),
      eps: field('eps', s.eps, null),
    };
    this.scale = rangeField({
      name: 'scale',
      label: s.scale,
      min: -1,
      max: 2,
      step: 0.1,
      value: toSlider(this.state.scale),
      valueText: (position) => formatFactor(fromSlider(position)),
      onInput: (position) => this.setState({ scale: fromSlider(position) }),
    });
    this.lengthNote = h('p', { class: 'length-note', 'aria-live': 'polite' });
    this.scaleNote = h('p', {
      class: 'side-note scale-note',
      id: 'scale-note',
      'aria-live': 'polite',
      hidden: !this.state.dyt,
    });
    this.dyt = dytControls({
      range: this.bounds('alpha'),
      strings: s,
      shown: this.state.dyt,
      alpha: this.state.alpha,
      onInput: () => this.update(),
      onToggle: (shown) => this.setState({ dyt: shown }),
    });

    this.outputs = {};
    const resultRow = (key, label) => {
      this.outputs[key] = h('output', { class: 'vector', 'aria-labelledby': `row-${key}` });
      return h('tr', {}, h('th', { scope: 'row', id: `row-${key}` }, label), h('td', {}, this.outputs[key]));
    };
    const invariantRow = (key, label) => {
      this.outputs[key] = h('output', { class: 'scalar', 'aria-labelledby': `inv-${key}` });
      return h('li', {}, h('span', { id: `inv-${key}` }, label), ' = ', this.outputs[key]);
    };
    this.inputChart = barChart({ label: s.chartInput, barTitle: this.common.barTitle });
    this.outputChart = barChart({ label: s.chartOutputs, barTitle: this.common.barTitle });
    this.stepper = createStepper({ strings: s, onStep: (step) => this.setState({ step }) });

    this.body.append(
      h(
        'header',
        { class: 'widget-header' },
        h('h3', {}, s.title),
        h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('worked-example', s.sectionLink)),
      ),
      h(
        'div',
        { class: 'inputs' },
        Object.values(this.fields).map((f) => f.root),
        this.dyt.root,
        h('div', { class: 'scale-box' }, this.scale.root, this.lengthNote),
      ),
      this.resultsRegion(
        this.scaleNote,
        h('h4', {}, s.results),
        h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'results' },
            h(
              'tbody',
              {},
              resultRow('input', s.rowInput),
              resultRow('rms', s.rowRms),
              resultRow('ln', s.rowLn),
              (this.dytRow = resultRow('dyt', s.rowDyt)),
            ),
          ),
        ),
        h('p', { class: 'invariants-title' }, s.invariants),
        h(
          'ul',
          { class: 'invariants' },
          invariantRow('rmsRms', s.rmsInvariant),
          invariantRow('lnMean', s.lnMeanInvariant),
          invariantRow('lnVariance', s.lnVarianceInvariant),
        ),
        this.layOutLater(
          h(
            'div',
            { class: 'charts' },
            h('figure', {}, h('figcaption', {}, s.inputTitle), this.inputChart.root),
            h('figure', {}, h('figcaption', {}, s.outputsTitle, (this.legend = legend(s))), this.outputChart.root),
          ),
        ),
        this.stepper.root,
      ),
    );
    for (const column of this.stepper.columns) this.layOutLater(column); // after the charts, as on the page
  }

  /** Parses the fields; each bad one shows its message, and null leaves the last good result on screen. */
  readInputs() {
    const { lab, fields } = this;
    const text = (name) => fields[name].input.value;
    const x = this.attempt(fields.x, () => lab.parseVector(text('x')), text('x'));
    if (x) this.showPlaceholders(x.length);
    const weight = (name) =>
      this.attempt(
        fields[name],
        () => {
          if (text(name).trim() === '') return null;
          const values = lab.parseVector(text(name));
          if (x && values.length !== x.length) throw widgetError('size_mismatch');
          return values;
        },
        text(name),
      );
    const g = weight('g');
    const gamma = weight('gamma');
    const beta = weight('beta');
    const eps = this.attempt(fields.eps, () => parseEps(text('eps'), this.bounds('eps')), text('eps'));
    // alpha is read only while DyT is shown: a hidden field cannot hold the other results back.
    const alphaField = this.dyt.alphaField;
    const alpha = this.state.dyt
      ? this.attempt(alphaField, () => this.dyt.readAlpha(), alphaField.input.value)
      : this.state.alpha;
    if (!this.state.dyt) this.markStale(false, alphaField);
    if ([x, g, gamma, beta, eps, alpha].includes(undefined)) return null;
    this.commit({ x: text('x'), g: text('g'), gamma: text('gamma'), beta: text('beta'), eps, alpha });
    return { x: x.map((v) => v * this.state.scale), unscaled: x, g, gamma, beta, eps, alpha };
  }

  update() {
    const inputs = this.readInputs();
    const showDyt = this.state.dyt;
    this.showDytParts(showDyt);
    if (!inputs) {
      this.stepper.show(this.state.step, this.lastStepValues ?? {}, showDyt && Boolean(this.lastStepValues?.dytOutput));
      return;
    }
    const { lab, strings: s } = this;
    const { x, g, gamma, beta, eps, alpha } = inputs;
    // Each method on its own: one that refuses these inputs shows the API's reason in its row, the others their
    // results (RMSNorm divides by the RMS, LayerNorm by the spread about the mean: they fail on different vectors).
    const refused = {};
    const partial = {}; // a refusal of the division alone: the steps before it (error.partial)
    const method = (key, compute) => {
      try {
        return compute();
      } catch (error) {
        refused[key] = describeError(error, this.language);
        partial[key] = error.partial ?? {};
        return null;
      }
    };
    const rms = method('rms', () => lab.rmsNormSteps(x, g, { eps }));
    const ln = method('ln', () => lab.layerNormSteps(x, gamma, beta, { eps }));
    const dyt = showDyt ? method('dyt', () => lab.dynamicTanhSteps(x, gamma, beta, { alpha })) : null;
    // The invariants are measured by the kernels too: the mean square of x̂, and the mean and variance of x̂
    // (an all-zero x̂ has none to measure: eps 0 is then rejected, and the cells show a dash).
    const measure = (compute) => {
      try {
        return compute();
      } catch {
        return null;
      }
    };
    const rmsCheck = rms && measure(() => lab.rmsNormSteps(rms.normalized, null, { eps: 0 }));
    const lnCheck = ln && measure(() => lab.layerNormSteps(ln.normalized, null, null, { eps: 0 }));

    const row = (key, result) =>
      this.outputs[key].replaceChildren(
        result ? this.shownVector(result.output) : h('span', { class: 'refused' }, s.refused(refused[key])),
      );
    this.outputs.input.replaceChildren(this.shownVector(x));
    row('rms', rms);
    row('ln', ln);
    this.outputs.rmsRms.textContent = rmsCheck ? formatFixed(Math.sqrt(rmsCheck.meanSquare)) : '–';
    this.outputs.lnMean.textContent = lnCheck
      ? formatFixed(Math.abs(lnCheck.mean) <= roundoffOfSum(ln.normalized) ? 0 : lnCheck.mean)
      : '–';
    this.outputs.lnVariance.textContent = lnCheck ? formatFixed(lnCheck.variance) : '–';
    // ‖x‖ and RMS = ‖x‖ / sqrt(d) of the vector on screen, in float64: they exist where float32's sum overflows.
    const length = euclideanLength(x);
    this.lengthNote.textContent = s.lengthNote(
      formatTrimmed(length, 2),
      formatTrimmed(length / Math.sqrt(x.length), 2),
    );
    if (showDyt) row('dyt', dyt);
    this.scaleNote.textContent =
      dyt && rms && ln
        ? (this.attempt(this.fields.x, () =>
            this.compareWithScaleOne(inputs, { rms: rms.output, ln: ln.output, dyt: dyt.output }, dyt.tanh),
          ) ?? '')
        : '';
    this.drawCharts(x, rms?.output, ln?.output, dyt?.output);

    this.lastStepValues = stepValues(
      { rms: rms ?? partial.rms, ln: ln ?? partial.ln, dyt: showDyt ? (dyt ?? {}) : null },
      (values) => this.vectorText(values),
    );
    this.stepper.show(this.state.step, this.lastStepValues, showDyt);
  }

  /** The weights' placeholders say what an empty field means for a vector of x's length. */
  showPlaceholders(d) {
    const shown = (value) => (d <= SHOWN_IN_FULL ? Array(d).fill(value).join(', ') : `${value}, ${value}, …, ${value}`);
    this.fields.g.input.placeholder = shown(1);
    this.fields.gamma.input.placeholder = shown(1);
    this.fields.beta.input.placeholder = shown(0);
  }

  /** A vector as shown: in full as the reader types one, or a long one by its ends and its length. */
  vectorText(values) {
    if (values.length <= SHOWN_IN_FULL) return formatVector(values);
    return `${formatVectorSummary(values, 3)} ${this.strings.valueCount(formatCount(values.length))}`;
  }

  /** The vector's text in a <data> element whose value is the whole vector (what the table's CSV saves). */
  shownVector(values) {
    return h('data', { value: `[${Array.from(values, String).join(', ')}]` }, this.vectorText(values));
  }

  /** DyT's row, series legend, alpha field and slider sentence are there only while DyT is shown. */
  showDytParts(shown) {
    this.dytRow.hidden = !shown;
    this.legend.querySelector('.legend-dyt').hidden = !shown;
    this.scaleNote.hidden = !shown;
    this.dyt.setShown(shown);
  }

  /** The sentence under the slider: the three outputs at x1 come from the same kernels, on the unscaled x. */
  compareWithScaleOne({ unscaled, g, gamma, beta, eps, alpha }, now, tanh) {
    const { lab } = this;
    const atOne =
      this.state.scale === 1
        ? now
        : {
            rms: lab.rmsNorm(unscaled, g, { eps }),
            ln: lab.layerNorm(unscaled, gamma, beta, { eps }),
            dyt: lab.dynamicTanh(unscaled, gamma, beta, { alpha }),
          };
    return scaleComparison({ strings: this.strings, scale: this.state.scale, now, atOne, tanh, x: unscaled });
  }

  drawCharts(x, rmsOut, lnOut, dytOut) {
    const s = this.strings;
    const categories = Array.from(x, (_, i) => s.dimension(i + 1));
    const maxAbs = (values) => Math.max(...Array.from(values, Math.abs));
    this.inputChart.draw({
      categories,
      limit: niceLimit(maxAbs(x)),
      format: (v) => formatTrimmed(v, 2),
      series: [{ label: s.rowInput, className: 'series-input', values: x }],
    });
    const series = [
      { label: s.rowRms, className: 'series-rms', values: rmsOut },
      { label: s.rowLn, className: 'series-ln', values: lnOut },
      { label: s.rowDyt, className: 'series-dyt', values: dytOut },
    ].filter((one) => one.values);
    // the legend names only the curves drawn (a refused method has none)
    for (const [key, values] of Object.entries({ rms: rmsOut, ln: lnOut, dyt: dytOut }))
      this.legend.querySelector(`.legend-${key}`).hidden = !values;
    this.outputChart.draw({
      categories,
      limit: Math.max(2, niceLimit(Math.max(0, ...series.map((one) => maxAbs(one.values))))),
      format: (v) => formatTrimmed(v, 2),
      series,
    });
  }
}

function parseEps(text, bounds) {
  const ascii = asciiNumberText(text);
  if (ascii.startsWith('-') && ascii.length > 1) throw widgetError('negative_eps');
  const eps = parseNumber(text, bounds);
  // The kernels take eps as a float32: 0, or a normal float32 (a smaller one would become 0 or a subnormal).
  if (eps !== 0 && eps < 2 ** -126) throw widgetError('tiny_eps');
  return eps;
}

/** sqrt(sum x_i^2) in float64, scaled by the largest |x_i| so that no square overflows. */
function euclideanLength(x) {
  let largest = 0;
  for (const v of x) largest = Math.max(largest, Math.abs(v));
  if (largest === 0) return 0;
  let sum = 0;
  for (const v of x) sum += (v / largest) ** 2;
  return largest * Math.sqrt(sum);
}

function legend(s) {
  return h(
    'span',
    { class: 'legend' },
    h('span', { class: 'legend-rms' }, legendEntry('series-rms', s.rowRms)),
    h('span', { class: 'legend-ln' }, legendEntry('series-ln', s.rowLn)),
    h('span', { class: 'legend-dyt' }, legendEntry('series-dyt', s.rowDyt)),
  );
}
