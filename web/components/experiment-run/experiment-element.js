// The base class of the experiment widgets: a LabElement that draws from finished worker runs of its compute()
// (each widget implements it), never from update(). computeWhenVisible() holds the first run until the widget
// comes near the viewport, so opening the chapter does not start every experiment at once; recomputeSoon()
// reruns once the settings have stood still, so dragging a slider starts one run, not one per step.
// Removing the widget cancels its run, ends its worker and its timers; inserted again, a widget whose run was
// cut short runs again when it next nears the viewport (its worker starts afresh with that run).
import { LabElement } from '../shared/lab-element.js';
import { uplotCssUrl } from '../shared/styles.js';
import { stringsOf } from '../../languages.js';
import { experimentRunner } from './runner.js';

const RECOMPUTE_DELAY_MS = 250;

export class ExperimentElement extends LabElement {
  static styles = ['experiment.css', uplotCssUrl()];
  static charts = true; // line charts: their colours are read before the build (LabElement)

  #runner = null;
  #nearViewport = false;
  #recomputeTimer = 0;
  #autoCompute = false; // computeWhenVisible was called: this widget computes by itself
  #owesRun = false; // a run is due the next time the widget nears the viewport
  #viewport = null; // the IntersectionObserver waiting for that

  /** The run state shown in the widget (runner.js): place runner.root in build(), call runner.run in compute(). */
  get runner() {
    this.#runner ??= experimentRunner({ host: this, language: this.language });
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

  /** The seed control (LabElement.seedControl) with the experiment widgets' labels and bound. */
  experimentSeedControl(onChange) {
    const s = stringsOf(this.language, 'run');
    return this.seedControl({ label: s.seed, anotherLabel: s.anotherSeed, max: this.row('seed').max, onChange });
  }
}
