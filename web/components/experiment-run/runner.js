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
import { h } from '../shared/dom.js';

/** Workers a splittable call may use: the cores the browser reports, at most the race's four runs. */
const parallelWorkers = () => Math.max(1, Math.min(4, Number(globalThis.navigator?.hardwareConcurrency) || 1));

// Calls that split into independent parts, and how their results merge.
const SPLITTABLE = {
  'experiments.warmup': { split: splitWarmupOptions, merge: mergeWarmupResults },
};

const SHOW_PROGRESS_AFTER_MS = 100;

/**
 * `host` is the widget (its data-status is set), `language` a language code (its text: content/<lang>/strings/run.js).
 * Returns { root, run(calls, { onPartial }), cancel(), stop(), busy }: `calls` is [[method, options], ...], or a
 * function (worker) => Promise for a call that needs more than one method (its own handles, disposed by it); run
 * resolves to the array of results, or to null when the run was cancelled, replaced by a newer run, or failed
 * (the message shows). stop() is for a widget leaving the page: it also terminates the worker.
 */
export function experimentRunner({ host, language }) {
  const s = stringsOf(language, 'run');
  const progress = h('progress', { class: 'run-progress', 'aria-label': s.running, hidden: true });
  const status = h('p', { class: 'run-status', role: 'status', 'aria-live': 'polite' });
  const error = h('p', { class: 'run-error', role: 'alert' });
  const cancelButton = h(
    'button',
    { type: 'button', class: 'run-cancel', hidden: true, onclick: () => cancel(true) },
    s.cancel,
  );
  // After a failed run: the widget's own compute() runs the same settings again.
  const retryButton = h(
    'button',
    { type: 'button', class: 'run-retry', hidden: true, onclick: () => host.compute?.() },
    s.retry,
  );
  const root = h(
    'div',
    { class: 'run-state' },
    h('div', { class: 'run-row' }, progress, status, cancelButton),
    error,
    retryButton,
  );

  let workers = []; // workers[0] runs every call
  const helpers = new Set(); // the extra workers of split calls in flight: each belongs to its call alone
  let controller = null;
  let generation = 0;
  let showTimer = 0;
  let partialShown = null; // { stepsDone, stepsTotal } of the partial result on screen, while a run is going
  let starter = null; // the control that had focus when the run started (a Run button, a slider)

  // The Cancel button hides when the run ends: if it had focus, focus goes back to the control that started the
  // run (or to the status line), never to <body>.
  function handBackFocus() {
    if (cancelButton.getRootNode().activeElement !== cancelButton) return;
    const usable = starter?.isConnected && !starter.disabled && !starter.closest('[hidden]');
    if (usable) starter.focus();
    else {
      status.tabIndex = -1;
      status.focus();
    }
  }

  function setBusy(busy) {
    clearTimeout(showTimer);
    if (!busy) handBackFocus();
    if (busy) {
      // Quick runs never flash a progress bar.
      showTimer = setTimeout(() => {
        progress.hidden = false;
        cancelButton.hidden = false;
        status.textContent = s.running;
      }, SHOW_PROGRESS_AFTER_MS);
    } else {
      progress.hidden = true;
      cancelButton.hidden = true;
    }
  }

  function cancel(byReader = false) {
    controller?.abort();
    controller = null;
    if (byReader) {
      generation += 1;
      setBusy(false);
      status.textContent = partialShown
        ? s.cancelledPartial(partialShown.stepsDone, partialShown.stepsTotal)
        : s.cancelled;
      host.dataset.status = 'cancelled';
    }
  }

  /**
   * `onPartial(partial)` (optional) gets the result so far with every progress report that carries one
   * (experiments.warmup does), so the widget can draw it while the run goes on.
   */
  async function run(calls, { onPartial } = {}) {
    cancel();
    partialShown = null;
    const focused = host.shadowRoot?.activeElement;
    if (focused && focused !== cancelButton) starter = focused;
    const mine = ++generation;
    controller = new AbortController();
    const { signal } = controller;
    host.dataset.status = 'running';
    error.textContent = '';
    retryButton.hidden = true;
    progress.removeAttribute('value');
    setBusy(true);
    const started = performance.now();
    const onProgress = ({ stepsDone, stepsTotal, partial }) => {
      if (mine !== generation) return;
      progress.max = stepsTotal;
      progress.value = stepsDone;
      // The time left from this run's own pace (a machine's speed varies tenfold: no fixed promise).
      const elapsed = performance.now() - started;
      const left =
        stepsDone > 0 && stepsDone < stepsTotal && elapsed > 1000
          ? Math.ceil(((elapsed / stepsDone) * (stepsTotal - stepsDone)) / 1000)
          : 0;
      status.textContent = s.steps(stepsDone, stepsTotal) + (left ? s.left(left) : '');
      if (partial && onPartial) {
        onPartial(partial);
        partialShown = { stepsDone, stepsTotal };
      }
    };
    try {
      const results = [];
      for (const call of calls)
        results.push(
          typeof call === 'function'
            ? await call(workerAt(0))
            : await dispatch(call[0], call[1], { onProgress, signal }),
        );
      if (mine !== generation) return null;
      partialShown = null;
      setBusy(false);
      status.textContent = s.took(performance.now() - started);
      host.dataset.status = 'done';
      host.markStale?.(false, 'run');
      return results;
    } catch (failure) {
      if (mine !== generation) return null;
      setBusy(false);
      if (failure?.name === 'AbortError') return null;
      status.textContent = '';
      const workerStopped = failure?.code === 'worker_failed';
      error.textContent = workerStopped
        ? s.workerFailed(failure.detail)
        : s.failed(failure?.message ?? String(failure));
      retryButton.hidden = false;
      host.dataset.status = 'error';
      host.markStale?.(true, 'run'); // what is on screen came from an earlier run
      return null;
    } finally {
      if (mine === generation) controller = null;
    }
  }

  const workerAt = (i) => (workers[i] ??= createLabWorker());
  const helperWorker = () => {
    const helper = createLabWorker();
    helpers.add(helper);
    return helper;
  };

  /** One call on the first worker, or its parts over several with their progress and results merged. */
  async function dispatch(method, options, { onProgress, signal }) {
    const splittable = SPLITTABLE[method];
    const parts = splittable && parallelWorkers() > 1 ? splittable.split(options, parallelWorkers()) : [options];
    if (parts.length === 1) return workerAt(0).call(method, [parts[0]], { onProgress, signal });
    // One part failing stops the others (their workers are terminated, like a cancelled run's).
    const partsController = new AbortController();
    const stopParts = () => partsController.abort();
    signal.addEventListener('abort', stopParts, { once: true });
    // The parts beyond the first run on workers of this call's own: a newer run never inherits one, so ending
    // them below cannot cut off its calls.
    const used = parts.map((_, i) => (i === 0 ? workerAt(0) : helperWorker()));
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
        helpers.delete(helper);
      }
    }
  }

  /** Ends everything the runner started (the run, its worker, the progress timer); the next run starts afresh. */
  function stop() {
    const wasBusy = controller !== null;
    generation += 1;
    controller?.abort();
    controller = null;
    for (const worker of [...workers, ...helpers]) worker?.terminate();
    workers = [];
    helpers.clear();
    setBusy(false);
    partialShown = null;
    if (wasBusy) {
      status.textContent = s.cancelled;
      host.dataset.status = 'cancelled';
    }
  }

  return {
    root,
    run,
    cancel: () => cancel(true),
    stop,
    get busy() {
      return controller !== null;
    },
  };
}

/** A labelled <select> of numbers; onChange gets the number. */
export function numberSelect({ name, label, options, value, format = String, onChange }) {
  const id = `field-${name}`;
  // A value set by a link or an attribute may lie between the offered choices: it joins them, in order.
  const shown = options.includes(value) ? options : [...options, value].sort((a, b) => a - b);
  const select = h(
    'select',
    { id, name, onchange: () => onChange(Number(select.value)) },
    shown.map((option) => h('option', { value: String(option) }, format(option))),
  );
  select.value = String(value);
  return { root: h('div', { class: 'field' }, h('label', { for: id }, label), select), select };
}

/** A labelled checkbox; onChange gets the boolean. */
export function checkbox({ name, label, checked, onChange }) {
  const id = `field-${name}`;
  const input = h('input', { id, name, type: 'checkbox', onchange: () => onChange(input.checked) });
  input.checked = checked;
  return { root: h('label', { class: 'check', for: id }, input, label), input };
}
