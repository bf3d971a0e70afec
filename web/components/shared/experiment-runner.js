// Runs one widget's experiment calls in its own lab worker (web/lib/worker-client.js) and shows the run's
// state: an indeterminate or step-counted <progress>, a status line, a Cancel button, and errors inline.
// A new run cancels the one in flight (the worker is terminated and restarted, the only way to stop a
// synchronous WASM call), so the result on screen always belongs to the latest settings.
// The host element gets data-status = running | done | cancelled | error, for pages and tests to wait on; a
// failed run marks the host's results stale (LabElement.markStale) until a run succeeds.
// The warmup race's four training runs are independent: where the machine has the cores, they are split over
// several workers of this widget (splitWarmupOptions) and merged into the one result (and partial results) the
// widget would have had from one worker.
import { mergeWarmupResults, splitWarmupOptions } from '../../lib/experiments.js';
import { stringsOf } from '../../languages.js';
import { createLabWorker } from '../../lib/worker-client.js';
import { h } from './dom.js';

/** Workers a splittable call may use: the cores the browser reports, at most the race's four runs. */
const parallelWorkers = () => Math.max(1, Math.min(4, Number(globalThis.navigator?.hardwareConcurrency) || 1));

// Calls that split into independent parts, and how their results merge.
const SPLITTABLE = {
  'experiments.warmup': { split: splitWarmupOptions, merge: mergeWarmupResults },
};

const SHOW_PROGRESS_AFTER_MS = 100;

/**
 * The run state of one widget: `root` to place in it, `run(calls, { onPartial })`, `cancel()`, `stop()`, `busy`.
 * `host` is the widget (its data-status is set), `language` a language code (its text: content/<lang>/strings/run.js).
 */
export class ExperimentRunner {
  /** The run state's elements: progress, status line, Cancel, the error and Retry. */
  root;
  #host;
  #strings;
  #progress;
  #status;
  #error;
  #cancelButton;
  #retryButton;
  #workers = []; // workers[0] runs every call
  #helpers = new Set(); // the extra workers of split calls in flight: each belongs to its call alone
  #controller = null;
  #generation = 0;
  #showTimer = 0;
  #partialShown = null; // { stepsDone, stepsTotal } of the partial result on screen, while a run is going
  #starter = null; // the control that had focus when the run started (a Run button, a slider)

  constructor({ host, language }) {
    const s = stringsOf(language, 'run');
    this.#host = host;
    this.#strings = s;
    this.#progress = h('progress', { class: 'run-progress', 'aria-label': s.running, hidden: true });
    this.#status = h('p', { class: 'run-status', role: 'status', 'aria-live': 'polite' });
    this.#error = h('p', { class: 'run-error', role: 'alert' });
    this.#cancelButton = h(
      'button',
      { type: 'button', class: 'run-cancel', hidden: true, onclick: () => this.cancel() },
      s.cancel,
    );
    // After a failed run: the widget's own compute() runs the same settings again.
    this.#retryButton = h(
      'button',
      { type: 'button', class: 'run-retry', hidden: true, onclick: () => host.compute?.() },
      s.retry,
    );
    this.root = h(
      'div',
      { class: 'run-state' },
      h('div', { class: 'run-row' }, this.#progress, this.#status, this.#cancelButton),
      this.#error,
      this.#retryButton,
    );
  }

  get busy() {
    return this.#controller !== null;
  }

  /**
   * Runs `calls`: [[method, options], ...], or a function (worker) => Promise for a call that needs more than one
   * method (its own handles, disposed by it). Resolves to the array of results, or to null when the run was refused
   * (a field holds an error), cancelled, replaced by a newer run, or failed (the message shows). `onPartial(partial)` (optional) gets the
   * result so far with every progress report that carries one (experiments.warmup does), so the widget can draw it
   * while the run goes on.
   */
  async run(calls, { onPartial } = {}) {
    const s = this.#strings;
    const host = this.#host;
    if (host.inputsInvalid) {
      // What would run is not what the fields show; the result on screen (and a run in flight) stay.
      this.#error.textContent = s.fixInputs;
      return null;
    }
    this.#abortRun();
    this.#partialShown = null;
    const focused = host.shadowRoot?.activeElement;
    if (focused && focused !== this.#cancelButton) this.#starter = focused;
    const mine = ++this.#generation;
    this.#controller = new AbortController();
    const { signal } = this.#controller;
    host.dataset.status = 'running';
    this.#error.textContent = '';
    this.#retryButton.hidden = true;
    this.#progress.removeAttribute('value');
    this.#setBusy(true);
    const started = performance.now();
    const onProgress = ({ stepsDone, stepsTotal, partial }) => {
      if (mine !== this.#generation) return;
      this.#progress.max = stepsTotal;
      this.#progress.value = stepsDone;
      // The time left from this run's own pace (a machine's speed varies tenfold: no fixed promise).
      const elapsed = performance.now() - started;
      const left =
        stepsDone > 0 && stepsDone < stepsTotal && elapsed > 1000
          ? Math.ceil(((elapsed / stepsDone) * (stepsTotal - stepsDone)) / 1000)
          : 0;
      this.#status.textContent = s.steps(stepsDone, stepsTotal) + (left ? s.left(left) : '');
      if (partial && onPartial) {
        onPartial(partial);
        this.#partialShown = { stepsDone, stepsTotal };
      }
    };
    try {
      const results = [];
      for (const call of calls)
        results.push(
          typeof call === 'function'
            ? await call(this.#workerAt(0))
            : await this.#dispatch(call[0], call[1], { onProgress, signal }),
        );
      if (mine !== this.#generation) return null;
      this.#partialShown = null;
      this.#setBusy(false);
      this.#status.textContent = s.took(performance.now() - started);
      host.dataset.status = 'done';
      host.markStale?.(false, 'run');
      return results;
    } catch (failure) {
      if (mine !== this.#generation) return null;
      this.#setBusy(false);
      if (failure?.name === 'AbortError') return null;
      this.#status.textContent = '';
      const workerStopped = failure?.code === 'worker_failed';
      this.#error.textContent = workerStopped
        ? s.workerFailed(failure.detail)
        : s.failed(failure?.message ?? String(failure));
      this.#retryButton.hidden = false;
      host.dataset.status = 'error';
      host.markStale?.(true, 'run'); // what is on screen came from an earlier run
      return null;
    } finally {
      if (mine === this.#generation) this.#controller = null;
    }
  }

  /** The reader's Cancel: the run stops, and the status says so (with the steps of a partial result shown). */
  cancel() {
    const s = this.#strings;
    this.#abortRun();
    this.#generation += 1;
    this.#setBusy(false);
    this.#status.textContent = this.#partialShown
      ? s.cancelledPartial(this.#partialShown.stepsDone, this.#partialShown.stepsTotal)
      : s.cancelled;
    this.#host.dataset.status = 'cancelled';
  }

  /**
   * For a widget leaving the page: ends everything the runner started (the run, its workers, the progress timer);
   * the next run starts afresh.
   */
  stop() {
    const wasBusy = this.#controller !== null;
    this.#generation += 1;
    this.#abortRun();
    for (const worker of [...this.#workers, ...this.#helpers]) worker?.terminate();
    this.#workers = [];
    this.#helpers.clear();
    this.#setBusy(false);
    this.#partialShown = null;
    if (wasBusy) {
      this.#status.textContent = this.#strings.cancelled;
      this.#host.dataset.status = 'cancelled';
    }
  }

  #abortRun() {
    this.#controller?.abort();
    this.#controller = null;
  }

  // The Cancel button hides when the run ends: if it had focus, focus goes back to the control that started the
  // run (or to the status line), never to <body>.
  #handBackFocus() {
    if (this.#cancelButton.getRootNode().activeElement !== this.#cancelButton) return;
    const starter = this.#starter;
    const usable = starter?.isConnected && !starter.disabled && !starter.closest('[hidden]');
    if (usable) starter.focus();
    else {
      this.#status.tabIndex = -1;
      this.#status.focus();
    }
  }

  #setBusy(busy) {
    clearTimeout(this.#showTimer);
    if (!busy) this.#handBackFocus();
    if (busy) {
      // Quick runs never flash a progress bar.
      this.#showTimer = setTimeout(() => {
        this.#progress.hidden = false;
        this.#cancelButton.hidden = false;
        this.#status.textContent = this.#strings.running;
      }, SHOW_PROGRESS_AFTER_MS);
    } else {
      this.#progress.hidden = true;
      this.#cancelButton.hidden = true;
    }
  }

  #workerAt(i) {
    return (this.#workers[i] ??= createLabWorker());
  }

  #helperWorker() {
    const helper = createLabWorker();
    this.#helpers.add(helper);
    return helper;
  }

  /** One call on the first worker, or its parts over several with their progress and results merged. */
  async #dispatch(method, options, { onProgress, signal }) {
    const splittable = SPLITTABLE[method];
    const parts = splittable && parallelWorkers() > 1 ? splittable.split(options, parallelWorkers()) : [options];
    if (parts.length === 1) return this.#workerAt(0).call(method, [parts[0]], { onProgress, signal });
    // One part failing stops the others (their workers are terminated, like a cancelled run's).
    const partsController = new AbortController();
    const stopParts = () => partsController.abort();
    signal.addEventListener('abort', stopParts, { once: true });
    // The parts beyond the first run on workers of this call's own: a newer run never inherits one, so ending
    // them below cannot cut off its calls.
    const used = parts.map((_, i) => (i === 0 ? this.#workerAt(0) : this.#helperWorker()));
    const latest = parts.map(() => null);
    const partProgress = (i) => (report) => {
      latest[i] = report;
      if (latest.some((r) => r === null)) return;
      const partials = latest.map((r) => r.partial);
      onProgress({
        stepsDone: Math.min(...latest.map((r) => r.stepsDone)),
        stepsTotal: latest[0].stepsTotal,
        partial: partials.every(Boolean) ? splittable.merge(partials) : undefined,
      });
    };
    try {
      const results = await Promise.all(
        used.map((worker, i) =>
          worker.call(method, [parts[i]], { onProgress: partProgress(i), signal: partsController.signal }),
        ),
      );
      return splittable.merge(results);
    } catch (failure) {
      stopParts();
      throw failure;
    } finally {
      signal.removeEventListener('abort', stopParts);
      for (const helper of used.slice(1)) {
        // between runs a widget keeps one worker
        helper.terminate();
        this.#helpers.delete(helper);
      }
    }
  }
}
