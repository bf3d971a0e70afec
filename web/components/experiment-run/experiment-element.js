// The base class of the experiment widgets: a LabElement that draws from finished worker runs of its compute()
// (each widget implements it), never from update(). computeWhenVisible() holds the first run until the widget
// comes near the viewport, so opening the chapter does not start every experiment at once; recomputeSoon()
// reruns once the settings have stood still, so dragging a slider starts one run, not one per step.
import { LabElement } from '../shared/lab-element.js';
import { uplotCssUrl } from '../shared/styles.js';
import { RUN_STRINGS, experimentRunner } from './runner.js';

const RECOMPUTE_DELAY_MS = 250;
const MAX_SEED = 1e9;  // the bound of every experiment widget's `seed` state row

/** Calls `start()` the first time `element` comes within a screen of the viewport. */
function whenNearViewport(element, start) {
  const observer = new IntersectionObserver((entries) => {
    if (!entries.some((entry) => entry.isIntersecting)) return;
    observer.disconnect();
    start();
  }, { rootMargin: '100% 0px' });
  observer.observe(element);
}

export class ExperimentElement extends LabElement {
  static styles = ['experiment.css', uplotCssUrl()];

  #runner = null;
  #nearViewport = false;
  #recomputeTimer = 0;

  /** The run state shown in the widget (runner.js): place runner.root in build(), call runner.run in compute(). */
  get runner() {
    this.#runner ??= experimentRunner({ host: this, language: this.language });
    return this.#runner;
  }

  update() {}  // nothing to draw until a run finishes (compute)

  /**
   * Computes the first time the widget nears the viewport. Requests before that are dropped: that first run
   * reads the latest settings.
   */
  computeWhenVisible() {
    whenNearViewport(this, () => {
      this.#nearViewport = true;
      this.recomputeNow();
    });
  }

  recomputeNow() {
    this.cancelRecompute();
    if (this.#nearViewport) this.compute();
  }

  /** Recomputes once the settings have stood still for `delayMs`. */
  recomputeSoon(delayMs = RECOMPUTE_DELAY_MS) {
    this.cancelRecompute();
    this.#recomputeTimer = setTimeout(() => this.recomputeNow(), delayMs);
  }

  cancelRecompute() {
    clearTimeout(this.#recomputeTimer);
  }

  /** The seed control (LabElement.seedControl) with the experiment widgets' labels and bound. */
  experimentSeedControl(onChange) {
    const s = RUN_STRINGS[this.language] ?? RUN_STRINGS.en;
    return this.seedControl({ label: s.seed, anotherLabel: s.anotherSeed, max: MAX_SEED, onChange });
  }
}
