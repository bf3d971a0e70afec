// <rl-init-scaling>: the residual stream's per-coordinate mean square at initialization against depth, without
// and with GPT-2's 1/√(2L) scaling of attn.o and mlp.down (lab.experiments.initScaling, experiment 6, in a
// worker). Pre-norm: the final stream is the embedding plus 2L nearly independent increments, so its variance is
// about var(embedding) + 2L·v unscaled and var(embedding) + v scaled. The dashed estimate takes var(embedding)
// from stream point 0 and v from the 1-layer model; the two solid curves are measured.
import { shownScientific as shown } from '../shared/log-axis.js';
import { ExperimentElement, chartFigure } from '../shared/experiment-element.js';
import { numberSelect } from '../shared/fields.js';
import { h } from '../shared/dom.js';
import { formatScientific, formatTrimmed } from '../shared/format.js';
import { axis, lineChart } from '../shared/line-chart.js';

const MAX_DEPTHS = [16, 32, 64, 128];
const STDS = [0.01, 0.02, 0.05];
const ESTIMATE_TOLERANCE = 0.2; // within ±20% the measured growth "follows" the linear estimate

const STATE = [
  { name: 'maxDepth', type: 'integer', default: 64, min: 16, max: 128 },
  { name: 'std', option: 'experiments.initScaling.init.std', min: 0.001, max: 0.2 },
  { name: 'seed', option: 'experiments.initScaling.init.seed', max: 1e9 },
];

/** 1, 2, 4, ... up to maxDepth. */
const depthsUpTo = (maxDepth) => Array.from({ length: Math.floor(Math.log2(maxDepth)) + 1 }, (_, k) => 2 ** k);
const sci = (u, v) => (v == null ? '–' : formatScientific(v, 3).text);

export class RlInitScaling extends ExperimentElement {
  static tag = 'rl-init-scaling';
  static stateRows = STATE;

  build() {
    const s = this.strings;
    const st = this.state;
    const maxDepth = this.control('maxDepth', { field: numberSelect, options: MAX_DEPTHS });
    const std = this.control('std', { field: numberSelect, options: STDS });
    this.depthChart = lineChart({
      host: this,
      label: s.depthLabel,
      height: 240,
      build: (color) => this.depthOptions(color),
    });
    this.profileCaption = h('figcaption', {}, s.profileTitle(st.maxDepth));
    this.profileChart = lineChart({
      host: this,
      label: s.profileLabel(st.maxDepth),
      height: 240,
      build: (color) => this.profileOptions(color),
    });
    this.body.append(
      this.experimentHeader('init-and-depth'),
      h('div', { class: 'inputs' }, maxDepth.root, std.root, this.experimentSeedControl()),
      ...this.experimentResults(
        h(
          'div',
          { class: 'charts' },
          chartFigure(s.depthTitle, this.depthChart),
          h('figure', {}, this.profileCaption, this.profileChart.root),
        ),
      ),
    );
    this.computeWhenVisible();
  }

  change(patch) {
    this.setState(patch);
    this.recomputeNow(); // selects commit once, no debounce needed
  }

  async compute() {
    const { maxDepth, std, seed } = this.state;
    const results = await this.runner.run([
      ['experiments.initScaling', { depths: depthsUpTo(maxDepth), init: { std, seed } }],
    ]);
    if (results) this.draw(results[0]);
  }

  draw(r) {
    const s = this.strings;
    const depths = Float64Array.from(r.depths);
    const deepest = depths.at(-1);
    const last = depths.length - 1;
    const embedding = r.profilePlain[0];
    const increment = (r.finalVariancePlain[0] - embedding) / 2; // the 1-layer model has 2 increments
    const estimate = depths.map((L) => embedding + 2 * L * increment);
    this.depthChart.setData([depths, r.finalVariancePlain, r.finalVarianceScaled, estimate]);
    const points = Float64Array.from(r.profilePlain, (_, i) => i);
    this.profileCaption.textContent = s.profileTitle(deepest);
    this.profileChart.root.setAttribute('aria-label', s.profileLabel(deepest));
    this.profileChart.setData([points, r.profilePlain, r.profileScaled]);

    const growthPlain = r.finalVariancePlain[last] / r.finalVariancePlain[0];
    const growthScaled = r.finalVarianceScaled[last] / r.finalVarianceScaled[0];
    this.readouts.replaceChildren(
      h(
        'li',
        { 'data-readout': 'deepest' },
        s.at(deepest),
        shown(r.finalVariancePlain[last]),
        s.scaledAt,
        shown(r.finalVarianceScaled[last]),
        s.with,
        s.end,
      ),
      h(
        'li',
        { 'data-readout': 'growth' },
        s.growth(deepest),
        shown(growthPlain),
        s.growthScaled,
        shown(growthScaled),
        s.end,
      ),
      h('li', { 'data-readout': 'estimate' }, s.estimateAt(deepest), shown(estimate[last]), s.estimateEnd(deepest)),
    );
    const measuredOverEstimate = (r.finalVariancePlain[last] - embedding) / (estimate[last] - embedding);
    this.remark.textContent =
      Math.abs(measuredOverEstimate - 1) <= ESTIMATE_TOLERANCE
        ? s.estimateOn
        : s.estimateOff(formatTrimmed(100 * measuredOverEstimate, 0));
  }

  depthOptions(color) {
    const s = this.strings;
    return {
      scales: { x: { time: false } }, // linear in L, so linear growth looks linear
      axes: [
        axis(color, { label: s.depthAxis }),
        axis(color, {
          size: 64,
          values: (u, ticks) => ticks.map((t) => (t == null ? '' : formatScientific(t, 2).text)),
        }),
      ],
      series: [
        { label: 'L', value: (u, v) => (v == null ? '–' : String(v)) },
        { label: s.plain, stroke: color('vermillion'), width: 2.5, value: sci },
        { label: s.scaled, stroke: color('blue'), width: 2.5, value: sci },
        { label: s.estimate, stroke: color('fg'), width: 1.5, dash: [3, 6], value: sci, points: { show: false } },
      ],
      cursor: { drag: { x: false, y: false } },
    };
  }

  profileOptions(color) {
    const s = this.strings;
    return {
      scales: { x: { time: false } },
      axes: [
        axis(color, { label: s.pointAxis }),
        axis(color, {
          size: 64,
          values: (u, ticks) => ticks.map((t) => (t == null ? '' : formatScientific(t, 2).text)),
        }),
      ],
      series: [
        { label: '#', value: (u, v) => (v == null ? '–' : String(v)) },
        { label: s.plain, stroke: color('vermillion'), width: 2, value: sci, points: { show: false } },
        { label: s.scaled, stroke: color('blue'), width: 2, value: sci, points: { show: false } },
      ],
      cursor: { drag: { x: false, y: false } },
    };
  }
}
