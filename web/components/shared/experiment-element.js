// The base class of the experiment widgets: a LabElement that draws from finished worker runs of its compute()
// (each widget implements it), never from update(). computeWhenVisible() holds the first run until the widget
// comes near the viewport, so opening the chapter does not start every experiment at once; recomputeSoon()
// reruns once the settings have stood still, so dragging a slider starts one run, not one per step.
// Removing the widget cancels its run, ends its worker and its timers; inserted again, a widget whose run was
// cut short runs again when it next nears the viewport (its worker starts afresh with that run).
// The parts every experiment widget lays out the same way are here too: its header, the layer slider, the run
// state followed by the results (charts, readouts, remark), and the charts' common uPlot options.
import { LabElement } from './lab-element.js';
import { h } from './dom.js';
import { rangeField, seedControl } from './fields.js';
import { formatFixed } from './format.js';
import { uplotCssUrl } from './styles.js';
import { stringsOf } from '../../languages.js';
import { ExperimentRunner } from './experiment-runner.js';

const RECOMPUTE_DELAY_MS = 250;

/** A chart under its caption. */
export const chartFigure = (caption, chart, attributes = {}) =>
  h('figure', attributes, h('figcaption', {}, caption), chart.root);

/** A legend value: `digits` decimals, a dash for a gap. */
export const fixedValue = (digits) => (u, v) => (v == null ? '–' : formatFixed(v, digits));

/**
 * The uPlot options of an experiment chart: a numeric x scale (`x` adds to it, e.g. a log distribution), `y` when
 * given, and a cursor that reads values without drag-zooming.
 */
export const experimentChartOptions = ({ x = {}, y, axes, series }) => ({
  scales: { x: { time: false, ...x }, ...(y ? { y } : {}) },
  axes,
  series,
  cursor: { drag: { x: false, y: false } },
});

export class ExperimentElement extends LabElement {
  static styles = [new URL('./experiment.css', import.meta.url), uplotCssUrl()];
  static charts = true; // line charts: their colours are read before the build (LabElement)

  #runner = null;
  #nearViewport = false;
  #recomputeTimer = 0;
  #autoCompute = false; // computeWhenVisible was called: this widget computes by itself
  #owesRun = false; // a run is due the next time the widget nears the viewport
  #viewport = null; // the IntersectionObserver waiting for that

  /** The run state shown in the widget (runner.js): place runner.root in build(), call runner.run in compute(). */
  get runner() {
    this.#runner ??= new ExperimentRunner({ host: this, language: this.language });
    return this.#runner;
  }

  connectedCallback() {
    super.connectedCallback();
    this.#watchViewport();
  }

  disconnectedCallback() {
    super.disconnectedCallback();
    this.#viewport?.disconnect();
    this.#viewport = null;
    if (this.#recomputeTimer || this.#runner?.busy) this.#owesRun = true;
    this.cancelRecompute();
    this.#runner?.stop();
  }

  update() {} // nothing to draw until a run finishes (compute)

  /**
   * Computes the first time the widget nears the viewport. Requests before that are dropped: that first run
   * reads the latest settings.
   */
  computeWhenVisible() {
    this.#autoCompute = true;
    this.#owesRun = true;
    this.#watchViewport();
  }

  #watchViewport() {
    if (!this.#autoCompute || !this.#owesRun || this.#viewport || !this.isConnected) return;
    this.#viewport = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        this.#viewport.disconnect();
        this.#viewport = null;
        this.#nearViewport = true;
        this.#owesRun = false;
        this.recomputeNow();
      },
      { rootMargin: '100% 0px' },
    );
    this.#viewport.observe(this);
  }

  /**
   * For printing: once the widget is drawn, starts a first run that still waits for the viewport, and resolves
   * when no run of this widget is under way (or after `timeoutMs`). A widget that runs only on its button is left
   * as it is.
   */
  async computeForPrint(timeoutMs = 60000) {
    const end = Date.now() + timeoutMs;
    const until = async (check) => {
      while (!check() && this.isConnected && Date.now() < end) await new Promise((done) => setTimeout(done, 100));
    };
    await until(() => this.hasAttribute('data-ready'));
    if (this.#autoCompute && this.#owesRun && this.isConnected) {
      this.#viewport?.disconnect();
      this.#viewport = null;
      this.#nearViewport = true;
      this.#owesRun = false;
      this.recomputeNow();
    }
    if (this.#autoCompute) await until(() => this.dataset.status === 'done' || this.dataset.status === 'error');
  }

  recomputeNow() {
    this.cancelRecompute();
    if (this.#nearViewport && this.isConnected) this.compute();
  }

  /** Recomputes once the settings have stood still for `delayMs`. */
  recomputeSoon(delayMs = RECOMPUTE_DELAY_MS) {
    this.cancelRecompute();
    if (this.isConnected) this.#recomputeTimer = setTimeout(() => this.recomputeNow(), delayMs);
  }

  cancelRecompute() {
    clearTimeout(this.#recomputeTimer);
    this.#recomputeTimer = 0;
  }

  /** The heading: strings.title, strings.hint and a link to the chapter's section `sectionId` (when on the page). */
  experimentHeader(sectionId) {
    const s = this.strings;
    return h(
      'header',
      { class: 'widget-header' },
      h('h3', {}, s.title),
      h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink(sectionId, s.sectionLink)),
    );
  }

  /** The slider of state row 'layers' (this.control), over the row's bounds. */
  layersField() {
    return this.control('layers', { field: rangeField, ...this.bounds('layers'), step: 1 });
  }

  /**
   * The run state, then a results region (LabElement.resultsRegion) holding `results` (the charts), this.readouts
   * (a list the widget fills with its readouts) and this.remark (what the measurement says).
   */
  experimentResults(...results) {
    this.readouts = h('ul', { class: 'readouts' });
    this.remark = h('p', { class: 'remark' });
    return [this.runner.root, this.resultsRegion(...results, this.readouts, this.remark)];
  }

  /** The seed control (fields.js seedControl) with the experiment widgets' labels and bound; by default a seed is a change. */
  experimentSeedControl(onChange = (seed) => this.change({ seed })) {
    const s = stringsOf(this.language, 'run');
    return seedControl(this, { label: s.seed, anotherLabel: s.anotherSeed, max: this.row('seed').max, onChange });
  }
}
