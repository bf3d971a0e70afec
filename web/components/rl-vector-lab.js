// <rl-vector-lab>: RMSNorm and LayerNorm of a vector the reader edits, side by side as numbers and bars, with
// the chapter's hand calculation to step through and a slider that scales x (RMSNorm's output stays put).
// Every number comes from the WASM kernels (lab.rmsNormSteps / lab.layerNormSteps); the work is a few
// microseconds, so it runs on the main thread.
import { barChart, niceLimit } from './shared/bar-chart.js';
import { h } from './shared/dom.js';
import { rangeField, textField } from './shared/fields.js';
import { formatFactor, formatFixed, formatTrimmed, formatVector } from './shared/format.js';
import { widgetError } from './shared/i18n.js';
import { parseNumber } from './shared/parse-number.js';
import { LabElement } from './shared/lab-element.js';
import { defineState } from './shared/state.js';
import { VECTOR_LAB_STRINGS } from './strings/rl-vector-lab.js';
import { STEPS, createStepper } from './vector-lab/stepper.js';

const MAX_TEXT = 2000;
const vectorRow = (name, fallback, optional) => ({
  name, type: 'text', default: fallback, maxLength: MAX_TEXT,
  validate: (text, { parseVector }) => (optional && text.trim() === '' ? null : parseVector(text)),
});

const STATE = defineState([
  vectorRow('x', '2, -1, 3, 0', false),
  vectorRow('g', '', true),
  vectorRow('gamma', '', true),
  vectorRow('beta', '', true),
  { name: 'eps', type: 'number', default: 1e-5, min: 0, max: 1 },
  { name: 'scale', type: 'number', default: 1, min: 0.1, max: 100 },
  { name: 'step', type: 'integer', default: 0, min: 0, max: STEPS.length },
]);

// The slider moves log10(scale) in tenths, so x1 and x10 and x100 are exact positions.
const toSlider = (scale) => Math.log10(scale);
const fromSlider = (position) => Number((10 ** position).toPrecision(3));

export class RlVectorLab extends LabElement {
  static tag = 'rl-vector-lab';
  static stateKey = 'vec';
  static stateTable = STATE;
  static strings = VECTOR_LAB_STRINGS;
  static styles = ['vector-lab.css'];

  build() {
    const s = this.strings;
    // The fields are the source of truth while typing: update() parses them all and commits them to the
    // state (and the URL) only when every one is valid.
    const field = (name, label, hint, placeholder) => textField({
      name, label, hint, placeholder, value: String(this.state[name]), onInput: () => this.update(),
    });
    this.fields = {
      x: field('x', s.x, s.xHint),
      g: field('g', s.g, s.weightHint, '1, 1, 1, 1'),
      gamma: field('gamma', s.gamma, s.weightHint, '1, 1, 1, 1'),
      beta: field('beta', s.beta, s.betaHint, '0, 0, 0, 0'),
      eps: field('eps', s.eps, null),
    };
    this.scale = rangeField({
      name: 'scale', label: s.scale, min: -1, max: 2, step: 0.1, value: toSlider(this.state.scale),
      valueText: (position) => formatFactor(fromSlider(position)),
      onInput: (position) => this.setState({ scale: fromSlider(position) }),
    });
    this.lengthNote = h('p', { class: 'length-note', 'aria-live': 'polite' });

    this.outputs = {};
    const resultRow = (key, label) => {
      this.outputs[key] = h('output', { class: 'vector', 'aria-labelledby': `row-${key}` });
      return h('tr', {}, h('th', { scope: 'row', id: `row-${key}` }, label), h('td', {}, this.outputs[key]));
    };
    const invariantRow = (key, label) => {
      this.outputs[key] = h('output', { class: 'scalar', 'aria-labelledby': `inv-${key}` });
      return h('li', {}, h('span', { id: `inv-${key}` }, label), ' = ', this.outputs[key]);
    };
    this.inputChart = barChart({ label: s.chartInput });
    this.outputChart = barChart({ label: s.chartOutputs });
    this.stepper = createStepper({ strings: s, onStep: (step) => this.setState({ step }) });

    this.body.append(
      h('header', { class: 'widget-header' }, h('h3', {}, s.title), h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('worked-example', s.sectionLink))),
      h('div', { class: 'inputs' }, Object.values(this.fields).map((f) => f.root), h('div', { class: 'scale-box' }, this.scale.root, this.lengthNote)),
      h('h4', {}, s.results),
      h('div', { class: 'table-scroll' }, h('table', { class: 'results' }, h('tbody', {},
        resultRow('input', s.rowInput), resultRow('rms', s.rowRms), resultRow('ln', s.rowLn)))),
      h('p', { class: 'invariants-title' }, s.invariants),
      h('ul', { class: 'invariants' }, invariantRow('rmsRms', s.rmsInvariant), invariantRow('lnMean', s.lnMeanInvariant), invariantRow('lnVariance', s.lnVarianceInvariant)),
      h('div', { class: 'charts' },
        h('figure', {}, h('figcaption', {}, s.inputTitle), this.inputChart.root),
        h('figure', {}, h('figcaption', {}, s.outputsTitle, legend(s)), this.outputChart.root)),
      this.stepper.root,
    );
  }

  /** Parses the fields; each bad one shows its message, and null leaves the last good result on screen. */
  readInputs() {
    const { lab, fields } = this;
    const text = (name) => fields[name].input.value;
    const x = this.attempt(fields.x, () => lab.parseVector(text('x')), text('x'));
    const weight = (name) => this.attempt(fields[name], () => {
      if (text(name).trim() === '') return null;
      const values = lab.parseVector(text(name));
      if (x && values.length !== x.length) throw widgetError('size_mismatch');
      return values;
    }, text(name));
    const g = weight('g');
    const gamma = weight('gamma');
    const beta = weight('beta');
    const eps = this.attempt(fields.eps, () => parseEps(text('eps')), text('eps'));
    if ([x, g, gamma, beta, eps].includes(undefined)) return null;
    this.commit({ x: text('x'), g: text('g'), gamma: text('gamma'), beta: text('beta'), eps });
    return { x: x.map((v) => v * this.state.scale), g, gamma, beta, eps };
  }

  update() {
    const inputs = this.readInputs();
    if (!inputs) { this.stepper.show(this.state.step, this.lastStepValues ?? {}); return; }
    const { lab } = this;
    const { x, g, gamma, beta, eps } = inputs;
    const rms = this.attempt(this.fields.x, () => lab.rmsNormSteps(x, g, { eps }));
    const ln = rms && this.attempt(this.fields.x, () => lab.layerNormSteps(x, gamma, beta, { eps }));
    if (!rms || !ln) return;
    // The invariants are measured by the kernels too: the mean square of x̂, and the mean and variance of x̂
    // (an all-zero x̂ has none to measure: eps 0 is then rejected, and the cells show a dash).
    const measure = (compute) => { try { return compute(); } catch { return null; } };
    const rmsCheck = measure(() => lab.rmsNormSteps(rms.normalized, null, { eps: 0 }));
    const lnCheck = measure(() => lab.layerNormSteps(ln.normalized, null, null, { eps: 0 }));
    const lengthSquared = rms.meanSquare * x.length;

    this.outputs.input.textContent = formatVector(x);
    this.outputs.rms.textContent = formatVector(rms.output);
    this.outputs.ln.textContent = formatVector(ln.output);
    this.outputs.rmsRms.textContent = rmsCheck ? formatFixed(Math.sqrt(rmsCheck.meanSquare)) : '–';
    this.outputs.lnMean.textContent = lnCheck ? formatFixed(lnCheck.mean) : '–';
    this.outputs.lnVariance.textContent = lnCheck ? formatFixed(lnCheck.variance) : '–';
    this.lengthNote.textContent = this.strings.lengthNote(formatTrimmed(Math.sqrt(lengthSquared), 2), formatTrimmed(Math.sqrt(rms.meanSquare), 2));
    this.drawCharts(x, rms.output, ln.output);

    this.lastStepValues = {
      rmsSquares: formatVector(rms.squares), rmsMeanSquare: formatTrimmed(rms.meanSquare), rmsRms: formatTrimmed(rms.rms),
      rmsNormalized: formatVector(rms.normalized), rmsOutput: formatVector(rms.output),
      lnMean: formatTrimmed(ln.mean), lnCentered: formatVector(ln.centered), lnVariance: formatTrimmed(ln.variance),
      lnStd: formatTrimmed(ln.std), lnNormalized: formatVector(ln.normalized), lnOutput: formatVector(ln.output),
    };
    this.stepper.show(this.state.step, this.lastStepValues);
  }

  drawCharts(x, rmsOut, lnOut) {
    const s = this.strings;
    const categories = Array.from(x, (_, i) => s.dimension(i + 1));
    const maxAbs = (values) => Math.max(...Array.from(values, Math.abs));
    this.inputChart.draw({
      categories, limit: niceLimit(maxAbs(x)), format: (v) => formatTrimmed(v, 2),
      series: [{ label: s.rowInput, className: 'series-input', values: x }],
    });
    this.outputChart.draw({
      categories, limit: Math.max(2, niceLimit(Math.max(maxAbs(rmsOut), maxAbs(lnOut)))), format: (v) => formatTrimmed(v, 2),
      series: [{ label: s.rowRms, className: 'series-rms', values: rmsOut }, { label: s.rowLn, className: 'series-ln', values: lnOut }],
    });
  }
}

function parseEps(text) {
  if (/^\s*[-−]/.test(text) && text.trim().length > 1) throw widgetError('negative_eps');
  return parseNumber(text, { min: 0, max: 1 });
}

function legend(s) {
  return h('span', { class: 'legend' },
    h('span', { class: 'swatch series-rms' }), s.rowRms, h('span', { class: 'swatch series-ln' }), s.rowLn);
}
