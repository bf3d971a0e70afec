// <rl-checkpoint-probe>: a trained model's residual stream, read from a Hugging Face checkpoint by
// lab.openCheckpoint in the lab worker: the stream's norm after every layer at one position, what each sublayer
// adds there, the final norm's effect, each norm's weight statistics, and a logit lens (the top tokens each stream
// state would predict, read through the final norm and the output head). It opens a shipped toy by default
// (../shared/toys.js), or the files the reader gives (files, not a folder: the Hub's cache keeps symbolic links,
// which folder uploads drop). Position 0 is drawn apart: its stream is usually far longer. Where the files have the
// shape of the model the chapter measured, its numbers stand beside the reader's (seed.js).
// This module decides what runs when; its settings are state.js, its nodes and drawing view.js, the opening and
// the rows compute.js.
import { ExperimentElement } from '../shared/experiment-element.js';
import { createLabWorker } from '../../lib/worker-client.js';
import { CLAIM_OPTIONS } from '../../lib/checkpoint/claims.js';
import { MAX_TOKENS } from '../../lib/checkpoint/run-options.js';
import { LENS_K, openModel, probeRows, shownToken, tokenIds, unknownCharacters } from './compute.js';
import { SEEDS, comparable, seedRows } from './seed.js';
import { LAST, MAX_POSITION, STATE, defaultPrompt, positionText, sourceName } from './state.js';
import { drawRun, probeView } from './view.js';
import { describeError } from '../shared/i18n.js';
import { h } from '../shared/dom.js';
import { formatBytes } from '../shared/format.js';
import { keepInView } from '../shared/keep-in-view.js';
import { parseNumber } from '../shared/parse-number.js';

/** The local time of day, hh:mm:ss (24 hours, as both languages write it): when a run ended. */
const clockTime = () => new Date().toTimeString().slice(0, 8);

export class RlCheckpointProbe extends ExperimentElement {
  static tag = 'rl-checkpoint-probe';
  static stateRows = STATE;
  static styles = [...ExperimentElement.styles, new URL('./checkpoint-probe.css', import.meta.url)];
  /**
   * The published measurements set beside a model of the same shape (seed.js): the chapter's.
   * A page may replace the list; tests/e2e/checkpoint-probe-seed.test.mjs narrows its shape to a small fixture.
   */
  static seeds = SEEDS;

  #worker = null;
  #opened = null; // the model open in the worker (compute.js openModel)
  #files = null; // the reader's File objects, while they are the source
  #generation = 0;
  #drawnSource = null; // the source (a toy's name or the reader's files) of the run the charts show
  #shownDefault = ''; // the default prompt of the model on screen, as the field shows it while state.prompt is ''
  #defaultNote = ''; // what the prompt note says of that model's prompts
  #runEnds = []; // resolved when the run under way (or the next) ends: a link's reveal waits for it

  /** The position field's text for a value of the position row (state.js). */
  positionText(position) {
    return positionText(position);
  }

  build() {
    this.whileConnected(() => () => this.#closeWorker());
    this.view = probeView(this, {
      toy: (name) => this.#chooseToy(name),
      files: (fileList) => this.#chooseFiles(fileList),
      edited: () => this.#edited(),
      cancel: () => this.#cancel(),
      useSeed: () => this.#useSeed(),
      experiment: (name) => {
        this.setState({ experiment: name });
        this.view.experimentView.choose(name);
        this.recomputeNow();
      },
    });
    // a fetch under way stops when the widget leaves the page
    this.whileConnected(() => () => this.view.fetchPanel.cancel());
    this.#showSource();
    this.#showDefault({ source: this.state.toy });
    this.computeWhenVisible();
  }

  /**
   * Settings from a link of the chapter (LabElement.followLink): the toy, prompt, position and experiment it names
   * replace those shown and run at once (or as the probe nears the viewport). `reveal` keeps the experiment's
   * section (with no experiment, the probe) in view until that run has drawn.
   */
  applySettings(patch, { reveal }) {
    const { toy, prompt, position, experiment } = patch;
    Object.assign(this.state, patch);
    if (toy !== undefined) {
      this.#files = null;
      this.view.fileInput.value = '';
      this.view.toySelect.value = toy;
      this.#showSource();
      this.#showDefault({ source: toy });
    }
    if (prompt !== undefined) this.view.prompt.input.value = prompt || this.#shownDefault;
    if (position !== undefined) this.view.position.input.value = this.positionText(position);
    if (experiment !== undefined) this.view.experimentView.choose(experiment);
    const changed = Object.keys(patch).length > 0;
    const ran = changed ? new Promise((end) => this.#runEnds.push(end)) : Promise.resolve();
    if (changed) this.recomputeNow();
    if (!reveal) return;
    if (this.state.experiment === 'none') keepInView(this, { until: ran });
    else this.view.experimentView.reveal(ran);
  }

  /** The run under way has ended (drawn, refused or cancelled): whoever waits for it goes on. */
  #runEnded() {
    for (const end of this.#runEnds.splice(0)) end();
  }

  #chooseToy(name) {
    this.#files = null;
    this.view.fileInput.value = '';
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
    const text = this.view.prompt.input.value;
    const position = this.#readPosition();
    if (position === undefined) return;
    this.commit({ prompt: text === this.#shownDefault ? '' : text, position });
    this.recomputeSoon();
  }

  /** The prompt and position of the measurement set beside this model: its last position. */
  #useSeed() {
    this.view.prompt.input.value = this.#opened.seed.prompt;
    this.view.position.input.value = '';
    this.#edited();
    this.recomputeNow();
  }

  /** Shows the default prompt of the model `opened` in the field, unless the reader's own prompt is there, and its note. */
  #showDefault(opened) {
    const { text, note } = defaultPrompt(opened, this.strings);
    this.#shownDefault = text;
    if (this.state.prompt === '') this.view.prompt.input.value = text;
    this.#defaultNote = note;
    this.view.promptNote.textContent = note;
  }

  #readPosition() {
    const text = this.view.position.input.value.trim();
    if (text === '') {
      this.clearError(this.view.position);
      return LAST;
    }
    return this.attempt(
      this.view.position,
      () => parseNumber(text, { min: 0, max: MAX_POSITION, integer: true }),
      text,
    );
  }

  /**
   * A link to the page's gradient widget that measures there the model shown here (the toy, or the reader's files
   * handed over as they are); the chapter's gradient section where the page has no such widget; else null.
   */
  gradientsLink(text) {
    const widget = document.querySelector('rl-gradient-flow');
    if (!widget) return this.sectionLink('why-residuals', text);
    const measure = (event) => {
      if (typeof widget.measureModel !== 'function') return; // not drawn yet: the link goes to the widget
      event.preventDefault();
      widget.measureModel(this.#files ? { files: this.#files } : { toy: this.state.toy });
    };
    return h('a', { href: `#${widget.anchor ?? 'why-residuals'}`, onclick: measure }, text);
  }

  /** The model chosen, and, when the charts still show another (its run refused, they are dimmed), which one. */
  #showSource() {
    const s = this.strings;
    const chosen = this.#files ? s.sourceFiles(sourceName(this.#files, s)) : s.sourceToy(sourceName(this.state.toy, s));
    const drawn = this.#drawnSource;
    const other = drawn != null && drawn !== (this.#files ?? this.state.toy);
    this.view.source.textContent = other ? `${chosen} ${s.chartsStillShow(sourceName(drawn, s))}` : chosen;
  }

  #closeWorker() {
    this.#generation += 1;
    this.#worker?.terminate();
    this.#worker = null;
    this.#opened = null;
  }

  #cancel() {
    this.#closeWorker();
    this.#runEnded();
    this.#busy(false);
    this.view.status.textContent = this.strings.cancelled;
    this.dataset.status = 'cancelled';
  }

  #busy(busy) {
    this.view.progress.hidden = !busy;
    this.view.cancelButton.hidden = !busy;
    if (busy) this.view.progress.removeAttribute('value');
  }

  /** The seed's comparison (seed.js) beside the run, when the model opened has a measured seed. */
  #showSeed(opened, rows, text, at, tokens) {
    const { seed, dtypes } = opened;
    this.view.seedView.show(
      seed && {
        seed,
        rows: seedRows(seed, rows),
        comparable: comparable(seed, text, at, tokens),
        prompt: text,
        position: at,
        token: shownToken(rows.tokens[at]),
        dtypes,
        hasTokenizer: opened.hasTokenizer,
        canUseSeed: opened.hasTokenizer && !unknownCharacters(opened.characters, seed.prompt).length,
      },
    );
  }

  /** Runs the chosen experiment on `ids` (at position `at` where it takes one) and shows it, unless superseded. */
  async #runExperiment(opened, ids, at, current) {
    const s = this.strings;
    const experiment = this.state.experiment;
    this.view.experimentView.running();
    this.view.progress.max = 100;
    this.view.progress.value = 0;
    const onProgress = ({ fraction, layer, layers }) => {
      if (!current()) return;
      const percent = Math.round(100 * (fraction ?? (layers ? layer / layers : 0)));
      this.view.progress.value = percent;
      this.view.status.textContent = s.experimentProgress(percent);
    };
    const result = await opened.handle.claim(experiment, ids, {
      ...(CLAIM_OPTIONS[experiment].includes('position') ? { position: at } : {}),
      onProgress,
    });
    if (!current()) return;
    this.view.experimentView.show(experiment, result, opened.name);
    this.view.experimentView.ran(s.experimentRan(sourceName(opened.source, s), clockTime()));
  }

  async compute() {
    const s = this.strings;
    const mine = ++this.#generation;
    const current = () => mine === this.#generation;
    const position = this.#readPosition();
    if (position === undefined) return this.#runEnded(); // nothing runs until the field holds a position
    const source = this.#files ?? this.state.toy;
    this.dataset.status = 'running';
    this.view.error.textContent = '';
    this.view.errorDetails.hidden = true;
    this.clearError(this.view.prompt); // a message there was about an earlier text, or another model's vocabulary
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
            this.view.progress.max = total;
            this.view.progress.value = done;
          }
          this.view.status.textContent = s.readProgress(done, total);
        };
        const model = await openModel(this.#worker, source, {
          seeds: this.constructor.seeds,
          onProgress,
          onOpening: () => (this.view.status.textContent = s.opening),
          current,
        });
        if (!model) return;
        this.#opened?.handle.dispose().catch(() => {});
        opened = this.#opened = model;
        this.#showDefault(opened);
      }
      stage = 'run';
      this.view.status.textContent = s.running;
      const text = this.view.prompt.input.value;
      const unknown = unknownCharacters(opened.characters, text);
      if (unknown.length) throw fieldError(this.view.prompt, s.unknownCharacters(unknown.map(shownToken)));
      // without tokenizer.json the prompt is token ids: "3, 17, 5"
      const ids = opened.hasTokenizer ? await opened.handle.tokenize(text) : text.trim() ? tokenIds(text) : [];
      if (!ids.length) throw fieldError(this.view.prompt, s.emptyPrompt);
      if (ids.length > MAX_TOKENS) throw fieldError(this.view.prompt, s.longPrompt(ids.length, MAX_TOKENS));
      if (position >= ids.length) throw fieldError(this.view.position, s.positionBeyond(position, ids.length));
      const at = position === LAST ? ids.length - 1 : position;
      const cost = await opened.handle.cost(ids);
      if (!current()) return;
      const costSizes = { model: formatBytes(cost.modelBytes), read: formatBytes(cost.bytesRead) };
      const costLine = s.runCost({ ...cost, ...costSizes }, opened.handle.workers);
      this.view.status.textContent = costLine;
      this.view.progress.max = cost.bytesRead > 0 ? cost.bytesRead : cost.layers + 1; // as showRunStep counts
      this.view.progress.value = 0;
      const onRunProgress = (step) => current() && showRunStep(this.view, s, cost, costLine, step);
      const run = await opened.handle.run(ids, { lens: { k: LENS_K, position: at }, onProgress: onRunProgress });
      const weights = await opened.handle.normWeights();
      if (!current()) return;
      const beyond = ids.length > opened.context ? s.beyondContext(ids.length, opened.context) : '';
      this.view.promptNote.textContent = [this.#defaultNote, beyond].filter(Boolean).join(' ');
      const rows = probeRows(run, weights, opened.name);
      drawRun(this.view, rows, s);
      this.view.zeroToys.hidden = typeof opened.source !== 'string'; // what the toys show, said of a toy alone
      this.#drawnSource = opened.source;
      this.#showSource();
      this.#showSeed(opened, rows, text, at, ids.length);
      if (this.state.experiment !== 'none') {
        stage = 'experiment';
        await this.#runExperiment(opened, ids, at, current);
        if (!current()) return;
      }
      const took = s.took(performance.now() - started, opened.handle.workers);
      const residency = await opened.handle.residency();
      if (!current()) return;
      this.#busy(false);
      this.#runEnded();
      const sizes = { kept: formatBytes(residency.keptBytes), budget: formatBytes(residency.budgetBytes) };
      this.view.status.textContent = `${took} ${s.residency({ mode: residency.mode, ...sizes })}`;
      this.dataset.status = 'done';
      this.markStale(false, 'run');
    } catch (failure) {
      if (!current()) return;
      this.#busy(false);
      this.#runEnded();
      this.view.status.textContent = '';
      if (failure?.field) {
        failure.field.setError(failure.message); // where the reader typed it
        this.markStale(true, failure.field);
      } else {
        const message = describeError(failure, this.language);
        this.view.error.textContent = stage === 'open' ? s.openFailed(message) : s.runFailed(message);
        this.view.errorDetail.textContent = failure?.code ? `${failure.code}: ${failure.message}` : '';
        this.view.errorDetails.hidden = !failure?.code;
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
}

/** An input's error, shown in `field` where the reader typed it (compute's catch). */
const fieldError = (field, message) => Object.assign(new Error(message), { field });

/**
 * A run's step on the bar and in words: the bar and the words count the same thing, the bytes read of those the
 * cost line says the run reads, or, weights held in memory (a run that reads none), the steps done: every layer,
 * then the head.
 */
function showRunStep(view, s, cost, costLine, { stage, layer, layers, bytesRead }) {
  const reads = cost.bytesRead > 0;
  view.progress.value = reads ? bytesRead : stage === 'head' ? layers + 1 : layer;
  const step = stage === 'head' ? s.runHead : s.runLayer(layer, layers);
  const words = reads
    ? s.runProgress(step, formatBytes(bytesRead), formatBytes(cost.bytesRead))
    : s.runProgressInMemory(step);
  view.status.textContent = `${costLine} ${words}`;
}
