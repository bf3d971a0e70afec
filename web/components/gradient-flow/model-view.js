// The model half of <rl-gradient-flow>: the same measurement on a trained model instead of a random stack. A
// shipped toy, the reader's files or a model stored from the Hub (the probe's "fetch a model" panel stores them) is
// opened in a lab worker of its own and ckpt.gradients runs once over its text, with progress and cancel. Drawn on
// the widget's log axis, 1 at the top: the gradient with the skips (streamGrads) and with every skip above a layer
// removed from the backward pass (branchOnly), beside gain^(L−l) for the widget's gain; and the branch gains.
import { h } from '../shared/dom.js';
import { formatFixed, formatScientific } from '../shared/format.js';
import { describeError } from '../shared/i18n.js';
import { log10OrGap, logSplits, logValues, shownScientific as shown } from '../shared/log-axis.js';
import { axis, lineChart } from '../shared/line-chart.js';
import { chartFigure, experimentChartOptions } from '../shared/experiment-element.js';
import { TOY_NAMES } from '../shared/toys.js';
import { createLabWorker } from '../../lib/worker-client.js';
import { storedCheckpoints } from '../../lib/hub/fetch.js';
import { stringsOf } from '../../languages.js';
import { gradientSummary, sourceFiles, sourceIds } from './model-gradients.js';

const NONE = 'none';
export const MODEL_CHOICES = [NONE, ...TOY_NAMES];

/**
 * Builds the panel for `host` (the widget): `gain()` reads the widget's gain; `onToy(name)` keeps the toy chosen in
 * the widget's state. Returns { root, open(source), show(source), redraw() }: open({ toy }), open({ files }) or
 * open({ stored }) (each resolves when its run has ended); show(source) also sets the menu as the reader's choice
 * would; redraw() follows the widget's gain.
 */
export function modelPanel(host, { gain, onToy }) {
  const s = host.strings;
  const probe = stringsOf(host.language, 'rl-checkpoint-probe'); // the toys' names and the chapter's prompt
  let worker = null;
  let generation = 0;
  let last = null; // the last run drawn, { summary, source, tokens }: redrawn when the gain moves
  const view = panelView(host, probe, {
    choose,
    open: (source) => show(source),
    cancel: () => cancel({ backToShown: true }),
    showStored: () => showStored(),
  });
  const { progress, status } = view;
  // made with the first figures: an empty chart would stand on paper as a figure not yet computed
  let chart = null;
  const stale = (on) => host.markStale(on, 'model');
  stale(false); // a new panel (the widget rebuilt) shows no figures yet

  function choose(name) {
    onToy(name);
    if (name !== NONE) open({ toy: name });
    else if (!view.cancelButton.hidden) cancel(); // 'none' stops a run under way; figures drawn stay
  }

  function busy(on) {
    view.cancelButton.hidden = !on;
    if (on) {
      progress.removeAttribute('value');
      view.runRow.prepend(progress);
    } else progress.remove();
  }

  // backToShown: the menu names the toy drawn again (none: files or no figures); choosing the cancelled one starts it
  function cancel({ backToShown = false } = {}) {
    generation += 1;
    worker?.terminate();
    worker = null;
    busy(false);
    status.textContent = s.modelCancelled;
    host.dataset.modelStatus = 'cancelled';
    if (backToShown) choice(last?.source.toy ?? NONE);
  }

  async function open(source) {
    const mine = ++generation;
    const current = () => mine === generation;
    view.showError('');
    host.dataset.modelStatus = 'running';
    busy(true);
    let handle = null;
    try {
      worker ??= createLabWorker();
      const files = await sourceFiles(source, (done, total) => {
        if (!current()) return;
        if (total) Object.assign(progress, { max: total, value: done });
        status.textContent = s.modelReading(done, total);
      });
      if (!current()) return;
      status.textContent = s.modelOpening;
      handle = await worker.call('openCheckpoint', [files]);
      const ids = await sourceIds(handle, source, files, probe.chapterPrompt);
      if (!current()) return;
      status.textContent = s.modelRunning(ids.length);
      const started = performance.now();
      const result = await handle.gradients(ids, {
        onProgress: (step) => current() && showPass(view, s, step),
      });
      if (!current()) return;
      last = { summary: gradientSummary(result), source, tokens: ids.length };
      draw();
      busy(false);
      status.textContent = s.modelTook(performance.now() - started);
      host.dataset.modelStatus = 'done';
      stale(false);
    } catch (failure) {
      if (!current()) return;
      busy(false);
      status.textContent = '';
      view.showError(s.modelFailed(describeError(failure, host.language)));
      host.dataset.modelStatus = 'error';
      stale(true); // the last figures stay, dimmed
    } finally {
      handle?.dispose().catch(() => {});
    }
  }

  /** Draws the last result; the dashed line follows the widget's gain. */
  function draw() {
    if (!last) return;
    const g = gain();
    const name = sourceLabel(probe, last.source);
    const label = s.modelChartLabel(name, g); // an exported PNG, SVG or CSV names the model and the gain
    if (!chart) view.results.prepend(chartFigure(s.modelChartTitle, (chart = modelChart(host, label))));
    chart.root.setAttribute('aria-label', label);
    chart.setData(chartData(last.summary, g));
    drawFigures(view, s, { ...last, name }, g);
  }

  const showStored = storedLister(view, s, show);
  showStored();
  host.whileConnected(() => () => {
    generation += 1;
    worker?.terminate();
    worker = null;
  });
  /** A source as the reader's choice here opens it: a toy chosen in the menu; files or a stored model, no toy. */
  function show(source) {
    choice(source.toy ?? NONE);
    return open(source);
  }

  /** The menu set to `toy`, and the state, so that a copied link names what is measured. */
  function choice(toy) {
    view.select.value = toy;
    onToy(toy);
  }

  return { root: view.root, open, show, redraw: draw };
}

/**
 * The models this browser stores (the probe's fetch panel adds them), each with a button that opens it: listed
 * again when the reader comes to the panel, redrawn only when the list changed (a focused button stays).
 */
function storedLister(view, s, open) {
  let listed = null;
  return async function showStored() {
    const models = await storedCheckpoints().catch(() => []);
    const key = models.map((m) => `${m.repo}@${m.commit}`).join(' ');
    if (key === listed) return;
    listed = key;
    view.stored.replaceChildren(
      ...models.map((m) =>
        h(
          'li',
          { 'data-repo': m.repo },
          `${m.repo} `,
          h('button', { type: 'button', onclick: () => open({ stored: m }) }, s.modelOpenStored),
        ),
      ),
    );
    view.stored.hidden = !models.length;
  };
}

/**
 * The panel's elements: the model picker, the file input and the stored models (`on.choose(name)`,
 * `on.open(source)`), the run row (progress, status, `on.cancel()`), the error and the results.
 */
function panelView(host, probe, on) {
  const s = host.strings;
  const select = h(
    'select',
    { id: 'field-model', name: 'model', onchange: () => on.choose(select.value) },
    MODEL_CHOICES.map((name) =>
      h(
        'option',
        { value: name, selected: name === host.state.model },
        name === NONE ? s.modelNone : (probe.toyLabels[name] ?? name),
      ),
    ),
  );
  const fileInput = h('input', {
    id: 'field-model-files',
    type: 'file',
    multiple: true,
    accept: '.json,.safetensors,.gguf',
    onchange: () => fileInput.files.length && on.open({ files: [...fileInput.files] }),
  });
  const view = {
    select,
    stored: h('ul', { class: 'stored-models', 'data-stored': '' }),
    // in the page only while a run goes on: the widget's own run state keeps the one progress bar otherwise
    progress: h('progress', { 'aria-label': s.modelProgressLabel }),
    cancelButton: h('button', { type: 'button', hidden: true, onclick: () => on.cancel() }, s.modelCancel),
    status: h('p', { 'aria-live': 'polite', 'data-model-run': '' }),
    // hidden while empty: the widget's own run error stays the one alert on screen
    error: h('p', { class: 'error', role: 'alert', hidden: true, 'data-model-error': '' }),
    readouts: h('ul', { class: 'readouts', 'data-model-readouts': '' }),
    // named by its caption in the share menu's list of exports
    gainsTable: h('table', { 'data-branch-gains': '', hidden: true, 'aria-labelledby': 'gains-caption' }),
    gainsNote: h('p', { class: 'hint', hidden: true }, s.gainsNote),
  };
  view.showError = (message) => {
    view.error.textContent = message;
    view.error.hidden = !message;
  };
  // dimmed while a later model run has failed (reason 'model', which leaves the random stack's results as they are),
  // and with the widget's other results while an input is invalid: the last figures
  view.results = h('div', { hidden: true, 'data-model-results': '' }, view.readouts, view.gainsTable, view.gainsNote);
  view.runRow = h('div', { class: 'fetch-row' }, view.status, view.cancelButton);
  view.root = h(
    'section',
    {
      class: 'model-gradients',
      'data-reveal': '',
      'aria-labelledby': 'model-title',
      onpointerenter: () => on.showStored(),
      onfocusin: () => on.showStored(),
    },
    h('h4', { id: 'model-title' }, s.modelTitle),
    h('p', { class: 'hint' }, s.modelHint),
    h(
      'div',
      { class: 'inputs' },
      h('div', { class: 'field' }, h('label', { for: 'field-model' }, s.model), select),
      h('div', { class: 'field' }, h('label', { for: 'field-model-files' }, s.modelFiles), fileInput),
    ),
    view.stored,
    view.runRow,
    view.error,
    host.ownResultsRegion('model', view.results),
  );
  return view;
}

/** A step of ckpt.gradients on the progress bar: the forward's layers fill its first half, the backward's the second. */
function showPass({ progress, status }, s, { pass, layer, layers }) {
  const part = layers ? layer / layers : 0;
  const done = pass === 'backward' ? 0.5 + part / 2 : part / 2;
  Object.assign(progress, { max: 1, value: done });
  status.textContent = s.modelProgress(Math.round(100 * done));
}

function sourceLabel(probe, source) {
  if (source.toy) return probe.toyLabels[source.toy] ?? source.toy; // the short name: modelWhat gives the layers
  if (source.stored) return source.stored.repo;
  return source.files.map((f) => f.name).join(', ');
}

/** The chart's columns for gain g: stream points i = 0 .. L, both gradients and g^(L−i), as log10. */
function chartData({ layers: L, stream, branchOnly }, g) {
  const xs = Float64Array.from({ length: L + 1 }, (_, i) => i);
  return [xs, log10OrGap(stream), log10OrGap(branchOnly), log10OrGap(xs.map((i) => g ** (L - i)))];
}

/** The chart of the model's gradients, on the widget's log axis; `label` names what it shows. */
function modelChart(host, label) {
  const s = host.strings;
  return lineChart({
    host,
    label,
    height: 240,
    log10: true,
    quantity: s.quantity,
    build: (color) =>
      experimentChartOptions({
        x: { dir: -1 },
        axes: [
          axis(color, { label: s.modelLayerAxis, incrs: [1, 2, 4, 8, 16] }),
          axis(color, { size: 64, splits: logSplits, values: logValues }),
        ],
        series: [
          { label: 'i', value: (u, v) => (v == null ? '–' : String(v)) },
          { label: s.modelStream, stroke: color('blue'), width: 2.5, value: readout },
          { label: s.modelBranchOnly, stroke: color('vermillion'), width: 2.5, value: readout },
          {
            label: s.reference,
            stroke: color('fg'),
            width: 1.5,
            dash: [3, 6],
            value: readout,
            points: { show: false },
          },
        ],
      }),
  });
}

/** The readouts of the last run (`last`: { summary, name, tokens }) for gain g, and the table of branch gains. */
function drawFigures(view, s, { summary, name, tokens }, g) {
  const L = summary.layers;
  view.readouts.replaceChildren(
    h('li', {}, s.modelWhat(name, L, tokens, formatFixed(summary.loss, 4))),
    h('li', { 'data-readout': 'model-stream' }, s.modelStreamAt0, shown(summary.stream[0])),
    h(
      'li',
      { 'data-readout': 'model-branch-only' },
      s.modelBranchOnlyAt0,
      shown(summary.branchOnly[0]),
      s.modelGainL(g, L),
      shown(g ** L),
      s.closing,
    ),
  );
  view.gainsTable.replaceChildren(
    h('caption', { id: 'gains-caption' }, s.gainsCaption),
    h(
      'tr',
      {},
      h('th', { scope: 'col' }, s.gainsLayer),
      h('th', { scope: 'col' }, s.gainsAttn),
      h('th', { scope: 'col' }, s.gainsMlp),
    ),
    ...summary.gains.map(({ attn, mlp }, l) =>
      h(
        'tr',
        {},
        h('th', { scope: 'row' }, String(l)),
        h('td', {}, formatFixed(attn, 3)),
        h('td', {}, formatFixed(mlp, 3)),
      ),
    ),
  );
  view.gainsTable.hidden = view.gainsNote.hidden = false;
  view.results.hidden = false;
}

const readout = (u, v) => (v == null ? '–' : formatScientific(10 ** v, 3).text);
