// <rl-gemma-trap>: one set of stored norm weights read with the Llama convention (y = x̂·w) and with the
// Gemma 2/3 convention (y = x̂·(1 + w)), both computed by lab.rmsNorm (weightOffset 0 or 1). The reader says
// which convention the checkpoint was trained with; the other reading is what a careless port computes.
import { barChart, legendEntry, niceLimit } from '../shared/bar-chart.js';
import { h } from '../shared/dom.js';
import { radioGroup, textField } from '../shared/fields.js';
import { formatFixed, formatTrimmed, formatVector } from '../shared/format.js';
import { formula } from '../shared/formula.js';
import { widgetError } from '../shared/i18n.js';
import { LabElement } from '../shared/lab-element.js';

const MAX_TEXT = 2000;
// The same trained multipliers stored both ways: Gemma 2/3 keep (multiplier - 1), Llama the multiplier.
const EXAMPLE_WEIGHTS = { gemma: '0.2, -0.3, 0.5, 0.1', llama: '1.2, 0.7, 1.5, 1.1' };
const EPS = 1e-6; // Gemma's rms_norm_eps
// Cosine between the trained and the misread output: at least SAME_DIRECTION the direction is kept, below
// LOST_DIRECTION it is lost (the verdict's wording follows).
const SAME_DIRECTION = 0.99;
const LOST_DIRECTION = 0.9;

const vectorRow = (name, fallback) => ({
  name,
  type: 'text',
  default: fallback,
  maxLength: MAX_TEXT,
  validate: (text, { parseVector }) => parseVector(text),
});
const STATE = [
  { name: 'checkpoint', type: 'choice', choices: ['gemma', 'llama'], default: 'gemma' },
  vectorRow('x', '2, -1, 3, 0'),
  vectorRow('w', EXAMPLE_WEIGHTS.gemma),
];

export class RlGemmaTrap extends LabElement {
  static tag = 'rl-gemma-trap';
  static stateRows = STATE;
  static styles = [new URL('./gemma-trap.css', import.meta.url)];

  build() {
    const s = this.strings;
    const checkpoint = radioGroup({
      name: 'checkpoint',
      legend: s.checkpoint,
      value: this.state.checkpoint,
      options: [
        { value: 'gemma', label: s.gemma },
        { value: 'llama', label: s.llama },
      ],
      onChange: (value) => this.switchCheckpoint(value),
    });
    this.fields = {
      x: textField({ name: 'x', label: s.x, value: this.state.x, onInput: () => this.update() }),
      w: textField({ name: 'w', label: s.w, hint: s.wHint, value: this.state.w, onInput: () => this.update() }),
    };
    this.outputs = {};
    const output = (key) => (this.outputs[key] = h('output', { class: 'vector', 'aria-labelledby': `label-${key}` }));
    const labelCell = (key) => (this.outputs[`label-${key}`] = h('th', { scope: 'row', id: `label-${key}` }));
    const statRow = (key, label) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row', id: `stat-${key}` }, label),
        h('td', {}, (this.outputs[key] = h('output', { class: 'scalar', 'aria-labelledby': `stat-${key}` }))),
      );
    this.chart = barChart({ label: s.chartLabel, barTitle: this.common.barTitle });
    this.legend = h('span', { class: 'legend' });
    this.verdict = h('p', { class: 'verdict', 'aria-live': 'polite' });

    this.body.append(
      h(
        'header',
        { class: 'widget-header' },
        h('h3', {}, s.title),
        h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('gemma-one-plus-w', s.sectionLink)),
      ),
      h(
        'div',
        { class: 'formulas' },
        h('div', { class: 'convention' }, h('span', {}, s.llamaConvention), formula('llamaConvention')),
        h('div', { class: 'convention' }, h('span', {}, s.gemmaConvention), formula('gemmaConvention')),
      ),
      checkpoint.root,
      h('div', { class: 'inputs' }, this.fields.x.root, this.fields.w.root),
      this.resultsRegion(
        h(
          'div',
          { class: 'table-scroll' },
          h(
            'table',
            { class: 'readings' },
            h(
              'tbody',
              {},
              h(
                'tr',
                {},
                h('th', { scope: 'row', id: 'label-normalized' }, s.normalized),
                h('td', {}, output('normalized')),
              ),
              h('tr', { class: 'right' }, labelCell('right'), h('td', {}, output('right'))),
              h('tr', { class: 'wrong' }, labelCell('wrong'), h('td', {}, output('wrong'))),
            ),
          ),
        ),
        h('figure', {}, h('figcaption', {}, this.legend), this.chart.root),
        h(
          'table',
          { class: 'stats' },
          h(
            'tbody',
            {},
            statRow('lengthRatio', s.lengthRatio),
            statRow('cosine', s.cosine),
            statRow('flipped', s.flipped),
          ),
        ),
        this.verdict,
      ),
    );
  }

  /** Switching the checkpoint kind swaps in that kind's example weights, unless the reader typed their own. */
  switchCheckpoint(kind) {
    const field = this.fields.w;
    if (field.input.value.trim() === EXAMPLE_WEIGHTS[this.state.checkpoint]) field.input.value = EXAMPLE_WEIGHTS[kind];
    this.setState({ checkpoint: kind });
  }

  update() {
    const { lab, fields, strings: s } = this;
    const text = (name) => fields[name].input.value;
    const x = this.attempt(fields.x, () => lab.parseVector(text('x')), text('x'));
    const w = this.attempt(
      fields.w,
      () => {
        const values = lab.parseVector(text('w'));
        if (x && values.length !== x.length) throw widgetError('size_mismatch');
        return values;
      },
      text('w'),
    );
    if (!x || !w) return; // the message shows; the last good result stays
    this.commit({ x: text('x'), w: text('w') });

    const gemma = this.state.checkpoint === 'gemma';
    const trainedOffset = gemma ? 1 : 0;
    const normalized = this.attempt(fields.x, () => lab.rmsNorm(x, null, { eps: EPS }));
    if (!normalized) return;
    const right = lab.rmsNorm(x, w, { eps: EPS, weightOffset: trainedOffset });
    const wrong = lab.rmsNorm(x, w, { eps: EPS, weightOffset: 1 - trainedOffset });

    const labels = {
      right: s.reading(s.right, gemma ? s.rightGemma : s.rightLlama),
      wrong: s.reading(s.wrong, gemma ? s.wrongGemma : s.wrongLlama),
    };
    this.outputs['label-right'].textContent = labels.right;
    this.outputs['label-wrong'].textContent = labels.wrong;
    this.outputs.normalized.textContent = formatVector(normalized);
    this.outputs.right.textContent = formatVector(right);
    this.outputs.wrong.textContent = formatVector(wrong);

    const readings = compareReadings(right, wrong);
    const { lengthRatio, cosine, flipped } = readings;
    const ratioText = Number.isFinite(lengthRatio) ? `${formatTrimmed(lengthRatio, 2)}×` : '–';
    this.outputs.lengthRatio.textContent = ratioText;
    this.outputs.cosine.textContent = Number.isFinite(cosine) ? formatFixed(cosine, 3) : '–';
    this.outputs.flipped.textContent = s.flippedOf(flipped, x.length);
    this.verdict.textContent = verdict(s, readings);
    this.verdict.dataset.verdict = verdictKind(readings);

    this.legend.replaceChildren(legendEntry('series-right', s.right), legendEntry('series-wrong', s.wrong));
    const maxAbs = Math.max(...Array.from(right, Math.abs), ...Array.from(wrong, Math.abs));
    this.chart.draw({
      categories: Array.from(x, (_, i) => `y${i + 1}`),
      limit: niceLimit(maxAbs),
      format: (v) => formatTrimmed(v, 2),
      series: [
        { label: s.right, className: 'series-right', values: right },
        { label: s.wrong, className: 'series-wrong', values: wrong },
      ],
    });
  }
}

/** Which sentence the numbers call for: the zero cases, then the cosine bands. */
function verdictKind({ rightZero, wrongZero, cosine }) {
  if (rightZero && wrongZero) return 'both-zero';
  if (rightZero) return 'trained-zero';
  if (wrongZero) return 'misread-zero';
  if (cosine >= SAME_DIRECTION) return 'same';
  return cosine >= LOST_DIRECTION ? 'turned' : 'far';
}

function verdict(s, readings) {
  const cosine = formatFixed(readings.cosine, 3);
  const ratio = `${formatTrimmed(readings.lengthRatio, 2)}×`;
  switch (verdictKind(readings)) {
    case 'both-zero':
      return s.verdictBothZero;
    case 'trained-zero':
      return s.verdictTrainedZero;
    case 'misread-zero':
      return s.verdictMisreadZero;
    case 'same':
      return s.verdictSame(cosine, ratio, SAME_DIRECTION);
    case 'turned':
      return s.verdictTurned(cosine, ratio, LOST_DIRECTION, SAME_DIRECTION);
    default:
      return s.verdictFar(cosine, ratio, LOST_DIRECTION);
  }
}

/** How far the misread output is from the right one: length ratio, cosine, and how many signs flipped. */
function compareReadings(right, wrong) {
  let rr = 0;
  let ww = 0;
  let rw = 0;
  let flipped = 0;
  for (let i = 0; i < right.length; i++) {
    rr += right[i] * right[i];
    ww += wrong[i] * wrong[i];
    rw += right[i] * wrong[i];
    if (right[i] * wrong[i] < 0) flipped += 1;
  }
  return {
    lengthRatio: Math.sqrt(ww / rr),
    cosine: rw / Math.sqrt(rr * ww),
    flipped,
    rightZero: rr === 0,
    wrongZero: ww === 0,
  };
}
