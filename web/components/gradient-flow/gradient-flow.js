// <rl-gradient-flow>: the gradient norm at the input of every layer of a deep stack, with and without residual
// connections (lab.experiments.gradientDecay, experiment 1, run in a worker). Without residuals the linear stack
// multiplies the gradient by exactly `gain` per layer (a random rotation keeps its length), so layer 0 gets
// gain^L of the top's: the chapter's 0.8^32 ≈ 0.0008 and 1.2^32 ≈ 342. The dashed line gain^(L−l) is that
// formula, drawn for comparison; the two solid curves are measured. Below, the same measurement on a trained
// model (model-view.js): its gradients with and without the skips, by ckpt.gradients.
import { log10OrGap, logSplits, logValues, shownScientific as shown } from '../shared/log-axis.js';
import { ExperimentElement, chartFigure } from '../shared/experiment-element.js';
import { h } from '../shared/dom.js';
import { formatFactor, formatFixed, formatScientific } from '../shared/format.js';
import { axis, lineChart } from '../shared/line-chart.js';
import { checkbox, numberSelect, radioGroup, rangeField } from '../shared/fields.js';
import { MODEL_CHOICES, modelPanel } from './model-view.js';
import { keepInView } from '../shared/keep-in-view.js';

const WIDTHS = [16, 64, 256, 512];
const GAIN_STEP = 0.05;
const onStep = (gain) => Math.abs(gain / GAIN_STEP - Math.round(gain / GAIN_STEP)) < 1e-9;
// Opening with small branches (gain 0.1) shows the section's claim as it stands: without residuals layer 0 gets
// 0.1^32 = 10^-32 of the top gradient, with them about 1.13 of it. The chapter's 0.8 and 1.2 follow, then large
// branches (gain 1: a plain stack of rotations keeps the gradient exactly, the residual one multiplies it ~2^16).
const PRESETS = [
  { gain: 0.1, layers: 32, kind: 'small' },
  { gain: 0.8, layers: 32, kind: 'chapter' },
  { gain: 1.2, layers: 32, kind: 'chapter' },
  { gain: 1, layers: 32, kind: 'large' },
];
// With residuals, a layer-0 gradient within this factor of the top's counts as "stays near 1".
const NEAR_ONE = 2;
const CHAPTER_FIGURES = { 0.8: '0.0008', 1.2: '342' };

const STATE = [
  { name: 'layers', option: 'experiments.gradientDecay.nLayers', max: 64 },
  { name: 'gain', option: 'experiments.gradientDecay.gain', min: 0.05, max: 2, default: 0.1 },
  { name: 'variant', option: 'experiments.gradientDecay.variant' },
  { name: 'width', option: 'experiments.gradientDecay.width', min: 16, max: 512 },
  { name: 'plain', type: 'boolean', default: true },
  { name: 'residual', type: 'boolean', default: true },
  { name: 'seed', option: 'experiments.gradientDecay.seed', max: 1e9 },
  // a shipped toy whose gradients are measured as the widget opens; 'none': the random stack alone
  { name: 'model', type: 'choice', choices: MODEL_CHOICES, default: MODEL_CHOICES[0] },
];

const scientific = (value) => formatScientific(value, 3);
// The chart plots log10 of the norms on a linear axis labelled 10^k: uPlot's own log scale covers only about
// 10^-16 to 10^16, and 0.1^64 lies far below that.
const readout = (u, v) => (v == null ? '–' : scientific(10 ** v).text);

export class RlGradientFlow extends ExperimentElement {
  static tag = 'rl-gradient-flow';
  static stateRows = STATE;

  build() {
    const s = this.strings;
    const st = this.state;
    // a link or the attributes may switch both curves off, which the checkboxes never do (change)
    if (!st.plain && !st.residual) this.commit({ plain: true, residual: true });
    this.layersSlider = this.layersField();
    this.gainSlider = this.control('gain', {
      field: rangeField,
      ...this.bounds('gain'),
      step: GAIN_STEP,
      // a link may give a gain between the slider's steps: the thumb sits on the nearest, the text says the gain used
      valueText: (g) =>
        Math.abs(g - this.state.gain) < GAIN_STEP / 2 && !onStep(this.state.gain)
          ? String(this.state.gain)
          : formatFixed(g, 2),
    });
    this.widthSelect = this.control('width', { field: numberSelect, options: WIDTHS });
    const variant = this.control('variant', {
      field: radioGroup,
      options: [
        { value: 'linear', label: s.linear },
        { value: 'mlp', label: s.mlp },
      ],
    });
    this.plainBox = this.control('plain', { field: checkbox });
    this.residualBox = this.control('residual', { field: checkbox });
    const presets = h(
      'div',
      { class: 'presets', role: 'group', 'aria-label': s.presetsLabel },
      PRESETS.map(({ gain, layers, kind }) =>
        h(
          'button',
          { type: 'button', 'data-preset': kind, onclick: () => this.pick(gain, layers) },
          s.preset(gain, layers, kind),
        ),
      ),
    );

    this.chart = lineChart({
      host: this,
      label: s.chartLabel(st.layers, st.gain, s[st.variant]),
      height: 280,
      log10: true,
      quantity: s.quantity,
      build: (color) => this.chartOptions(color),
    });
    this.body.append(
      this.experimentHeader('why-residuals'),
      h(
        'div',
        { class: 'inputs' },
        this.layersSlider.root,
        h('div', { class: 'field' }, this.gainSlider.root, presets),
        variant.root,
        this.widthSelect.root,
        this.experimentSeedControl((seed) => this.change({ seed })),
      ),
      h(
        'fieldset',
        { class: 'field radio-group' },
        h('legend', {}, s.curves),
        h('div', { class: 'checks' }, this.plainBox.root, this.residualBox.root),
      ),
      ...this.experimentResults(chartFigure(s.chartTitle, this.chart)),
    );
    this.model = modelPanel(this, { gain: () => this.state.gain, onToy: (model) => this.setState({ model }) });
    this.modelOpened = false;
    this.linkedRun = null; // the run of the toy a link named
    this.body.append(this.model.root);
    this.computeWhenVisible();
  }

  pick(gain, layers) {
    this.gainSlider.set(gain);
    this.layersSlider.set(layers);
    this.change({ gain, layers }, 0);
  }

  /** A control moved: keep the state (and URL) and recompute once the reader pauses (a preset passes delayMs 0). */
  change(patch, delayMs) {
    if (patch.plain === false && !this.state.residual) patch.residual = true; // at least one curve
    if (patch.residual === false && !this.state.plain) patch.plain = true;
    this.plainBox.input.checked = patch.plain ?? this.state.plain;
    this.residualBox.input.checked = patch.residual ?? this.state.residual;
    if ((patch.variant ?? this.state.variant) === 'mlp' && this.state.width > 512) patch.width = 512;
    this.setState(patch);
    if ('gain' in patch) this.model.redraw(); // the trained model's reference line is gain^(L-l) too
    this.recomputeSoon(delayMs);
  }

  /** The toy a link names (state.model), opened once: its run, which resolves when it has ended (null: none named). */
  openLinkedModel() {
    const { model } = this.state;
    if (!this.modelOpened && model !== MODEL_CHOICES[0]) this.linkedRun = this.model.open({ toy: model });
    this.modelOpened = true;
    return this.linkedRun;
  }

  /** A link that names a toy lands on its figures (the model half), held in view until its run has ended. */
  revealLinked() {
    const ran = this.openLinkedModel();
    if (ran) keepInView(this.model.root, { until: ran });
    else super.revealLinked();
  }

  /**
   * Measures the model another widget shows (the probe's "Measure them"): { toy } or { files }, its figures held in
   * view until its run has ended.
   */
  measureModel(source) {
    this.modelOpened = true;
    const ran = this.model.show(source);
    keepInView(this.model.root, { until: ran });
    return ran;
  }

  /** Settings from a link: applied as every widget applies them; one that names a toy reveals that toy's figures. */
  applySettings(patch, { reveal }) {
    const toy = patch.model !== undefined && patch.model !== MODEL_CHOICES[0];
    super.applySettings(patch, { reveal: reveal && !toy });
    if (toy && reveal) this.revealLinked();
  }

  async compute() {
    const { layers, gain, variant, width, plain, residual, seed } = this.state;
    this.openLinkedModel(); // a link to a toy
    const base = { nLayers: layers, gain, variant, width, seed };
    const calls = [];
    if (plain) calls.push(['experiments.gradientDecay', { ...base, residual: false }]);
    if (residual) calls.push(['experiments.gradientDecay', { ...base, residual: true }]);
    const results = await this.runner.run(calls);
    if (!results) return;
    const plainNorms = plain ? results[0].gradNorms : null;
    const residualNorms = residual ? results.at(-1).gradNorms : null;
    this.draw({ layers, gain, variant, plainNorms, residualNorms });
  }

  draw({ layers, gain, variant, plainNorms, residualNorms }) {
    const s = this.strings;
    const xs = Float64Array.from({ length: layers + 1 }, (_, l) => l);
    const reference = log10OrGap(xs.map((l) => gain ** (layers - l)));
    const curve = (values) => (values ? log10OrGap(values) : Array.from(xs, () => null));
    this.chart.root.setAttribute('aria-label', s.chartLabel(layers, gain, s[variant])); // the exports' title
    this.chart.setData([xs, curve(plainNorms), curve(residualNorms), reference]);

    const items = [];
    if (plainNorms) {
      items.push(
        h(
          'li',
          { 'data-readout': 'plain' },
          s.plainRatio(layers),
          shown(plainNorms[0] / plainNorms[layers]),
          s.expected(gain, layers),
          shown(gain ** layers),
          s.closing,
        ),
      );
    }
    if (residualNorms) {
      items.push(
        h(
          'li',
          { 'data-readout': 'residual' },
          s.residualRatio,
          shown(residualNorms[0] / residualNorms[layers]),
          variant === 'linear' ? [s.residualExpected, shown((1 + gain * gain) ** (layers / 2)), s.closing] : null,
        ),
      );
    }
    this.readouts.replaceChildren(...items);

    const remarks = [];
    const chapterGain = CHAPTER_FIGURES[gain];
    if (plainNorms && variant === 'linear')
      remarks.push(chapterGain && layers === 32 ? s.chapterMatch(gain, chapterGain) : s.chapterOther);
    if (variant === 'mlp') remarks.push(s.mlpNote);
    if (residualNorms) {
      const ratio = residualNorms[0] / residualNorms[layers];
      const near = ratio <= NEAR_ONE && ratio >= 1 / NEAR_ONE;
      remarks.push(
        near
          ? s.residualFlat(formatFixed(ratio, 2), NEAR_ONE)
          : s.residualLarge(formatFactor(ratio ** (1 / layers)), formatFactor(ratio)),
      );
    }
    this.remark.textContent = remarks.join(this.common.sentenceGap);
  }

  chartOptions(color) {
    const s = this.strings;
    return {
      scales: { x: { time: false, dir: -1 } },
      axes: [
        axis(color, { label: s.layerAxis, incrs: [1, 2, 4, 8, 16, 32] }),
        axis(color, { size: 64, splits: logSplits, values: logValues }),
      ],
      series: [
        { label: 'l', value: (u, v) => (v == null ? '–' : String(v)) },
        { label: s.plain, stroke: color('vermillion'), width: 2.5, value: readout, points: { show: false } },
        { label: s.residual, stroke: color('blue'), width: 2.5, value: readout, points: { show: false } },
        { label: s.reference, stroke: color('fg'), width: 1.5, dash: [3, 6], value: readout, points: { show: false } },
      ],
      cursor: { drag: { x: false, y: false } },
    };
  }
}
