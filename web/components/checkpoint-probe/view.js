// What <rl-checkpoint-probe> shows: its inputs (toy, files, the Hub panel, prompt, position), its run state, and the
// results of a run (the stream's length by layer, what each sublayer adds, the readouts, the chapter's measurement
// beside the reader's, position 0, the norm weights, the logit lens, an experiment). The element (./checkpoint-probe.js)
// decides what to run and when; this module builds the nodes once and draws rows into them.
import { barChart, legendEntry, niceLimit } from '../shared/bar-chart.js';
import { h } from '../shared/dom.js';
import { textField } from '../shared/fields.js';
import { formatFixed, formatTrimmed } from '../shared/format.js';
import { axis, lineChart } from '../shared/line-chart.js';
import { TOY_NAMES } from '../shared/toys.js';
import { shownToken } from './compute.js';
import { experimentsView } from './experiments-view.js';
import { fetchPanel } from './fetch-panel.js';
import { seedComparison } from './seed.js';
import { lensTable, weightsTable } from './tables.js';

const fixed = (digits) => (u, v) => (v == null ? '–' : formatFixed(v, digits));

/** uPlot options of a chart of one value per stream state (the embedding, then after each layer). */
function stateChartOptions(s, color, label, colour) {
  return {
    scales: { x: { time: false }, y: { range: (u, min, max) => [0, max * 1.1] } },
    axes: [axis(color, { label: s.stateAxis, incrs: [1, 2, 4, 8, 16] }), axis(color, { size: 52 })],
    series: [
      { label: '#', value: fixed(0) },
      { label, stroke: color(colour), width: 2.5, value: fixed(3) },
    ],
    cursor: { drag: { x: false, y: false } },
  };
}

/** A drop zone for files dragged onto the widget; onFiles(FileList). */
function dropZone(s, onFiles) {
  const zone = h('div', { class: 'drop-zone', 'aria-hidden': 'true' }, s.dropHere);
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    if (event.dataTransfer?.files?.length) onFiles(event.dataTransfer.files);
  });
  return zone;
}

/** The run's state: its progress, status, error (with the code and the API's message behind it) and Cancel. */
function runNodes(host, on) {
  const s = host.strings;
  const nodes = {};
  nodes.progress = h('progress', { class: 'run-progress', 'aria-label': s.reading, hidden: true });
  nodes.status = h('p', { class: 'run-status', role: 'status', 'aria-live': 'polite' });
  nodes.error = h('p', { class: 'run-error', role: 'alert' });
  // the error's code and the API's own English message, for a report or a search, behind the reader's sentence
  nodes.errorDetail = h('code', {});
  nodes.errorDetails = h(
    'details',
    { class: 'run-error-detail', hidden: true },
    h('summary', {}, host.common.errorDetail),
    nodes.errorDetail,
  );
  nodes.cancelButton = h('button', { type: 'button', class: 'run-cancel', hidden: true, onclick: on.cancel }, s.cancel);
  return nodes;
}

/** The stream's length at each layer, and with the stream zeroed, as line charts. */
function streamCharts(host) {
  const s = host.strings;
  const nodes = {};
  nodes.streamChart = lineChart({
    host,
    label: s.streamLabel,
    height: 220,
    build: (color) => stateChartOptions(s, color, s.streamAt, 'blue'),
  });
  nodes.zeroChart = lineChart({
    host,
    label: s.zeroLabel,
    height: 180,
    build: (color) => stateChartOptions(s, color, s.streamZero, 'orange'),
  });
  return nodes;
}

/**
 * Builds the probe's nodes into `host.body` (host: the element, a LabElement) and returns them. `on` holds what the
 * reader's actions do: toy(name), files(FileList), edited(), cancel(), useSeed(), experiment(name).
 */
export function probeView(host, on) {
  const s = host.strings;
  const st = host.state;
  const view = {};
  view.toySelect = h(
    'select',
    { id: 'field-toy', name: 'toy', onchange: () => on.toy(view.toySelect.value) },
    TOY_NAMES.map((name) => h('option', { value: name, selected: name === st.toy }, s.toyLabels[name] ?? name)),
  );
  view.fileInput = h('input', {
    id: 'field-files',
    type: 'file',
    multiple: true,
    onchange: () => on.files(view.fileInput.files),
  });
  // fetched files open as picked ones do
  view.fetchPanel = fetchPanel(s, (files) => on.files(files));
  view.source = h('p', { class: 'source', 'data-source': '' });
  view.prompt = textField({
    name: 'prompt',
    label: s.prompt,
    hint: s.promptHint,
    multiline: true,
    value: st.prompt,
    onInput: () => on.edited(),
  });
  view.promptNote = h('p', { class: 'side-note prompt-note', 'aria-live': 'polite', 'data-prompt-note': '' });
  view.position = textField({
    name: 'position',
    label: s.position,
    hint: s.positionHint,
    value: host.positionText(st.position),
    onInput: () => on.edited(),
  });
  Object.assign(view, runNodes(host, on), streamCharts(host));
  view.incrementChart = barChart({ label: s.incrementLabel, barTitle: host.common.barTitle });
  view.readouts = h('ul', { class: 'readouts' });
  view.seedView = seedComparison(s.seed, on.useSeed);
  view.weightsTable = weightsTable(s);
  view.lensTable = lensTable(s);
  view.experimentView = experimentsView(s, {
    choices: host.row('experiment').choices,
    value: st.experiment,
    onChoose: on.experiment,
    barTitle: host.common.barTitle,
    gradientsLink: host.gradientsLink(s.gradientsLink),
  });
  host.body.append(
    h(
      'header',
      { class: 'widget-header' },
      h('h3', {}, s.title),
      h('p', { class: 'hint' }, s.hint, ' ', host.sectionLink('residual-stream', s.sectionLink)),
    ),
    h(
      'div',
      { class: 'inputs' },
      h('div', { class: 'field' }, h('label', { for: 'field-toy' }, s.toy), view.toySelect),
      h(
        'div',
        { class: 'field' },
        h('label', { for: 'field-files' }, s.files),
        view.fileInput,
        h('p', { class: 'hint' }, s.filesHint),
        dropZone(s, on.files),
      ),
    ),
    view.fetchPanel.root,
    view.source,
    h('div', { class: 'inputs' }, view.prompt.root, view.position.root),
    view.promptNote,
    h(
      'div',
      { class: 'run-state' },
      h('div', { class: 'run-row' }, view.progress, view.status, view.cancelButton),
      view.error,
      view.errorDetails,
    ),
    host.resultsRegion(
      h(
        'div',
        { class: 'charts' },
        h('figure', {}, h('figcaption', {}, s.streamTitle), view.streamChart.root),
        h(
          'figure',
          {},
          h(
            'figcaption',
            {},
            s.incrementTitle,
            ' ',
            legendEntry('series-attn', s.attention),
            ' ',
            legendEntry('series-mlp', s.mlp),
          ),
          view.incrementChart.root,
        ),
      ),
      view.readouts,
      view.seedView.root,
      h(
        'figure',
        { class: 'position-zero' },
        h('figcaption', {}, s.zeroTitle),
        h('p', { class: 'hint' }, s.zeroWhy, (view.zeroToys = h('span', {}, host.common.sentenceGap, s.zeroToys))),
        view.zeroChart.root,
      ),
      h('h4', {}, s.weightsTitle),
      view.weightsTable.root,
      h('h4', {}, s.lensTitle),
      h('p', { class: 'hint' }, s.lensHint),
      view.lensTable.root,
    ),
    view.experimentView.root,
  );
  return view;
}

/** Draws one run's rows (compute.js probeRows) into the charts, the readouts and the tables of `view`. */
export function drawRun(view, rows, s) {
  const { position, tokens, layers } = rows;
  const states = Float64Array.from({ length: layers + 1 }, (_, i) => i);
  view.streamChart.setData([states, Float64Array.from(rows.streamAt)]);
  view.zeroChart.setData([states, Float64Array.from(rows.streamAtZero)]);
  const maxIncrement = Math.max(...rows.attnAt, ...rows.mlpAt);
  view.incrementChart.draw({
    categories: Array.from({ length: layers }, (_, l) => String(l)),
    limit: niceLimit(maxIncrement),
    format: (v) => formatTrimmed(v, 2),
    series: [
      { label: s.attention, className: 'series-attn', values: rows.attnAt },
      { label: s.mlp, className: 'series-mlp', values: rows.mlpAt },
    ],
  });
  const top = rows.streamAt.at(-1);
  view.readouts.replaceChildren(
    h('li', { 'data-readout': 'position' }, s.positionIs(position, tokens.length, shownToken(tokens[position]))),
    h('li', { 'data-readout': 'stream' }, s.streamFromTo(formatFixed(rows.streamAt[0], 3), formatFixed(top, 3))),
    h('li', { 'data-readout': 'final' }, s.finalNorm(formatFixed(top, 3), formatFixed(rows.finalAt, 3))),
    h('li', { 'data-readout': 'zero' }, s.zeroVersus(formatFixed(rows.streamAtZero.at(-1), 3), formatFixed(top, 3))),
  );
  view.weightsTable.show(rows);
  view.lensTable.show(rows);
}
