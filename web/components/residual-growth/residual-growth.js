// <rl-residual-growth>: the residual stream's length and each increment's size relative to it, per sublayer of a
// small decoder, at initialization or after a short training run (lab.experiments.residualGrowth, experiment 3,
// in a worker, with per-step progress). Pre-Norm, h <- h + F(Norm(h)): the trunk is a running sum of increments
// whose scale is set by the weights alone, so |F| / |h| falls as |h| grows. Post-Norm, h <- Norm(h + F(h)):
// the trunk is normalized after every addition and cannot grow. Sandwich and OLMo 2 normalize each increment,
// Norm(F(.)), so every one has length about sqrt(d) and the trunk grows like a sum of them. Both curves are
// measured. For Pre-Norm and OLMo 2 a third chart sets the shipped trained toy of that placement against itself
// before training (toy-stream.js), the contrast a few hundred steps in the page cannot show.
import { log10OrGap, logSplits, logValues, shownScientific as shown } from '../shared/log-axis.js';
import {
  ExperimentElement,
  chartFigure,
  experimentChartOptions,
  fixedValue as fixed,
} from '../shared/experiment-element.js';
import { numberSelect, radioGroup } from '../shared/fields.js';
import { toyOfPlacement, toyStreamsInWorker, toyWindow } from './toy-stream.js';
import { h } from '../shared/dom.js';
import { formatFixed, formatScientific, formatTrimmed } from '../shared/format.js';
import { axis, lineChart } from '../shared/line-chart.js';

const STEP_CHOICES = [0, 50, 200, 500, 1000];
const LEARNING_RATES = [0.001, 0.003];

const PLACEMENTS = ['pre', 'post', 'sandwich', 'olmo2'];
const NORMALIZED_LENGTH = 8; // √d of the experiment's d = 64: the length of a normalized vector with g = 1

const STATE = [
  { name: 'placement', option: 'experiments.residualGrowth.placement', choices: PLACEMENTS },
  { name: 'layers', option: 'experiments.residualGrowth.nLayers', max: 24 },
  { name: 'trainSteps', option: 'experiments.residualGrowth.trainSteps' },
  { name: 'lr', option: 'experiments.residualGrowth.lr', min: 0.0001, max: 0.01 },
  { name: 'seed', option: 'experiments.residualGrowth.init.seed', max: 1e9 },
];

// What a run depends on: charts drawn for another key are not the current settings' results.
const settingsKey = ({ placement, layers, trainSteps, lr, seed }) =>
  JSON.stringify([placement, layers, trainSteps, lr, seed]);

export class RlResidualGrowth extends ExperimentElement {
  static tag = 'rl-residual-growth';
  static stateRows = STATE;

  build() {
    const s = this.strings;
    const st = this.state;
    const placement = this.control('placement', {
      field: radioGroup,
      options: PLACEMENTS.map((p) => ({ value: p, label: s.names[p] })),
      across: true,
    });
    const layers = this.layersField();
    const steps = this.control('trainSteps', { field: numberSelect, options: STEP_CHOICES });
    const lr = this.control('lr', { field: numberSelect, options: LEARNING_RATES });
    this.runButton = h('button', { type: 'button', class: 'run', onclick: () => this.recomputeNow() }, s.run);
    this.pending = h('p', { class: 'hint', hidden: true });
    this.normChart = lineChart({
      host: this,
      label: s.normLabel(st.layers, s.names[st.placement]),
      height: 240,
      build: (color) => this.normOptions(color),
    });
    // A log axis: after training the first layer's MLP increment can be 100 times the stream and the deep ones a
    // tenth of it, and the fall with depth is the point of the chart.
    this.ratioChart = lineChart({
      host: this,
      label: s.ratioLabel(st.layers),
      height: 240,
      log10: true,
      build: (color) => this.ratioOptions(color),
    });
    this.toyChart = lineChart({
      host: this,
      label: s.toyLabel,
      height: 240,
      build: (color) => this.toyOptions(color),
    });
    this.toyFigure = chartFigure('', this.toyChart, { class: 'toy-figure' });
    this.showToyFigure(toyOfPlacement(st.placement));
    this.body.append(
      this.experimentHeader('residual-stream'),
      placement.root,
      h(
        'div',
        { class: 'inputs' },
        layers.root,
        steps.root,
        lr.root,
        this.experimentSeedControl(),
        h('div', { class: 'field' }, this.runButton, this.pending),
      ),
      ...this.experimentResults(
        h(
          'div',
          { class: 'charts' },
          chartFigure(s.normTitle, this.normChart),
          chartFigure(s.ratioTitle, this.ratioChart),
        ),
        this.toyFigure,
      ),
    );
    this.computeWhenVisible();
  }

  /** Measuring at initialization takes milliseconds and reruns by itself; a training run waits for the button. */
  change(patch) {
    this.setState(patch);
    const training = this.state.trainSteps > 0;
    this.pending.hidden = !training;
    this.pending.textContent = training ? this.strings.pending(this.state.trainSteps) : '';
    if (training) this.cancelRecompute();
    else this.recomputeSoon();
    // A training run waits for the button: until then the charts belong to the settings last drawn.
    this.markStale(training && settingsKey(this.state) !== this.drawnSettings, 'settings');
  }

  async compute() {
    this.pending.hidden = true;
    const { placement, layers, trainSteps, lr, seed } = this.state;
    const toy = toyOfPlacement(placement);
    // the toy's files missing or unreadable: its readout says so, the experiment still draws
    const measureToy = (worker) =>
      toyStreamsInWorker(worker, toy).catch((failure) => ({ error: failure?.message ?? String(failure) }));
    const results = await this.runner.run([
      ['experiments.residualGrowth', { placement, nLayers: layers, trainSteps, lr, init: { seed } }],
      ...(toy ? [measureToy] : []),
    ]);
    if (!results) return;
    this.draw({ placement, layers, trainSteps }, results[0]);
    this.drawToy(toy, results[1]);
    this.drawnSettings = settingsKey({ placement, layers, trainSteps, lr, seed });
    this.markStale(settingsKey(this.state) !== this.drawnSettings, 'settings');
  }

  /** The toy chart, captioned for `toy`; hidden without one (no shipped toy has the placement, or it failed). */
  showToyFigure(toy) {
    this.toyFigure.hidden = !toy;
    if (toy) {
      const { toyNames, toyTitle } = this.strings;
      this.toyFigure.firstChild.textContent = toyTitle(toyNames[toy.name], toyWindow(toy).length);
    }
  }

  /** The shipped toy of the placement drawn, trained and before training (toyStreams), or nothing without one. */
  drawToy(toy, t) {
    const s = this.strings;
    this.showToyFigure(toy && !t.error ? toy : null); // after a failure the chart may hold another toy
    if (!toy) return;
    if (t.error) {
      this.readouts.append(h('li', { 'data-readout': 'toy' }, s.toyFailed(t.error)));
      return;
    }
    const name = s.toyNames[toy.name];
    const { trained, untrained } = t;
    this.toyChart.setData([Float64Array.from(trained.stream, (_, i) => i), trained.stream, untrained.stream]);
    const growth = ({ stream }) => [
      shown(stream[0]),
      s.normsTo,
      shown(stream.at(-1)),
      s.normsEnd,
      shown(stream.at(-1) / stream[0]),
      s.close,
    ];
    this.readouts.append(
      h('li', { 'data-readout': 'toy' }, s.toyTrained(name, toy.steps), ...growth(trained)),
      h('li', { 'data-readout': 'toy-untrained' }, s.toyUntrained, ...growth(untrained)),
    );
  }

  draw({ placement, layers, trainSteps }, r) {
    const s = this.strings;
    const points = Float64Array.from(r.streamNorm, (_, i) => i);
    const layerIndex = Float64Array.from({ length: layers }, (_, l) => l);
    const attention = layerIndex.map((l) => r.incrementRatio[2 * l]); // sublayer 2l: attention, 2l+1: MLP
    const mlp = layerIndex.map((l) => r.incrementRatio[2 * l + 1]);
    this.normChart.root.setAttribute('aria-label', s.normLabel(layers, s.names[placement]));
    this.ratioChart.root.setAttribute('aria-label', s.ratioLabel(layers));
    this.normChart.setData([points, r.streamNorm]);
    this.ratioChart.setData([layerIndex, log10OrGap(attention), log10OrGap(mlp)]);
    const bottom = r.streamNorm[0];
    const top = r.streamNorm.at(-1);
    this.readouts.replaceChildren(
      h(
        'li',
        { 'data-readout': 'norms' },
        s.norms(trainSteps),
        shown(bottom),
        s.normsTo,
        shown(top),
        s.normsEnd,
        shown(top / bottom),
        s.close,
      ),
      h(
        'li',
        { 'data-readout': 'ratios' },
        s.ratios(layers - 1),
        shown(attention[0]),
        s.ratiosTo,
        shown(attention.at(-1)),
        s.ratiosMlp,
        shown(mlp[0]),
        s.ratiosTo,
        shown(mlp.at(-1)),
        s.ratiosEnd,
      ),
      h('li', { 'data-readout': 'loss' }, s.loss, shown(r.loss, 4)),
    );
    this.remark.textContent = this.remarkText(placement, trainSteps, r);
  }

  /** What the measured curves say, for the placement drawn; every figure in it comes from the result `r`. */
  remarkText(placement, trainSteps, r) {
    const s = this.strings;
    const stream = r.streamNorm;
    const growth = formatTrimmed(stream.at(-1) / stream[0], 1);
    if (placement === 'pre') return trainSteps ? s.trained(growth) : s.untrained(growth);
    if (placement === 'post') {
      const afterAdditions = stream.slice(1);
      return s.postFlat(formatFixed(Math.min(...afterAdditions), 2), formatFixed(Math.max(...afterAdditions), 2));
    }
    const shortest = Math.min(...r.incrementNorm);
    return s.normalizedIncrements(
      s.names[placement],
      formatFixed(shortest, 2),
      formatFixed(Math.max(...r.incrementNorm), 2),
      formatFixed(stream[0], 2),
      formatFixed(stream.at(-1), 2),
      shortest < NORMALIZED_LENGTH / 2,
    );
  }

  normOptions(color) {
    const s = this.strings;
    return experimentChartOptions({
      y: { range: (u, min, max) => [0, max * 1.1] },
      axes: [axis(color, { label: s.pointAxis, incrs: [1, 2, 4, 8, 16] }), axis(color, { size: 52 })],
      series: [
        { label: '#', value: fixed(0) },
        { label: s.stream, stroke: color('blue'), width: 2.5, value: fixed(3) },
      ],
    });
  }

  toyOptions(color) {
    const s = this.strings;
    return experimentChartOptions({
      y: { range: (u, min, max) => [0, max * 1.1] },
      axes: [axis(color, { label: s.toyAxis, incrs: [1, 2, 4, 8, 16] }), axis(color, { size: 52 })],
      series: [
        { label: '#', value: fixed(0) },
        { label: s.toyTrainedSeries, stroke: color('blue'), width: 2.5, value: fixed(3) },
        { label: s.toyUntrainedSeries, stroke: color('vermillion'), width: 2.5, dash: [8, 4], value: fixed(3) },
      ],
    });
  }

  ratioOptions(color) {
    const s = this.strings;
    const logValue = (u, v) => (v == null ? '–' : formatScientific(10 ** v, 3).text);
    return experimentChartOptions({
      axes: [
        axis(color, { label: s.layerAxis, incrs: [1, 2, 4, 8, 16] }),
        axis(color, { size: 64, splits: logSplits, values: logValues }),
      ],
      series: [
        { label: '#', value: fixed(0) },
        { label: s.attention, stroke: color('vermillion'), width: 2.5, value: logValue },
        { label: s.mlp, stroke: color('green'), width: 2.5, dash: [8, 4], value: logValue },
      ],
    });
  }
}
