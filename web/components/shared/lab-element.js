// The base class of the widgets: shadow root and stylesheets, page language, loading the lab, and the state
// table kept in sync with the element's attributes and the URL query. A subclass declares
//   static tag, static stateRows (state.js rows), static styles (the URLs of its stylesheets, each beside its
//   module), and static charts = true when it draws line charts (line-chart.js)
// and implements build() (make the controls once, in this.body) and update() (recompute and redraw from
// this.state). Every failure ends up as a message in the widget, never as an uncaught error in the console.
// Removing a widget ends everything it started (timers here, and whatever subclasses and helpers registered with
// whileConnected); inserting it again resumes it: the shadow root, the controls and the drawn results are kept.
// While a field holds an error (attempt) or the last run failed (markStale), the results on screen belong to
// older inputs: the parts wrapped by resultsRegion() are dimmed (stale-results.js). A large first drawing is
// spread over frames (inLaterFrame, layOutLater), and data-ready is set once all of it is drawn.
//
// Attributes and the address: every state row is also an attribute (state.js attributeName: `zeroQK` is
// `zero-qk`), kept in step with the state and the page address by state-binding.js; an attribute changed later
// has the controls built again to show it. The share menu's link carries the widget's anchor too, to which the
// page scrolls when opened.
import { load, simdSupported } from '../../lib/residual-lab.js';
import { nextFrame } from '../../lib/next-task.js';
import { h } from './dom.js';
import { formulasReady } from './formula.js';
import { resolveChartColours } from './line-chart.js';
import { loadLanguage, stringsOf } from '../../languages.js';
import { common, describeError, languageOf } from './i18n.js';
import { keepInView } from './keep-in-view.js';
import { widgetOf } from '../registry.js';
import { shareMenu } from './share-menu.js';
import { StaleResults } from './stale-results.js';
import { fieldOfRow } from './fields.js';
import { StateBinding } from './state-binding.js';
import { attributeName, defineState } from './state.js';
import { WIDGET_CSS, adoptStyles } from './styles.js';

const stateTables = new WeakMap();

// attempt's reason for an input error with no field to show it in (strings name failed runs: stale-results.js)
const INPUTS = Symbol('inputs');

export class LabElement extends HTMLElement {
  static styles = [];

  #started = false;
  #binding = new StateBinding(this);
  #whileConnected = []; // { start, stop }: stop is set while connected
  #staleResults = new StaleResults(this);
  #building = false;
  #buildEntries = []; // whileConnected entries registered by the current build()
  #rebuildQueued = false;
  #firstDrawing = false;
  #laterSteps = []; // the first drawing's steps left for later frames (inLaterFrame)

  /** One attribute per state row (names derived from the static rows: the lab is not loaded at definition). */
  static get observedAttributes() {
    return (this.stateRows ?? []).map((row) => attributeName(row.name));
  }

  connectedCallback() {
    for (const entry of this.#whileConnected) entry.stop ??= entry.start() ?? (() => {});
    this.#binding.resume();
    if (this.#started) return;
    this.#started = true;
    this.language = languageOf(this); // not `lang`: that property reflects the element's attribute
    this.attachShadow({ mode: 'open' });
    this.start().catch((error) => {
      this.loading?.remove();
      // Without its language's texts (their module failed to load) the widget can only show the error itself.
      this.showNotice(
        this.common ? this.common.loadFailed(describeError(error, this.language)) : String(error?.message ?? error),
      );
    });
  }

  disconnectedCallback() {
    this.#binding.pause();
    for (const entry of this.#whileConnected) {
      entry.stop?.();
      entry.stop = null;
    }
  }

  /**
   * Runs `start()` now if the widget is in the document, and again each time it is inserted; the function
   * `start` returns ends what it started when the widget is removed (observers, listeners, timers).
   */
  whileConnected(start) {
    const entry = { start, stop: null };
    this.#whileConnected.push(entry);
    if (this.#building) this.#buildEntries.push(entry);
    if (this.isConnected) entry.stop = start() ?? (() => {});
  }

  async start() {
    const webAssemblyPresent = typeof WebAssembly === 'object' && WebAssembly !== null;
    const labReady = webAssemblyPresent ? Promise.all([load(), formulasReady()]) : null; // fetched while the stylesheets and texts are
    labReady?.catch(() => {}); // awaited below, where a failure is shown
    await Promise.all([
      adoptStyles(this.shadowRoot, [...WIDGET_CSS, ...this.constructor.styles]),
      loadLanguage(this.language),
    ]);
    this.strings = stringsOf(this.language, this.constructor.tag); // content/<lang>/strings/<tag>.js
    this.common = common(this.language);
    if (this.constructor.charts) resolveChartColours(this); // while the lab loads, not in the build's task
    this.notice = h('p', { class: 'notice', role: 'status', hidden: true });
    this.body = h('div', { class: 'widget-body' });
    this.loading = h('p', { class: 'loading' }, this.common.loading);
    this.shadowRoot.append(this.notice, this.loading, this.body);
    if (!webAssemblyPresent) {
      // Nothing can compute: the message, and under it the tag's own fallback text (its light-DOM children).
      this.loading.remove();
      this.showNotice(this.common.noWasm);
      this.shadowRoot.append(h('div', { class: 'fallback' }, h('slot')));
      this.setAttribute('data-unavailable', 'webassembly');
      return;
    }
    [this.lab] = await labReady;
    // Every widget waits for the same load(): their first drawings take a frame each (nextFrame), and between two
    // the browser lays out and paints the last one and answers input.
    await nextFrame(this);
    this.loading.remove();
    if (this.lab.flavour !== 'simd' && !simdSupported()) {
      this.shadowRoot.append(h('p', { class: 'flavour-note' }, this.common.noSimd));
    }
    this.state = await this.#binding.read();
    this.#showNotices();
    this.dispatchEvent(new Event('residual-lab:drawing', { bubbles: true })); // the page lays out its section
    this.#firstDrawing = true;
    try {
      this.#build();
      this.update();
    } finally {
      this.#firstDrawing = false;
    }
    for (const step of this.#laterSteps.splice(0)) {
      await nextFrame(this);
      await step();
    }
    this.shadowRoot.append(shareMenu(this));
    this.setAttribute('data-ready', ''); // for pages (and tests) that wait for the first drawing
    // A shared link names the widget in its fragment (shareableAddress); the browser found no element by that name.
    if (!this.id && location.hash === `#${this.anchor}`) this.revealLinked();
  }

  /** Brings the widget into view for a link that names it: a widget may reveal more precisely. */
  revealLinked() {
    keepInView(this);
  }

  /**
   * Takes the settings a link of the page sets (`params`: its query, which the page has put in the address; see
   * shell/page.js) and keeps every other; `reveal`: the link names this widget, whose view of the new settings is
   * brought into view. A value the widget cannot use is named in the notice, as one in the address is.
   */
  followLink(params, { reveal = false } = {}) {
    const patch = this.#binding.fromLink(params);
    this.#showNotices();
    this.applySettings(patch, { reveal });
    this.scheduleUrlWrite();
  }

  /**
   * Shows settings `patch` that came from a link (followLink): by default the controls are built again from the
   * new state and the widget is scrolled to when `reveal`. A widget may do less, and reveal more precisely.
   */
  applySettings(patch, { reveal }) {
    if (Object.keys(patch).length) {
      Object.assign(this.state, patch);
      this.#rebuild();
    }
    if (reveal) keepInView(this);
  }

  /** The fragment that opens the page at this widget: its id, else `rl-` and its URL prefix. */
  get anchor() {
    return this.id || `rl-${this.stateKey}`;
  }

  attributeChangedCallback(name, oldValue, value) {
    if (!this.state || oldValue === value) return; // before the first drawing, start() reads every attribute
    const patch = this.#binding.fromAttribute(name);
    this.#showNotices();
    if (!patch) return; // the widget keeps what it shows
    Object.assign(this.state, patch);
    if (this.#rebuildQueued) return;
    this.#rebuildQueued = true; // several attributes set by one script: one rebuild
    queueMicrotask(() => {
      this.#rebuildQueued = false;
      this.#rebuild();
      this.scheduleUrlWrite();
    });
  }

  #showNotices() {
    this.showNotice(this.#binding.notice);
  }

  /**
   * Runs `step` in a later frame when called during the widget's first drawing (each such step in a frame of its
   * own, in order, and data-ready after the last, or after the promise it returns), at once otherwise: a large
   * first drawing is then laid out and computed over several frames, and no frame holds the main thread for all
   * of it.
   */
  inLaterFrame(step) {
    if (this.#firstDrawing) this.#laterSteps.push(step);
    else step();
  }

  /** `part` (a chart, a column of formulas) laid out in a later frame of the first drawing (inLaterFrame). */
  layOutLater(part) {
    part.setAttribute('data-later', '');
    this.inLaterFrame(() => part.removeAttribute('data-later'));
    return part;
  }

  #build() {
    this.#buildEntries = [];
    this.#building = true;
    try {
      this.build();
    } finally {
      this.#building = false;
    }
  }

  /**
   * Builds the controls again from this.state (an attribute changed them) and redraws: what the old build
   * registered (chart observers, field errors, result regions) goes with it.
   */
  #rebuild() {
    for (const entry of this.#buildEntries) {
      entry.stop?.();
      this.#whileConnected.splice(this.#whileConnected.indexOf(entry), 1);
    }
    this.#staleResults.forgetBuild();
    const body = h('div', { class: 'widget-body' });
    this.body.replaceWith(body);
    this.body = body;
    this.#build();
    this.update();
  }

  /** The widget's state table, its option rows resolved against lab.describe() (once per widget class). */
  get stateTable() {
    let table = stateTables.get(this.constructor);
    if (!table)
      stateTables.set(this.constructor, (table = defineState(this.constructor.stateRows, this.lab.describe())));
    return table;
  }

  /** One row of the state table: the bounds and choices a control offers. */
  row(name) {
    return this.stateTable.find((row) => row.name === name);
  }

  /** { min, max } of a numeric setting, for its slider or field. */
  bounds(name) {
    const { min, max } = this.row(name);
    return { min, max };
  }

  /** What row.validate gets when the state is read from the URL. */
  stateContext() {
    return { parseVector: this.lab.parseVector };
  }

  /**
   * The URL prefix of this instance: the `state-key` attribute (empty: the query's own keys, for a page that
   * holds one widget such as embed.html), else the element id, else the tag's key with its position among the
   * same tags on the page (vec, vec2, ...), the key being the `stateKey` of its registry row. Both language pages
   * hold the widgets in the same order, so a link carries its state across the language switch.
   */
  get stateKey() {
    if (this.hasAttribute('state-key')) return this.getAttribute('state-key');
    if (this.id) return this.id;
    const { stateKey } = widgetOf(this.constructor.tag);
    const index = [...document.querySelectorAll(this.localName)].indexOf(this);
    return index > 0 ? `${stateKey}${index + 1}` : stateKey;
  }

  /** Changes settings, redraws, and writes them to the URL. */
  setState(patch) {
    Object.assign(this.state, patch);
    this.update();
    this.scheduleUrlWrite();
  }

  /** A control's change of settings: setState, or what the widget does besides (a recompute, a constraint). */
  change(patch) {
    this.setState(patch);
  }

  /**
   * The control of state row `name`, made by `field` (fields.js): named after the row's attribute, labelled
   * this.strings[name], showing this.state[name], and calling this.change({ [name]: value }) when changed;
   * `options` add what the field needs besides (a select's choices) or replace those.
   */
  control(name, { field, ...options }) {
    return fieldOfRow(field, {
      name: attributeName(name),
      label: this.strings[name],
      value: this.state[name],
      onChange: (value) => this.change({ [name]: value }),
      ...options,
    });
  }

  /** Records settings the widget has already drawn (no redraw) and writes them to the URL. */
  commit(patch) {
    const changed = Object.entries(patch).some(([name, value]) => this.state[name] !== value);
    Object.assign(this.state, patch);
    if (changed) this.scheduleUrlWrite();
  }

  /** Writes the settings to the page address soon (state-binding.js). */
  scheduleUrlWrite() {
    this.#binding.scheduleWrite();
  }

  /** The share menu's link: the address with the settings, opening at this widget (its anchor). */
  async shareableAddress() {
    const { url, dropped } = await this.#binding.addressWithState();
    if (this.stateKey) url.hash = this.anchor;
    return { href: url.href, dropped: dropped.map((name) => ({ name, length: this.state[name].length })) };
  }

  /** A link to the chapter section `id`, when this page has it (a widget embedded elsewhere shows none). */
  sectionLink(id, text) {
    return document.getElementById(id) ? h('a', { href: `#${id}` }, text) : null;
  }

  showNotice(message) {
    if (!this.notice) {
      this.shadowRoot.append(h('p', { class: 'notice', role: 'status' }, message));
      return;
    }
    this.notice.textContent = message;
    this.notice.hidden = !message;
  }

  /**
   * Runs `compute`; on an Error shows its translated message in `field`, marks the results stale and returns
   * undefined. Success clears the field's message and its part of the staleness.
   */
  attempt(field, compute, text = '') {
    const reason = field ?? INPUTS;
    try {
      const result = compute();
      field?.setError(null);
      this.markStale(false, reason);
      return result;
    } catch (error) {
      field?.setError(describeError(error, this.language, text));
      this.markStale(true, reason);
      return undefined;
    }
  }

  /** Clears a field's message: its input no longer holds the results back. */
  clearError(field) {
    field.setError(null);
    this.markStale(false, field);
  }

  /**
   * Marks the results on screen as not matching the inputs (`stale` true) for `reason` (a field, or a name such
   * as 'run'), or withdraws that reason. They stay marked while any reason remains.
   */
  markStale(stale, reason = 'result') {
    this.#staleResults.mark(stale, reason);
  }

  get stale() {
    return this.#staleResults.any;
  }

  /** Whether a field holds an error: a run now would not be of the inputs on screen. */
  get inputsInvalid() {
    return this.#staleResults.inputErrors;
  }

  /** A container for the widget's results (tables, charts, readouts) that can be shown as stale. */
  resultsRegion(...children) {
    return this.#staleResults.region(...children);
  }

  /** The same for results that markStale(…, `reason`) dims alone (a run of their own that failed). */
  ownResultsRegion(reason, ...children) {
    return this.#staleResults.ownRegion(reason, ...children);
  }
}
