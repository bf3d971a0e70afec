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
 * the widget's state. Returns { root, open(source), redraw() }: open({ toy }), open({ files }) or open({ stored });
 * redraw() follows the widget's gain.
 */
export function modelPanel(host, { gain, onToy }) {
  const s = host.strings;
  const probe = stringsOf(host.language, 'rl-checkpoint-probe'); // the toys' names and the chapter's prompt
  let worker = null;
  let generation = 0;
  let last = null; // the last summary drawn, redrawn when the gain moves

  const select = h(
    'select',
    { id: 'field-model', name: 'model', onchange: () => choose(select.value) },
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
    onchange: () => fileInput.files.length && open({ files: [...fileInput.files] }),
  });
  const stored = h('ul', { class: 'stored-models', 'data-stored': '' });
  // in the page only while a run goes on: the widget's own run state keeps the one progress bar otherwise
  const progress = h('progress', { 'aria-label': s.modelProgressLabel });
  const cancelButton = h('button', { type: 'button', hidden: true, onclick: () => cancel() }, s.modelCancel);
  const status = h('p', { 'aria-live': 'polite', 'data-model-run': '' });
  // hidden while empty: the widget's own run error stays the one alert on screen
  const error = h('p', { class: 'error', role: 'alert', hidden: true, 'data-model-error': '' });
  const showError = (message) => {
    error.textContent = message;
    error.hidden = !message;
  };
  const readouts = h('ul', { class: 'readouts', 'data-model-readouts': '' });
  const gainsTable = h('table', { 'data-branch-gains': '', hidden: true });
  const gainsNote = h('p', { class: 'hint', hidden: true }, s.gainsNote);
  // made with the first figures: an empty chart would stand on paper as a figure not yet computed
  let chart = null;
  const makeChart = () =>
    lineChart({
      host,
      label: s.modelChartLabel,
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
  // dimmed with the widget's other results while a later model run has failed (reason 'model'): the last figures
  const results = h('div', { hidden: true, 'data-model-results': '' }, readouts, gainsTable);
  const stale = (on) => host.markStale(on, 'model');
  stale(false); // a new panel (the widget rebuilt) shows no figures yet

  function choose(name) {
    onToy(name);
    if (name !== NONE) open({ toy: name });
    else if (!cancelButton.hidden) cancel(); // 'none' stops a run under way; figures drawn stay
  }

  function busy(on) {
    cancelButton.hidden = !on;
    if (on) {
      progress.removeAttribute('value');
      runRow.prepend(progress);
    } else progress.remove();
  }

  function cancel() {
    generation += 1;
    worker?.terminate();
    worker = null;
    busy(false);
    status.textContent = s.modelCancelled;
    host.dataset.modelStatus = 'cancelled';
  }

  async function open(source) {
    const mine = ++generation;
    const current = () => mine === generation;
    showError('');
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
        onProgress: ({ pass, layer, layers }) => {
          if (!current()) return;
          // the forward's layers fill the first half, the backward's the second
          const part = layers ? layer / layers : 0;
          const done = pass === 'backward' ? 0.5 + part / 2 : part / 2;
          Object.assign(progress, { max: 1, value: done });
          status.textContent = s.modelProgress(Math.round(100 * done));
        },
      });
      if (!current()) return;
      last = { summary: gradientSummary(result), name: sourceLabel(source), tokens: ids.length };
      draw();
      busy(false);
      status.textContent = s.modelTook(performance.now() - started);
      host.dataset.modelStatus = 'done';
      stale(false);
    } catch (failure) {
      if (!current()) return;
      busy(false);
      status.textContent = '';
      showError(s.modelFailed(describeError(failure, host.language)));
      host.dataset.modelStatus = 'error';
      stale(true); // the last figures stay, dimmed
    } finally {
      handle?.dispose().catch(() => {});
    }
  }

  function sourceLabel(source) {
    if (source.toy) return probe.toyNames[source.toy] ?? source.toy;
    if (source.stored) return source.stored.repo;
    return source.files.map((f) => f.name).join(', ');
  }

  /** Draws the last result; the dashed line follows the widget's gain. */
  function draw() {
    if (!last) return;
    const { summary, name, tokens } = last;
    const L = summary.layers;
    const g = gain();
    const xs = Float64Array.from({ length: L + 1 }, (_, i) => i);
    if (!chart) results.prepend(chartFigure(s.modelChartTitle, (chart = makeChart())));
    chart.setData([
      xs,
      log10OrGap(summary.stream),
      log10OrGap(summary.branchOnly),
      log10OrGap(xs.map((i) => g ** (L - i))),
    ]);
    readouts.replaceChildren(
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
    gainsTable.replaceChildren(
      h('caption', {}, s.gainsCaption),
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
    gainsTable.hidden = gainsNote.hidden = false;
    results.hidden = false;
  }

  // The models this browser stores (the probe's fetch panel adds them): listed again when the reader comes to the
  // panel, redrawn only when the list changed (a focused button stays).
  let listed = null;
  async function showStored() {
    const models = await storedCheckpoints().catch(() => []);
    const key = models.map((m) => `${m.repo}@${m.commit}`).join(' ');
    if (key === listed) return;
    listed = key;
    stored.replaceChildren(
      ...models.map((m) =>
        h(
          'li',
          { 'data-repo': m.repo },
          `${m.repo} `,
          h('button', { type: 'button', onclick: () => open({ stored: m }) }, s.modelOpenStored),
        ),
      ),
    );
    stored.hidden = !models.length;
  }
  showStored();
  const runRow = h('div', { class: 'fetch-row' }, status, cancelButton);
  host.whileConnected(() => () => {
    generation += 1;
    worker?.terminate();
    worker = null;
  });

  const root = h(
    'section',
    {
      class: 'model-gradients',
      'aria-labelledby': 'model-title',
      onpointerenter: () => showStored(),
      onfocusin: () => showStored(),
    },
    h('h4', { id: 'model-title' }, s.modelTitle),
    h('p', { class: 'hint' }, s.modelHint),
    h(
      'div',
      { class: 'inputs' },
      h('div', { class: 'field' }, h('label', { for: 'field-model' }, s.model), select),
      h('div', { class: 'field' }, h('label', { for: 'field-model-files' }, s.modelFiles), fileInput),
    ),
    stored,
    runRow,
    error,
    host.resultsRegion(results),
  );
  return { root, open, redraw: draw };
}

const readout = (u, v) => (v == null ? '–' : formatScientific(10 ** v, 3).text);
