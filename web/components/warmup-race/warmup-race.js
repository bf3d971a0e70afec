// <rl-warmup-race>: four training runs, Post-Norm and Pre-Norm, each without and with learning-rate warmup, at
// the same peak learning rate (lab.experiments.warmup, experiment 4, in a worker with per-chunk progress). Long:
// it starts only on the Run button and can be cancelled; the curves grow on the chart as the runs train (every
// 10 steps), and a cancelled race leaves them there. The curves are the measured training losses.
import {
  ExperimentElement,
  chartFigure,
  experimentChartOptions,
  fixedValue as fixed,
} from '../shared/experiment-element.js';
import { numberSelect } from '../shared/experiment-runner.js';
import { h } from '../shared/dom.js';
import { formatFixed } from '../shared/format.js';
import { axis, faint, lineChart } from '../shared/line-chart.js';
import { movingAverage } from '../shared/smoothing.js';

const RUN_KEYS = ['post-false', 'post-true', 'pre-false', 'pre-true'];
// Colour tells the placement apart, the dash pattern each of the four runs (shown in the legend swatches too):
// Post-Norm solid / long dashes, Pre-Norm dots / dash-dot.
const STYLE = {
  'post-false': ['vermillion', undefined],
  'post-true': ['vermillion', [10, 5]],
  'pre-false': ['blue', [2, 4]],
  'pre-true': ['blue', [10, 4, 2, 4]],
};
const STEP_CHOICES = [100, 200, 500];
const LR_CHOICES = [0.001, 0.003, 0.01];
const WARMUP_CHOICES = [10, 25, 50, 100];
const CLEAR_GAP = 0.1; // a loss gap (nats) worth calling out

const STATE = [
  { name: 'layers', option: 'experiments.warmup.nLayers', min: 2, max: 12 },
  { name: 'steps', option: 'experiments.warmup.steps', min: 20, max: 500 },
  { name: 'lr', option: 'experiments.warmup.lr', min: 0.0001, max: 0.05 },
  { name: 'warmupSteps', option: 'experiments.warmup.warmupSteps', max: 500 },
  { name: 'seed', option: 'experiments.warmup.init.seed', max: 1e9 },
];

const shown = (value) => h('data', { value: String(value) }, formatFixed(value, 3));

export class RlWarmupRace extends ExperimentElement {
  static tag = 'rl-warmup-race';
  static stateRows = STATE;

  build() {
    const s = this.strings;
    const st = this.state;
    const layers = this.layersField((v) => this.setState({ layers: v }));
    const steps = numberSelect({
      name: 'steps',
      label: s.steps,
      options: STEP_CHOICES,
      value: st.steps,
      onChange: (v) => this.setState({ steps: v }),
    });
    const lr = numberSelect({
      name: 'lr',
      label: s.lr,
      options: LR_CHOICES,
      value: st.lr,
      onChange: (v) => this.setState({ lr: v }),
    });
    const warmup = numberSelect({
      name: 'warmup-steps',
      label: s.warmupSteps,
      options: WARMUP_CHOICES,
      value: st.warmupSteps,
      onChange: (v) => this.setState({ warmupSteps: v }),
    });
    this.idle = h('p', { class: 'hint' }, s.idle);
    this.chart = lineChart({
      host: this,
      label: s.chartLabel,
      height: 280,
      build: (color) => this.chartOptions(color),
    });
    this.body.append(
      this.experimentHeader('placement'),
      h(
        'div',
        { class: 'inputs' },
        layers.root,
        steps.root,
        lr.root,
        warmup.root,
        this.experimentSeedControl((seed) => this.setState({ seed })),
      ),
      h('button', { type: 'button', class: 'run', onclick: () => this.compute() }, s.run),
      this.idle,
      ...this.experimentResults((this.figure = chartFigure(s.chartTitle, this.chart))),
    );
    this.remark.hidden = true; // until a race finishes
    this.figure.hidden = true; // until a race starts: an empty frame of axes says nothing the idle hint does not
  }

  async compute() {
    this.idle.hidden = true;
    const { layers, steps, lr, seed } = this.state;
    const warmupSteps = Math.min(this.state.warmupSteps, steps);
    const results = await this.runner.run(
      [['experiments.warmup', { nLayers: layers, steps, lr, warmupSteps, init: { seed } }]],
      { onPartial: (partial) => this.drawPartial(partial, steps) },
    );
    if (results) this.draw(results[0]);
  }

  /** A race in progress: its curves so far; the readouts and the remark belong to a finished race, so they go. */
  drawPartial(r, totalSteps) {
    this.readouts.replaceChildren();
    this.remark.hidden = true;
    this.drawCurves(r, totalSteps);
  }

  /**
   * The loss curves of a race, finished or not: r.stepsDone steps of each run, on an axis of `totalSteps` so that
   * a race in progress grows from the left instead of stretching across the chart.
   */
  drawCurves(r, totalSteps = r.stepsDone) {
    const steps = Float64Array.from({ length: Math.max(totalSteps, r.stepsDone) }, (_, i) => i + 1);
    const curve = (run) =>
      Array.from(steps, (_, i) => (run && i < r.stepsDone && Number.isFinite(run.loss[i]) ? run.loss[i] : null));
    const byKey = Object.fromEntries(r.runs.map((run) => [`${run.placement}-${run.warmup}`, run]));
    const raw = RUN_KEYS.map((key) => curve(byKey[key]));
    // The unigram entropy of the training text: where a run that learns nothing from context levels off.
    const plateau = Array.from(steps, () => (Number.isFinite(r.unigramEntropy) ? r.unigramEntropy : null));
    this.figure.hidden = false;
    this.chart.setData([steps, ...raw, ...raw.map((values) => movingAverage(values)), plateau]);
    this.dataset.stepsDrawn = String(r.stepsDone); // for pages and tests that follow the race
    return byKey;
  }

  draw(r) {
    const s = this.strings;
    const byKey = this.drawCurves(r);
    this.readouts.replaceChildren(
      ...RUN_KEYS.filter((key) => byKey[key]).map((key) => {
        const run = byKey[key];
        return h(
          'li',
          { 'data-readout': key },
          s.final(s.runs[key]),
          shown(run.finalSmoothedLoss),
          s.evalLoss,
          shown(run.evalLoss),
          run.firstDivergentStep >= 0 ? s.diverged(run.firstDivergentStep) : null,
          s.end,
        );
      }),
    );
    const gap = (placement) =>
      byKey[`${placement}-false`].finalSmoothedLoss - byKey[`${placement}-true`].finalSmoothedLoss;
    const postGap = gap('post');
    this.remark.hidden = false;
    this.remark.textContent =
      postGap > CLEAR_GAP && postGap > gap('pre') ? s.postWorse(formatFixed(postGap, 2)) : s.noEffect;
  }

  chartOptions(color) {
    const s = this.strings;
    return experimentChartOptions({
      axes: [axis(color, { label: s.stepAxis }), axis(color, { size: 56, label: s.lossAxis })],
      // The measured losses, faint and out of the legend; over them their moving averages, which the legend names.
      series: [
        { label: s.stepAxis, value: fixed(0) },
        ...RUN_KEYS.map((key) => ({
          label: s.rawRun(s.runs[key]),
          class: 'raw-series',
          stroke: faint(color(STYLE[key][0]), 0.22),
          width: 1,
          value: fixed(3),
          points: { show: false },
        })),
        ...RUN_KEYS.map((key) => ({
          label: s.runs[key],
          stroke: color(STYLE[key][0]),
          dash: STYLE[key][1],
          width: 2.5,
          value: fixed(3),
          points: { show: false },
        })),
        {
          label: s.unigramEntropy,
          class: 'reference-series',
          stroke: color('muted'),
          dash: [2, 5],
          width: 1.5,
          value: fixed(3),
          points: { show: false },
        },
      ],
    });
  }
}
