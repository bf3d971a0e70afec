// <rl-checkpoint-probe>: a trained model's residual stream, read from a Hugging Face checkpoint by
// lab.openCheckpoint in the lab worker: the stream's norm after every layer at one position, what each sublayer
// adds there, the final norm's effect, each norm's weight statistics, and a logit lens (the top tokens each stream
// state would predict, read through the final norm and the output head). It opens a shipped toy by default
// (../shared/toys.js), or the files the reader gives (files, not a folder: the Hub's cache keeps
// symbolic links, which folder uploads drop). Position 0 is drawn apart: its stream is usually far longer. Where
// the files have the shape of the model the chapter measured, its numbers stand beside the reader's
// (checkpoint-probe/seed.js).
import { ExperimentElement } from '../shared/experiment-element.js';
import { createLabWorker } from '../../lib/worker-client.js';
import {
  LENS_K,
  defaultIds,
  probeRows,
  gatherFiles,
  readTokenizer,
  shownToken,
  tokenIds,
  unknownCharacters,
} from './compute.js';
import { TOY_NAMES, fetchToy, toyOf, toyWindow } from '../shared/toys.js';
import { lensTable, weightsTable } from './tables.js';
import { EXPERIMENT_NAMES, experimentsView } from './experiments-view.js';
import { fetchPanel } from './fetch-panel.js';
import { SEEDS, comparable, configOf, seedComparison, seedOf, seedRows } from './seed.js';
import { barChart, legendEntry, niceLimit } from '../shared/bar-chart.js';
import { h } from '../shared/dom.js';
import { textField } from '../shared/fields.js';
import { formatFixed, formatTrimmed } from '../shared/format.js';
import { describeError } from '../shared/i18n.js';
import { axis, lineChart } from '../shared/line-chart.js';
import { parseNumber } from '../shared/parse-number.js';

const MAX_PROMPT = 2000;
const LAST = -1; // the position row's value for "the last position"
const MAX_POSITION = 4095;

const STATE = [
  { name: 'toy', type: 'choice', choices: TOY_NAMES, default: TOY_NAMES[0] },
  // '': the default prompt of the model open, which follows the model: a toy's probe window (toyWindow), the
  // measured prompt of a recognised model (seed.js: its numbers are then comparable at once), the page language's
  // chapter prompt (strings.chapterPrompt) for other files with tokenizer.json, the first ids (defaultIds) for
  // files without. Any other text is the reader's and stays when the model changes; typing the
  // default back makes it '' again.
  { name: 'prompt', type: 'text', default: '', maxLength: MAX_PROMPT },
  { name: 'position', type: 'integer', min: LAST, max: MAX_POSITION, default: LAST },
  // one of the chapter's claims run on the model open (checkpoint-probe/experiments-view.js); 'none': the figures only
  { name: 'experiment', type: 'choice', choices: EXPERIMENT_NAMES, default: 'none' },
];

const fixed = (digits) => (u, v) => (v == null ? '–' : formatFixed(v, digits));

export class RlCheckpointProbe extends ExperimentElement {
  static tag = 'rl-checkpoint-probe';
  static stateRows = STATE;
  static styles = [...ExperimentElement.styles, new URL('./checkpoint-probe.css', import.meta.url)];
  /**
   * The published measurements set beside a model of the same shape (checkpoint-probe/seed.js): the chapter's.
   * A page may replace the list; tests/e2e/checkpoint-probe-seed.test.mjs narrows its shape to a small fixture.
   */
  static seeds = SEEDS;

  #worker = null;
  #opened = null; // { source, handle, name, hasTokenizer, seed, dtypes } of the checkpoint open in the worker
  #files = null; // the reader's File objects, while they are the source
  #generation = 0;
  #drawnSource = null; // the source (a toy's name or the reader's files) of the run the charts show
  #shownDefault = ''; // the default prompt of the model on screen, as the field shows it while state.prompt is ''
  #defaultNote = ''; // what the prompt note says of that model's prompts

  build() {
    const s = this.strings;
    const st = this.state;
    this.whileConnected(() => () => this.#closeWorker());
    this.toySelect = h(
      'select',
      { id: 'field-toy', name: 'toy', onchange: () => this.#chooseToy(this.toySelect.value) },
      TOY_NAMES.map((name) => h('option', { value: name, selected: name === st.toy }, s.toyLabels[name] ?? name)),
    );
    this.fileInput = h('input', {
      id: 'field-files',
      type: 'file',
      multiple: true,
      onchange: () => this.#chooseFiles(this.fileInput.files),
    });
    this.dropZone = h('div', { class: 'drop-zone', 'aria-hidden': 'true' }, s.dropHere);
    this.dropZone.addEventListener('dragover', (event) => {
      event.preventDefault();
      this.dropZone.classList.add('over');
    });
    this.dropZone.addEventListener('dragleave', () => this.dropZone.classList.remove('over'));
    this.dropZone.addEventListener('drop', (event) => {
      event.preventDefault();
      this.dropZone.classList.remove('over');
      if (event.dataTransfer?.files?.length) this.#chooseFiles(event.dataTransfer.files);
    });
    // fetched files open as picked ones do; a fetch under way stops when the widget leaves the page
    this.fetchPanel = fetchPanel(s, (files) => this.#chooseFiles(files));
    this.whileConnected(() => () => this.fetchPanel.cancel());
    this.source = h('p', { class: 'source', 'data-source': '' });
    this.prompt = textField({
      name: 'prompt',
      label: s.prompt,
      hint: s.promptHint,
      multiline: true,
      value: st.prompt,
      onInput: () => this.#edited(),
    });
    this.promptNote = h('p', { class: 'side-note prompt-note', 'aria-live': 'polite', 'data-prompt-note': '' });
    this.position = textField({
      name: 'position',
      label: s.position,
      hint: s.positionHint,
      value: st.position === LAST ? '' : String(st.position),
      onInput: () => this.#edited(),
    });
    this.progress = h('progress', { class: 'run-progress', 'aria-label': s.reading, hidden: true });
    this.status = h('p', { class: 'run-status', role: 'status', 'aria-live': 'polite' });
    this.error = h('p', { class: 'run-error', role: 'alert' });
    // the error's code and the API's own English message, for a report or a search, behind the reader's sentence
    this.errorDetail = h('code', {});
    this.errorDetails = h(
      'details',
      { class: 'run-error-detail', hidden: true },
      h('summary', {}, this.common.errorDetail),
      this.errorDetail,
    );
    this.cancelButton = h(
      'button',
      { type: 'button', class: 'run-cancel', hidden: true, onclick: () => this.#cancel() },
      s.cancel,
    );
    this.streamChart = lineChart({
      host: this,
      label: s.streamLabel,
      height: 220,
      build: (color) => this.#lineOptions(color, s.streamAt, 'blue'),
    });
    this.zeroChart = lineChart({
      host: this,
      label: s.zeroLabel,
      height: 180,
      build: (color) => this.#lineOptions(color, s.streamZero, 'orange'),
    });
    this.incrementChart = barChart({ label: s.incrementLabel });
    this.readouts = h('ul', { class: 'readouts' });
    this.seedView = seedComparison(s.seed, () => this.#useSeed());
    this.weightsTable = weightsTable(s);
    this.lensTable = lensTable(s);
    this.experimentView = experimentsView(s, {
      value: st.experiment,
      onChoose: (name) => {
        this.setState({ experiment: name });
        this.experimentView.choose(name);
        this.recomputeNow();
      },
    });
    this.body.append(
      h(
        'header',
        { class: 'widget-header' },
        h('h3', {}, s.title),
        h('p', { class: 'hint' }, s.hint, ' ', this.sectionLink('residual-stream', s.sectionLink)),
      ),
      h(
        'div',
        { class: 'inputs' },
        h('div', { class: 'field' }, h('label', { for: 'field-toy' }, s.toy), this.toySelect),
        h(
          'div',
          { class: 'field' },
          h('label', { for: 'field-files' }, s.files),
          this.fileInput,
          h('p', { class: 'hint' }, s.filesHint),
          this.dropZone,
        ),
      ),
      this.fetchPanel.root,
      this.source,
      h('div', { class: 'inputs' }, this.prompt.root, this.position.root),
      this.promptNote,
      h(
        'div',
        { class: 'run-state' },
        h('div', { class: 'run-row' }, this.progress, this.status, this.cancelButton),
        this.error,
        this.errorDetails,
      ),
      this.resultsRegion(
        h(
          'div',
          { class: 'charts' },
          h('figure', {}, h('figcaption', {}, s.streamTitle), this.streamChart.root),
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
            this.incrementChart.root,
          ),
        ),
        this.readouts,
        this.seedView.root,
        h(
          'figure',
          { class: 'position-zero' },
          h('figcaption', {}, s.zeroTitle),
          h('p', { class: 'hint' }, s.zeroWhy),
          this.zeroChart.root,
        ),
        h('h4', {}, s.weightsTitle),
        this.weightsTable.root,
        h('h4', {}, s.lensTitle),
        h('p', { class: 'hint' }, s.lensHint),
        this.lensTable.root,
      ),
      this.experimentView.root,
    );
    this.#showSource();
    this.#showDefault({ source: st.toy });
    this.computeWhenVisible();
  }

  #chooseToy(name) {
    this.#files = null;
    this.fileInput.value = '';
    this.setState({ toy: name });
    this.#showSource();
    this.#showDefault({ source: name });
    this.recomputeNow();
  }

  #chooseFiles(fileList) {
    if (!fileList?.length) return;
    this.#files = [...fileList];
    this.#showSource();
    this.recomputeNow();
  }

  #edited() {
    const text = this.prompt.input.value;
    const position = this.#readPosition();
    if (position === undefined) return;
    this.commit({ prompt: text === this.#shownDefault ? '' : text, position });
    this.recomputeSoon();
  }

  /** The prompt and position of the measurement set beside this model: its last position. */
  #useSeed() {
    this.prompt.input.value = this.#opened.seed.prompt;
    this.position.input.value = '';
    this.#edited();
    this.recomputeNow();
  }

  /**
   * Shows the default prompt of the model `opened` ({ source, hasTokenizer, vocabSize }: a toy's name or the
   * reader's files) in the field, unless the reader's own prompt is there, and the note that goes with it.
   */
  #showDefault({ source, hasTokenizer, vocabSize, seed }) {
    const s = this.strings;
    const toy = typeof source === 'string';
    const ids = !toy && !hasTokenizer && defaultIds(vocabSize);
    const measured = !toy && !ids && seed;
    this.#shownDefault = toy ? toyWindow(toyOf(source)) : ids || (measured ? seed.prompt : s.chapterPrompt);
    if (this.state.prompt === '') this.prompt.input.value = this.#shownDefault;
    this.#defaultNote = toy
      ? s.toyPromptNote(s.chapterPrompt)
      : ids
        ? s.idsNote(ids)
        : measured
          ? s.seedPromptNote(seed.model, seed.prompt)
          : '';
    this.promptNote.textContent = this.#defaultNote;
  }

  #readPosition() {
    const text = this.position.input.value.trim();
    if (text === '') {
      this.clearError(this.position);
      return LAST;
    }
    return this.attempt(this.position, () => parseNumber(text, { min: 0, max: MAX_POSITION, integer: true }), text);
  }

  /** The name of a source (a toy's name or the reader's files) as the page shows it. */
  #sourceName(source) {
    return typeof source === 'string'
      ? (this.strings.toyNames[source] ?? source)
      : source.map((f) => f.name).join(', ');
  }

  /** The model chosen, and, when the charts still show another (its run refused, they are dimmed), which one. */
  #showSource() {
    const s = this.strings;
    const chosen = this.#files
      ? s.sourceFiles(this.#sourceName(this.#files))
      : s.sourceToy(this.#sourceName(this.state.toy));
    const drawn = this.#drawnSource;
    const other = drawn != null && drawn !== (this.#files ?? this.state.toy);
    this.source.textContent = other ? `${chosen} ${s.chartsStillShow(this.#sourceName(drawn))}` : chosen;
  }

  #closeWorker() {
    this.#generation += 1;
    this.#worker?.terminate();
    this.#worker = null;
    this.#opened = null;
  }

  #cancel() {
    this.#closeWorker();
    this.#busy(false);
    this.status.textContent = this.strings.cancelled;
    this.dataset.status = 'cancelled';
  }

  #busy(busy) {
    this.progress.hidden = !busy;
    this.cancelButton.hidden = !busy;
    if (busy) this.progress.removeAttribute('value');
  }

  async compute() {
    const s = this.strings;
    const mine = ++this.#generation;
    const current = () => mine === this.#generation;
    const position = this.#readPosition();
    if (position === undefined) return;
    const source = this.#files ?? this.state.toy;
    this.dataset.status = 'running';
    this.error.textContent = '';
    this.errorDetails.hidden = true;
    this.#busy(true);
    const started = performance.now();
    let stage = 'open';
    try {
      let opened = this.#opened;
      if (opened?.source !== source) {
        // A first call starts the worker now: it instantiates its WebAssembly while the files are read here.
        this.#worker ??= createLabWorker();
        this.#worker.call('memoryBudget', []).catch(() => {}); // a failed worker is reported by openCheckpoint below
        const onProgress = (done, total) => {
          if (!current()) return;
          if (total) {
            this.progress.max = total;
            this.progress.value = done;
          }
          this.status.textContent = s.readProgress(done, total);
        };
        const files = this.#files ? await gatherFiles(this.#files, onProgress) : await fetchToy(source, onProgress);
        if (!current()) return;
        this.status.textContent = s.opening;
        const handle = await this.#worker.call('openCheckpoint', [files]);
        if (!current()) {
          handle.dispose().catch(() => {});
          return;
        }
        this.#opened?.handle.dispose().catch(() => {});
        const config = configOf(files);
        opened = this.#opened = {
          source,
          handle,
          ...readTokenizer(files),
          hasTokenizer: 'tokenizer.json' in files,
          vocabSize: config?.vocab_size,
          context: config?.max_position_embeddings,
          seed: seedOf(config, this.constructor.seeds),
          dtypes: [...new Set(handle.tensors.map((t) => t.dtype))],
        };
        this.#showDefault(opened);
      }
      stage = 'run';
      this.status.textContent = s.running;
      const text = this.prompt.input.value;
      const unknown = unknownCharacters(opened.characters, text);
      if (unknown.length) {
        throw Object.assign(new Error(s.unknownCharacters(unknown.map(shownToken))), { field: this.prompt });
      }
      // without tokenizer.json the prompt is token ids: "3, 17, 5"
      const ids = opened.hasTokenizer ? await opened.handle.tokenize(text) : tokenIds(text);
      const at = position === LAST || position >= ids.length ? ids.length - 1 : position;
      const cost = await opened.handle.cost(ids.length);
      if (!current()) return;
      const costLine = s.runCost(cost, opened.handle.workers);
      this.status.textContent = costLine;
      this.progress.max = cost.layers;
      this.progress.value = 0;
      const onRunProgress = ({ layer, layers, bytesRead }) => {
        if (!current()) return;
        this.progress.value = layer;
        this.status.textContent = `${costLine} ${s.runProgress(layer, layers, bytesRead)}`;
      };
      const run = await opened.handle.run(ids, { lens: { k: LENS_K, position: at }, onProgress: onRunProgress });
      const weights = await opened.handle.normWeights();
      if (!current()) return;
      this.clearError(this.prompt);
      const beyond = ids.length > opened.context ? s.beyondContext(ids.length, opened.context) : '';
      this.promptNote.textContent = [this.#defaultNote, beyond].filter(Boolean).join(' ');
      const rows = probeRows(run, weights, opened.name);
      this.#draw(rows);
      this.#drawnSource = opened.source;
      this.#showSource();
      const { seed, dtypes } = opened;
      this.seedView.show(
        seed && {
          seed,
          rows: seedRows(seed, rows),
          comparable: comparable(seed, text, at, ids.length),
          prompt: text,
          position: at,
          token: shownToken(rows.tokens[at]),
          dtypes,
        },
      );
      const experiment = this.state.experiment;
      if (experiment !== 'none') {
        stage = 'experiment';
        this.experimentView.running();
        this.progress.max = 100;
        this.progress.value = 0;
        const onExperimentProgress = ({ fraction, layer, layers }) => {
          if (!current()) return;
          const percent = Math.round(100 * (fraction ?? (layers ? layer / layers : 0)));
          this.progress.value = percent;
          this.status.textContent = s.experimentProgress(percent);
        };
        const result = await opened.handle.experiment(experiment, ids, {
          ...(['increments', 'streamTop'].includes(experiment) ? { position: at } : {}),
          onProgress: onExperimentProgress,
        });
        if (!current()) return;
        this.experimentView.show(experiment, result, opened.name);
      }
      this.#busy(false);
      this.status.textContent = s.took(performance.now() - started, opened.handle.workers);
      this.dataset.status = 'done';
      this.markStale(false, 'run');
    } catch (failure) {
      if (!current()) return;
      this.#busy(false);
      this.status.textContent = '';
      if (failure?.field) {
        failure.field.setError(failure.message); // where the reader typed it
        this.markStale(true, failure.field);
      } else {
        const message = describeError(failure, this.language);
        this.error.textContent = stage === 'open' ? s.openFailed(message) : s.runFailed(message);
        this.errorDetail.textContent = failure?.code ? `${failure.code}: ${failure.message}` : '';
        this.errorDetails.hidden = !failure?.code;
      }
      this.dataset.status = 'error';
      this.markStale(true, 'run'); // the last result stays, dimmed
      this.#showSource(); // and the source line says whose it is
      if (stage === 'open' && this.#files && this.#opened) {
        // the model on screen stays the one open: its source becomes current again
        this.#files = this.#opened.source === this.state.toy ? null : this.#opened.source;
        this.#showSource();
      }
    }
  }

  #draw(rows) {
    const s = this.strings;
    const { position, tokens, layers } = rows;
    const states = Float64Array.from({ length: layers + 1 }, (_, i) => i);
    this.streamChart.setData([states, Float64Array.from(rows.streamAt)]);
    this.zeroChart.setData([states, Float64Array.from(rows.streamAtZero)]);
    const maxIncrement = Math.max(...rows.attnAt, ...rows.mlpAt);
    this.incrementChart.draw({
      categories: Array.from({ length: layers }, (_, l) => String(l)),
      limit: niceLimit(maxIncrement),
      format: (v) => formatTrimmed(v, 2),
      series: [
        { label: s.attention, className: 'series-attn', values: rows.attnAt },
        { label: s.mlp, className: 'series-mlp', values: rows.mlpAt },
      ],
    });
    const top = rows.streamAt.at(-1);
    this.readouts.replaceChildren(
      h('li', { 'data-readout': 'position' }, s.positionIs(position, tokens.length, shownToken(tokens[position]))),
      h('li', { 'data-readout': 'stream' }, s.streamFromTo(formatFixed(rows.streamAt[0], 3), formatFixed(top, 3))),
      h('li', { 'data-readout': 'final' }, s.finalNorm(formatFixed(top, 3), formatFixed(rows.finalAt, 3))),
      h('li', { 'data-readout': 'zero' }, s.zeroVersus(formatFixed(rows.streamAtZero.at(-1), 3), formatFixed(top, 3))),
    );
    this.weightsTable.show(rows);
    this.lensTable.show(rows);
  }

  #lineOptions(color, label, colour) {
    const s = this.strings;
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
}
