// A widget's settings kept in step with its attributes and the page address (the rows and their parsing are
// state.js's; the element around them is lab-element.js). The attributes set the starting example (the base: the
// rows' defaults overlaid by the attributes); the address holds what the reader changed from it, so where both name
// a setting the address wins (a link reproduces what the reader saw), and only settings that differ from the base
// are written to it. An attribute changed later (a slide's script, a host page) is followed at once: that setting
// takes the new value whatever the address said. An unusable attribute is named in the notice and ignored, and so is
// a key of the address under the widget's prefix that names no setting. Long texts travel compressed
// (state.js writeLongState). Writes to the address wait URL_WRITE_DELAY_MS after the last change, and while the
// element is out of the document.
import { describeError, quoted } from './i18n.js';
import {
  attributeName,
  expandLongState,
  readAttributes,
  readState,
  unknownKeys,
  writeLongState,
  writeState,
} from './state.js';

const URL_WRITE_DELAY_MS = 200;

export class StateBinding {
  #host; // the element: stateTable, stateContext(), stateKey, reservedKeys, state, common, language
  #base = null;
  #urlNotice = '';
  #attributeNotices = new Map(); // attribute name -> why its value is ignored
  #timer = 0;
  #pending = false;
  #writes = 0;

  constructor(host) {
    this.#host = host;
  }

  /** The settings the widget opens with: its attributes, then the address over them. */
  async read() {
    const host = this.#host;
    const table = host.stateTable;
    const context = host.stateContext();
    const fromAttributes = readAttributes(table, host, context);
    this.#base = fromAttributes.values;
    const query = new URLSearchParams(location.search);
    const expanded = await expandLongState(table, query, host.stateKey);
    const fromUrl = readState(table, expanded.params, host.stateKey, context, this.#base);
    for (const problem of fromAttributes.problems)
      this.#attributeNotices.set(problem.key, this.#attributeProblem(problem));
    // Keys of this widget that name no setting; with no prefix (embed.html) only where the page says which keys are its own.
    const unknown =
      host.stateKey || host.reservedKeys ? unknownKeys(table, query, host.stateKey, host.reservedKeys) : [];
    const settingNames = table.map((row) => attributeName(row.name));
    this.#urlNotice = [
      ...[...expanded.problems, ...fromUrl.problems].map((p) => this.#linkProblem(p)),
      ...unknown.map((p) => host.common.unknownSetting(p.key, quoted(p.raw, host.language), settingNames)),
    ].join(' ');
    return fromUrl.values;
  }

  /** What the widget's notice says of its settings: the address's and the attributes' values it could not use. */
  get notice() {
    return [this.#urlNotice, ...this.#attributeNotices.values()].filter(Boolean).join(' ');
  }

  /** The settings a link sets (`params`, a query) that differ from the widget's; those it cannot use join the notice. */
  fromLink(params) {
    const host = this.#host;
    const { values, problems } = readState(host.stateTable, params, host.stateKey, host.stateContext(), host.state);
    if (problems.length) {
      const named = problems.map((p) => this.#linkProblem(p));
      this.#urlNotice = [this.#urlNotice, ...named].filter(Boolean).join(' ');
    }
    return Object.fromEntries(Object.entries(values).filter(([name, value]) => value !== host.state[name]));
  }

  /**
   * Attribute `name` changed: { [row name]: value } to take, which becomes the base too; or null, when it names no
   * setting or its value cannot be used (then named in the notice until a usable one replaces it).
   */
  fromAttribute(name) {
    const host = this.#host;
    const row = host.stateTable.find((r) => attributeName(r.name) === name);
    if (!row) return null;
    const { values, problems } = readAttributes([row], host, host.stateContext());
    if (problems.length) {
      this.#attributeNotices.set(name, this.#attributeProblem(problems[0]));
      return null;
    }
    this.#attributeNotices.delete(name);
    this.#base[row.name] = values[row.name];
    return { [row.name]: values[row.name] };
  }

  /** The notice for an attribute value that cannot be used, with what the setting expects. */
  #attributeProblem(problem) {
    const host = this.#host;
    return host.common.attributeProblem(problem.key, quoted(problem.raw, host.language), this.#why(problem));
  }

  /** The notice for a link's value that cannot be used, with what the setting expects (a packed value: no why). */
  #linkProblem(problem) {
    const host = this.#host;
    const packed = problem.code === 'too_long' || problem.code === 'not_compressed';
    return host.common.urlProblem(problem.key, quoted(problem.raw, host.language), packed ? null : this.#why(problem));
  }

  /** Why a value cannot be used: the parser's error, else what the setting's row expects. */
  #why({ name, raw, code, error }) {
    const host = this.#host;
    const row = host.stateTable.find((r) => r.name === name);
    const expected = host.common.expected;
    if (code === 'invalid') return describeError(error, host.language, raw);
    if (row.type === 'number' || row.type === 'integer') return expected[row.type](row.min, row.max);
    if (row.type === 'choice') return expected.choice(row.choices);
    if (row.type === 'boolean') return expected.boolean;
    return expected.text(row.maxLength);
  }

  /** Writes the settings to the address soon (the `url-state="off"` attribute: never). */
  scheduleWrite() {
    const host = this.#host;
    if (host.getAttribute('url-state') === 'off') return;
    clearTimeout(this.#timer);
    this.#pending = true;
    if (host.isConnected) this.#timer = setTimeout(() => this.write(), URL_WRITE_DELAY_MS);
  }

  /** The element left the document: a pending write waits for its return (resume). */
  pause() {
    clearTimeout(this.#timer);
  }

  resume() {
    if (this.#pending) this.scheduleWrite();
  }

  /**
   * The page address with the widget's settings in it, long texts compressed, as write() puts them there.
   * Resolves to { url, dropped }: `dropped` names settings too long for any link.
   */
  async addressWithState() {
    const host = this.#host;
    const url = new URL(location.href);
    const { dropped } = await writeLongState(
      host.stateTable,
      host.state,
      url.searchParams,
      host.stateKey,
      this.#base ?? undefined,
    );
    return { url, dropped };
  }

  async write() {
    const host = this.#host;
    this.#pending = false;
    const write = ++this.#writes;
    const base = this.#base ?? undefined;
    const own = await writeLongState(host.stateTable, host.state, new URLSearchParams(), host.stateKey, base);
    if (write !== this.#writes) return; // a newer write is under way
    // Other widgets may have written the address meanwhile: only this widget's keys change.
    const url = new URL(location.href);
    writeState(host.stateTable, host.state, url.searchParams, host.stateKey, base);
    for (const [key, value] of own.params) url.searchParams.set(key, value);
    if (url.href !== location.href) history.replaceState(history.state, '', url);
  }
}
