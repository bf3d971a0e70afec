// Whether a widget's results on screen still match its inputs. While a field holds an error or the last run
// failed, the results stay on screen, dimmed (data-stale) under a "last valid result" label; they are marked
// while any reason remains: a field (or another object) for an input error, a name ('run', 'model') for a failed run,
// 'settings' for a run the reader starts that has not run for the settings on screen.
import { h } from './dom.js';

export class StaleResults {
  #host;
  #reasons = new Set();
  #regions = []; // { region, label, own } from region(); own: the reason only that region answers to (or null)

  /** `host`: the widget, which carries data-stale too and gives the labels' strings (host.common). */
  constructor(host) {
    this.#host = host;
  }

  /** Marks the results as not matching the inputs for `reason`, or (stale false) withdraws that reason. */
  mark(stale, reason) {
    if (stale) this.#reasons.add(reason);
    else this.#reasons.delete(reason);
    this.#show();
  }

  get any() {
    return this.#reasons.size > 0;
  }

  /** Whether an input holds an error (a field's reason; named reasons are failed runs). */
  get inputErrors() {
    return [...this.#reasons].some((reason) => typeof reason !== 'string');
  }

  /** A container for results (tables, charts, readouts) that is dimmed and labelled while they are stale. */
  region(...children) {
    return this.ownRegion(null, ...children);
  }

  /**
   * The same for results of a run of their own: the named reason `own` (that run failed, 'model') dims them alone,
   * the other regions ignoring it; they answer besides only to the inputs' errors, not to other runs' failures.
   */
  ownRegion(own, ...children) {
    const label = h('p', { class: 'stale-label', role: 'status' }, this.#host.common.stale);
    const region = h('div', { class: 'results-region' }, label, ...children);
    this.#regions.push({ region, label, own });
    this.#show();
    return region;
  }

  /** Forgets the regions and the fields of a build that is replaced; named reasons (a failed run) stay. */
  forgetBuild() {
    this.#regions = [];
    for (const reason of this.#reasons) if (typeof reason !== 'string') this.#reasons.delete(reason);
    this.#show();
  }

  #show() {
    this.#host.toggleAttribute('data-stale', this.any);
    const owned = new Set(this.#regions.map(({ own }) => own).filter(Boolean));
    const { staleRun, staleSettings, stale: staleInputs } = this.#host.common;
    for (const { region, label, own } of this.#regions) {
      const reasons = [...this.#reasons].filter((reason) =>
        own ? reason === own || typeof reason !== 'string' : !owned.has(reason),
      );
      const stale = reasons.length > 0;
      // Failed runs alone (named reasons) hold the results back: the inputs are fine, so the label does not blame
      // them; 'settings' alone: a run the reader starts (a training) has not yet run for the settings changed.
      const settingsOnly = stale && reasons.every((reason) => reason === 'settings');
      const runOnly = stale && reasons.every((reason) => typeof reason === 'string' && reason !== 'settings');
      region.toggleAttribute('data-stale', stale);
      label.hidden = !stale;
      label.textContent = settingsOnly ? staleSettings : runOnly ? staleRun : staleInputs;
    }
  }
}
