// <rl-qk-norm-lab>: the largest attention logit and the softmax entropy of a small decoder as its q and k weights
// are scaled by a gain, without and with QK-Norm (lab.experiments.qkLogitGrowth, experiment 5, in a worker).
// s = q·k/√d_head: without QK-Norm s grows as gain²; with it |q̂| = |k̂| = √d_head, so s ≤ √d_head (Cauchy–Schwarz)
// whatever the gain. The flat line is that bound; every curve is measured.
import { log10OrGap, logSplits, logValues, shownScientific as shown } from '../shared/log-axis.js';
import { ExperimentElement, chartFigure, experimentChartOptions } from '../shared/experiment-element.js';
import { numberSelect } from '../shared/fields.js';
import { h } from '../shared/dom.js';
import { formatFactor, formatFixed, formatScientific, formatTrimmed } from '../shared/format.js';
import { axis, lineChart } from '../shared/line-chart.js';

/** A growth factor in a <data> element carrying the exact value: ×4,096, never ×4.096 × 10³. */
const factor = (value) => h('data', { value: String(value) }, formatFactor(value));
const D_MODEL = 128; // heads = D_MODEL / d_head
const HEAD_DIMS = [16, 32, 64, 128];
const MAX_GAINS = [16, 64, 256];

const STATE = [
  { name: 'dHead', type: 'integer', default: 128, min: 16, max: 128 },
  { name: 'maxGain', type: 'integer', default: 64, min: 16, max: 256 },
  { name: 'layers', option: 'experiments.qkLogitGrowth.nLayers', max: 4 },
  { name: 'seed', option: 'experiments.qkLogitGrowth.init.seed', max: 1e9 },
];

/** Gains 2^(k/2) from 0.5 to maxGain: half-octave steps, at most 19 points. */
export function gainsUpTo(maxGain) {
  const steps = Math.round(2 * Math.log2(maxGain));
  return Array.from({ length: steps + 3 }, (_, k) => 2 ** ((k - 2) / 2));
}

export class RlQkNormLab extends ExperimentElement {
  static tag = 'rl-qk-norm-lab';
  static stateRows = STATE;

  build() {
    const s = this.strings;
    const st = this.state;
    const dHead = this.control('dHead', { field: numberSelect, options: HEAD_DIMS });
    const maxGain = this.control('maxGain', { field: numberSelect, options: MAX_GAINS });
    const layers = this.layersField();
    this.logits = lineChart({
      host: this,
      label: s.logitLabel(st.dHead),
      height: 260,
      log10: true,
      quantity: s.logitQuantity,
      build: (color) => this.logitOptions(color),
    });
    this.entropy = lineChart({
      host: this,
      label: s.entropyLabel,
      height: 200,
      quantity: s.entropyQuantity,
      build: (color) => this.entropyOptions(color),
    });
    this.body.append(
      this.experimentHeader('qk-norm'),
      h('div', { class: 'inputs' }, dHead.root, maxGain.root, layers.root, this.experimentSeedControl()),
      ...this.experimentResults(
        h(
          'div',
          { class: 'charts' },
          chartFigure(s.logitTitle, this.logits),
          chartFigure(s.entropyTitle, this.entropy),
        ),
      ),
    );
    this.computeWhenVisible();
  }

  change(patch) {
    if (patch.dHead !== undefined && !HEAD_DIMS.includes(patch.dHead)) return;
    this.setState(patch);
    this.recomputeSoon();
  }

  async compute() {
    const { dHead, maxGain, layers, seed } = this.state;
    const nHeads = Math.max(1, Math.round(D_MODEL / dHead));
    const options = { dModel: D_MODEL, nHeads, nLayers: layers, init: { seed }, gains: gainsUpTo(maxGain) };
    const results = await this.runner.run([['experiments.qkLogitGrowth', options]]);
    if (results) this.draw(D_MODEL / nHeads, results[0]);
  }

  draw(dHead, r) {
    const s = this.strings;
    const last = r.gains.length - 1;
    const first = r.gains.indexOf(1);
    const bound = Array.from(r.gains, () => Math.log10(r.bound));
    this.logits.root.setAttribute('aria-label', s.logitLabel(dHead));
    this.logits.setData([r.gains, log10OrGap(r.maxLogitPlain), log10OrGap(r.maxLogitQkNorm), bound]);
    this.entropy.setData([r.gains, r.entropyPlain, r.entropyQkNorm]);
    const qkMax = Math.max(...r.maxLogitQkNorm);
    const gainText = formatTrimmed(r.gains[last], 2);
    this.readouts.replaceChildren(
      h('li', { 'data-readout': 'bound' }, s.boundReadout(dHead), shown(r.bound), s.qkMax, shown(qkMax), s.end),
      h(
        'li',
        { 'data-readout': 'top-gain' },
        s.plainAt(gainText),
        shown(r.maxLogitPlain[last]),
        s.entropyAt,
        shown(r.entropyPlain[last]),
        s.entropyQk,
        shown(r.entropyQkNorm[last]),
        s.nats,
        s.end,
      ),
      h(
        'li',
        { 'data-readout': 'layer0' },
        s.layer0,
        factor(r.layer0MaxLogitPlain[last] / r.layer0MaxLogitPlain[first]),
        s.layer0Gain,
        factor((r.gains[last] / r.gains[first]) ** 2),
        s.end,
      ),
    );
    const remarks = [s.belowBound(formatFixed((100 * qkMax) / r.bound, 0))];
    if (dHead === 128) remarks.unshift(s.chapterBound);
    this.remark.textContent = remarks.join(this.common.sentenceGap);
  }

  logitOptions(color) {
    const s = this.strings;
    const value = (u, v) => (v == null ? '–' : formatScientific(10 ** v, 3).text);
    return experimentChartOptions({
      x: { distr: 3 },
      axes: [axis(color, { label: s.gainAxis }), axis(color, { size: 64, splits: logSplits, values: logValues })],
      series: [
        { label: s.gainAxis, value: (u, v) => (v == null ? '–' : formatTrimmed(v, 2)) },
        { label: s.plain, stroke: color('vermillion'), width: 2.5, value },
        { label: s.qkNorm, stroke: color('blue'), width: 2.5, value },
        { label: s.bound, stroke: color('fg'), width: 1.5, dash: [3, 6], value, points: { show: false } },
      ],
    });
  }

  entropyOptions(color) {
    const s = this.strings;
    const value = (u, v) => (v == null ? '–' : formatFixed(v, 3));
    return experimentChartOptions({
      x: { distr: 3 },
      y: { range: (u, min, max) => [0, Math.max(1, max * 1.1)] },
      axes: [axis(color, { label: s.gainAxis }), axis(color, { size: 48 })],
      series: [
        { label: s.gainAxis, value: (u, v) => (v == null ? '–' : formatTrimmed(v, 2)) },
        { label: s.plain, stroke: color('vermillion'), width: 2.5, value },
        { label: s.qkNorm, stroke: color('blue'), width: 2.5, value },
      ],
    });
  }
}
