// <rl-placement-lab>: parameter-gradient norms at initialization for each norm placement
// (lab.experiments.initGradients, experiment 2, in a worker): the MLP down-projection's gradient in every layer
// of one model, and the last layer's against depth (6 to 48 layers). Xiong et al. (2020), Theorem 1: the latter
// is independent of L for Post-LN and O(1/√L) for Pre-LN. Every curve is measured.
import { log10OrGap, logSplits, logValues, shownScientific as shown } from '../shared/log-axis.js';
import { ExperimentElement, chartFigure, experimentChartOptions } from '../shared/experiment-element.js';
import { checkbox, radioGroup } from '../shared/fields.js';
import { h } from '../shared/dom.js';
import { stringsOf } from '../../languages.js';
import { formatFactor, formatScientific } from '../shared/format.js';
import { axis, lineChart } from '../shared/line-chart.js';

const PLACEMENTS = ['post', 'pre', 'sandwich', 'olmo2'];
const COLORS = { post: 'vermillion', pre: 'blue', sandwich: 'green', olmo2: 'purple' };
const DASHES = { post: undefined, pre: undefined, sandwich: [8, 4], olmo2: [2, 4] };
const DEPTHS = [6, 12, 24, 48];
const RECOMPUTE_DELAY_MS = 300;
const FLAT = 1.5; // a ratio within ×1.5 either way counts as flat

const STATE = [
  ...PLACEMENTS.map((p) => ({ name: p, type: 'boolean', default: p === 'post' || p === 'pre' })),
  { name: 'layers', option: 'experiments.initGradients.nLayers', min: 2, max: 24 },
  // the norm kinds of the model table's blocks, so that a block handed over runs as drawn
  { name: 'norm', option: 'experiments.initGradients.norm', choices: ['layernorm', 'rmsnorm', 'rmsnorm_gemma'] },
  { name: 'qkNorm', option: 'experiments.initGradients.qkNorm' },
  { name: 'init', option: 'experiments.initGradients.init.scheme' },
  { name: 'zeroQK', option: 'experiments.initGradients.init.zeroQK' },
  { name: 'seed', option: 'experiments.initGradients.init.seed', max: 1e9 },
];

const logValue = (u, v) => (v == null ? '–' : formatScientific(10 ** v, 3).text);

export class RlPlacementLab extends ExperimentElement {
  static tag = 'rl-placement-lab';
  static stateRows = STATE;

  build() {
    const s = this.strings;
    const st = this.state;
    this.boxes = Object.fromEntries(
      PLACEMENTS.map((p) => [p, this.control(p, { field: checkbox, name: `placement-${p}`, label: s.names[p] })]),
    );
    const layers = this.layersField();
    const init = this.control('init', {
      field: radioGroup,
      options: [
        { value: 'normal', label: s.normal },
        { value: 'xavier', label: s.xavier },
      ],
    });
    const zeroQK = this.control('zeroQK', { field: checkbox });
    const normNames = stringsOf(this.language, 'block-diagram').norm;
    const norm = this.control('norm', {
      field: radioGroup,
      across: true,
      options: this.row('norm').choices.map((value) => ({ value, label: normNames[value] })),
    });
    const qkNorm = this.control('qkNorm', { field: checkbox });
    this.normRoot = norm.root;
    this.qkNormBox = qkNorm.input;
    this.layerChart = lineChart({
      host: this,
      label: s.layerLabel(st.layers),
      height: 240,
      log10: true,
      quantity: s.layerQuantity,
      build: (color) => this.chartOptions(color, s.layerAxis, {}),
    });
    this.depthChart = lineChart({
      host: this,
      label: s.depthLabel,
      height: 240,
      log10: true,
      quantity: s.depthQuantity,
      build: (color) => this.chartOptions(color, s.depthAxis, { distr: 3, log: 2 }),
    });
    this.body.append(
      this.experimentHeader('placement'),
      h(
        'fieldset',
        { class: 'field radio-group' },
        h('legend', {}, s.placements),
        h(
          'div',
          { class: 'checks' },
          PLACEMENTS.map((p) => this.boxes[p].root),
        ),
      ),
      h(
        'div',
        { class: 'inputs' },
        layers.root,
        norm.root,
        h('div', { class: 'field' }, qkNorm.root),
        init.root,
        h('div', { class: 'field' }, zeroQK.root),
        this.experimentSeedControl(),
      ),
      ...this.experimentResults(
        h(
          'div',
          { class: 'charts' },
          chartFigure(s.layerTitle, this.layerChart),
          chartFigure(s.depthTitle, this.depthChart),
        ),
      ),
    );
    this.computeWhenVisible();
  }

  change(patch) {
    const next = { ...this.state, ...patch };
    if (!PLACEMENTS.some((p) => next[p])) {
      this.boxes[Object.keys(patch)[0]].input.checked = true;
      return;
    } // keep one
    this.setState(patch);
    this.recomputeSoon(RECOMPUTE_DELAY_MS);
  }

  /**
   * Shows exactly `placements` (names among post, pre, sandwich, olmo2) with the block's norm kind and QK-Norm
   * (`layout`, else this lab's settings) and runs them: how another widget (the model table's "Run this block")
   * hands a block over. Call it once the widget is drawn (data-ready).
   */
  selectPlacements(placements, { norm = this.state.norm, qkNorm = this.state.qkNorm } = {}) {
    if (!placements.length || placements.some((p) => !PLACEMENTS.includes(p)))
      throw new Error(`selectPlacements: ${placements.join(', ')} is not among ${PLACEMENTS.join(', ')}`);
    if (!this.row('norm').choices.includes(norm))
      throw new Error(`selectPlacements: norm ${norm} is not among ${this.row('norm').choices.join(', ')}`);
    const patch = { ...Object.fromEntries(PLACEMENTS.map((p) => [p, placements.includes(p)])), norm, qkNorm };
    for (const p of PLACEMENTS) this.boxes[p].input.checked = patch[p];
    for (const input of this.normRoot.querySelectorAll('input')) input.checked = input.value === norm;
    this.qkNormBox.checked = qkNorm;
    this.setState(patch);
    this.recomputeNow();
  }

  /**
   * Moves the keyboard focus to the box of `placement`, without scrolling (the caller brings the widget into
   * view): after a hand-over the next Tab continues in this widget, not at a button far above it.
   */
  focusPlacement(placement) {
    this.boxes[placement].input.focus({ preventScroll: true });
  }

  /** Every placement is always a chart series (uPlot keeps its series fixed); unchecked ones are gaps. */
  async compute() {
    const { layers, norm, qkNorm, init, zeroQK, seed } = this.state;
    const placements = PLACEMENTS.filter((p) => this.state[p]);
    const results = await this.runner.run([
      [
        'experiments.initGradients',
        { placements, nLayers: layers, norm, qkNorm, init: { scheme: init, zeroQK, seed }, depths: DEPTHS },
      ],
    ]);
    if (results) this.draw(results[0]);
  }

  draw(r) {
    const s = this.strings;
    const layerIndex = Float64Array.from({ length: r.layers }, (_, l) => l);
    const gaps = (n) => Array.from({ length: n }, () => null);
    this.layerChart.root.setAttribute('aria-label', s.layerLabel(r.layers));
    this.layerChart.setData([
      layerIndex,
      ...PLACEMENTS.map((p) => (r.perLayer[p] ? log10OrGap(r.perLayer[p].mlpDown) : gaps(r.layers))),
    ]);
    this.depthChart.setData([
      Float64Array.from(r.depths),
      ...PLACEMENTS.map((p) =>
        r.lastLayerMlpGradNorm[p] ? log10OrGap(r.lastLayerMlpGradNorm[p]) : gaps(r.depths.length),
      ),
    ]);
    const [from, to] = [r.depths[0], r.depths.at(-1)];
    this.readouts.replaceChildren(
      ...r.placements.map((p) => {
        const last = r.lastLayerMlpGradNorm[p];
        const profile = r.perLayer[p].mlpDown;
        return h(
          'li',
          { 'data-readout': p },
          s.depthRatio(s.names[p], from, to),
          shown(last.at(-1) / last[0]),
          s.profileRatio,
          shown(profile.at(-1) / profile[0]),
          s.close,
        );
      }),
      h('li', {}, s.sqrt(formatFactor(Math.sqrt(from / to)))),
    );
    // Flat: within ×FLAT either way. Theorem 1 makes Post-Norm's last-layer gradient independent of depth.
    const flat = (ratio) => ratio < FLAT && ratio > 1 / FLAT;
    const post = r.perLayer.post?.mlpDown;
    const profile = post && post.at(-1) / post[0];
    const postFlat = Boolean(post) && flat(profile);
    this.remark.hidden = !postFlat;
    if (!postFlat) return void (this.remark.textContent = '');
    const depth = r.lastLayerMlpGradNorm.post.at(-1) / r.lastLayerMlpGradNorm.post[0];
    this.remark.textContent = s.postFlat(formatFactor(profile), formatFactor(depth), from, to, flat(depth));
  }

  chartOptions(color, xLabel, xScale) {
    const s = this.strings;
    return experimentChartOptions({
      x: xScale,
      axes: [
        axis(color, { label: xLabel, incrs: [1, 2, 4, 8, 16] }),
        axis(color, { size: 64, splits: logSplits, values: logValues }),
      ],
      series: [
        { label: xLabel, value: (u, v) => (v == null ? '–' : String(v)) },
        ...PLACEMENTS.map((p) => ({
          label: s.names[p],
          stroke: color(COLORS[p]),
          width: 2.5,
          dash: DASHES[p],
          value: logValue,
        })),
      ],
    });
  }
}
