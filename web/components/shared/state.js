// Widget state as a table (the idea of TensorFlow Playground's state.ts): every setting is one row
// { name, type, default, ... }, so the whole view of a widget can be written into the URL query and read back.
// Keys are `<prefix>.<name>` (prefix per widget instance), defaults are left out of the URL, and a value that
// does not parse is reported as a problem and replaced by the default: reading a URL never throws.
//
// Row types (the option tables' vocabulary, lab.describe(), plus text):
//   number   finite float, optional min / max (inclusive)
//   integer  like number, and a whole number
//   choice   one of `choices` (strings)
//   boolean  'true' / 'false' in the URL
//   text     a string of at most `maxLength` characters; `validate(text, context)` may throw to reject it
//            (vectors are stored as the text the reader typed, and checked with the lab's parseVector).
// A row that sets an option of the API names it: { name: 'layers', option: 'experiments.warmup.nLayers',
// max: 12 } takes its type, default, bounds and choices from that option's row; the widget may narrow the bounds
// or the choices and pick another default inside them, and defineState refuses a row that leaves the option's.
//
// The same rows are the element's attributes: row `maxGain` is attribute `max-gain` (attributeName: a run of
// capitals starts a lower-case word, `zeroQK` is `zero-qk`), read with the same parsers as the URL. A URL may name a
// setting either way (`qk.maxGain=32` or `qk.max-gain=32`, the name the README documents); a key of the widget's
// that names no setting is reported (unknownKeys).
//
// Long texts (a pasted config, a 1,000-value vector) travel compressed: above row.urlLimit (default
// PLAIN_TEXT_LIMIT) characters the value is deflate-raw, base64url, under the key `<key>.z` (writeLongState,
// expandLongState; async, as CompressionStream is). A link longer than LINK_LIMIT is not offered at all.

import { findRow } from '../../lib/options.js';

const TYPES = {
  number: {
    parse(raw, row) {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(raw.trim())) return problem('not_a_number');
      return checkRange(Number(raw), row);
    },
    check: (value, row) => typeof value === 'number' && Number.isFinite(value) && inRange(value, row),
    format: (value) => String(value),
  },
  integer: {
    parse(raw, row) {
      if (!/^[+-]?\d+$/.test(raw.trim())) return problem('not_an_integer');
      return checkRange(Number(raw), row);
    },
    check: (value, row) => Number.isSafeInteger(value) && inRange(value, row),
    format: (value) => String(value),
  },
  choice: {
    parse: (raw, row) => (row.choices.includes(raw) ? { value: raw } : problem('unknown_option')),
    check: (value, row) => row.choices.includes(value),
    format: (value) => value,
  },
  boolean: {
    parse: (raw) => (raw === 'true' ? { value: true } : raw === 'false' ? { value: false } : problem('not_a_boolean')),
    check: (value) => typeof value === 'boolean',
    format: (value) => String(value),
  },
  text: {
    parse: (raw, row) => (raw.length > row.maxLength ? problem('too_long') : { value: raw }),
    check: (value, row) => typeof value === 'string' && value.length <= row.maxLength,
    format: (value) => value,
  },
};

function problem(code) {
  return { problem: code };
}

function inRange(value, row) {
  const below = row.minExclusive ? value <= row.min : value < row.min;
  return !(row.min !== undefined && below) && !(row.max !== undefined && value > row.max);
}

function checkRange(value, row) {
  if (!Number.isFinite(value)) return problem('not_a_number');
  return inRange(value, row) ? { value } : problem('out_of_range');
}

// The row with its option's type, default, bounds and choices filled in; throws when the widget's own values
// leave the option's.
function withOption(row, tables) {
  if (!row.option) return row;
  const option = findRow(tables, row.option);
  const fail = (problem) => {
    throw new Error(`state row "${row.name}" (option ${row.option}): ${problem}`);
  };
  if (!['integer', 'number', 'boolean', 'choice'].includes(option.type))
    fail(`a ${option.type} option cannot be one setting`);
  const merged = { default: option.default, ...row, type: option.type };
  if (option.type === 'integer' || option.type === 'number') {
    merged.min = row.min ?? option.min;
    merged.max = row.max ?? option.max;
    merged.minExclusive = row.min === undefined && option.minExclusive;
    const below = option.minExclusive && !merged.minExclusive ? merged.min <= option.min : merged.min < option.min;
    if (below || merged.max > option.max)
      fail(`bounds ${merged.min}..${merged.max} leave the option's ${option.min}..${option.max}`);
  }
  if (option.type === 'choice') {
    merged.choices = row.choices ?? option.choices;
    const foreign = merged.choices.filter((c) => !option.choices.includes(c));
    if (foreign.length) fail(`${foreign.join(', ')} is not one of the option's choices`);
  }
  return merged;
}

/**
 * Checks the table itself once (a wrong table is a programming error, so this one throws). `tables` is
 * lab.describe(), needed when a row names an `option`.
 */
export function defineState(rows, tables = null) {
  const names = new Set();
  rows = rows.map((row) => withOption(row, tables));
  for (const row of rows) {
    const type = TYPES[row.type];
    if (!type) throw new Error(`state row "${row.name}": unknown type "${row.type}"`);
    if (names.has(row.name)) throw new Error(`state row "${row.name}" appears twice`);
    if (!/^[a-z][a-zA-Z0-9]*$/.test(row.name)) throw new Error(`state row "${row.name}": use a short camelCase name`);
    if (row.type === 'choice' && !Array.isArray(row.choices))
      throw new Error(`state row "${row.name}": choice needs choices`);
    if (row.type === 'text' && !(row.maxLength > 0)) throw new Error(`state row "${row.name}": text needs maxLength`);
    if (!type.check(row.default, row))
      throw new Error(`state row "${row.name}": default ${JSON.stringify(row.default)} is not valid`);
    names.add(row.name);
  }
  return Object.freeze(rows.map((row) => Object.freeze({ ...row })));
}

export function defaultValues(table) {
  return Object.fromEntries(table.map((row) => [row.name, row.default]));
}

const keyOf = (prefix, name) => (prefix ? `${prefix}.${name}` : name);

/** Texts up to this many characters go into a URL as they are; longer ones compressed. */
export const PLAIN_TEXT_LIMIT = 2000;
/** The longest link the share menu offers: common servers refuse request lines over 8 KB (nginx's default). */
export const LINK_LIMIT = 8000;
const COMPRESSED = '.z';
const plainLimit = (row) => row.urlLimit ?? PLAIN_TEXT_LIMIT;

/** The attribute that holds row `name`: kebab-case, a run of capitals one word (maxGain max-gain, zeroQK zero-qk). */
export function attributeName(name) {
  return name.replace(/[A-Z]+/g, (capitals) => `-${capitals.toLowerCase()}`);
}

/**
 * Reads the rows from URLSearchParams (anything with get(key)). Returns { values, problems }: values holds every
 * row (from `base`, default the rows' defaults, where the URL has nothing or something unusable); each problem
 * is { name, key, raw, code, error? }. `context` is passed to row.validate (e.g. { parseVector }).
 */
export function readState(table, params, prefix, context = {}, base = defaultValues(table)) {
  const values = { ...base };
  const problems = [];
  for (const row of table) {
    // The row's name as written by writeState, else its documented (attribute) name.
    const key = [keyOf(prefix, row.name), keyOf(prefix, attributeName(row.name))].find((k) => params.get(k) !== null);
    if (key === undefined) continue;
    const raw = params.get(key);
    const parsed = TYPES[row.type].parse(raw, row);
    if (parsed.problem) {
      problems.push({ name: row.name, key, raw, code: parsed.problem });
      continue;
    }
    if (row.validate) {
      try {
        row.validate(parsed.value, context);
      } catch (error) {
        problems.push({ name: row.name, key, raw, code: 'invalid', error });
        continue;
      }
    }
    values[row.name] = parsed.value;
  }
  return { values, problems };
}

/**
 * The keys of `params` that belong to this widget (`<prefix>.` in front; with no prefix, every key but
 * `reserved`) and name none of its settings: [{ key, raw, code: 'unknown_setting' }].
 */
export function unknownKeys(table, params, prefix, reserved = []) {
  const known = new Set(reserved);
  for (const row of table) {
    for (const name of [row.name, attributeName(row.name)]) {
      known.add(keyOf(prefix, name));
      known.add(keyOf(prefix, name) + COMPRESSED);
    }
  }
  const ours = (key) => (prefix ? key.startsWith(`${prefix}.`) : true);
  return [...new Set(params.keys())]
    .filter((key) => ours(key) && !known.has(key))
    .map((key) => ({ key, raw: params.get(key), code: 'unknown_setting' }));
}

/**
 * Reads the rows from the attributes of `element` (attributeName of each row). Same result as readState; a
 * problem's `key` is the attribute's name.
 */
export function readAttributes(table, element, context = {}) {
  const attributes = { get: (name) => element.getAttribute(attributeName(name)) };
  const { values, problems } = readState(table, attributes, '', context);
  return { values, problems: problems.map((p) => ({ ...p, key: attributeName(p.name) })) };
}

/** The settings that writeState leaves out for their length: valid texts over their row's plain limit. */
function longValues(table, values, base) {
  return table.filter((row) => {
    const value = values[row.name];
    return (
      row.type === 'text' && value !== base[row.name] && TYPES.text.check(value, row) && value.length > plainLimit(row)
    );
  });
}

/**
 * Writes the rows into `params` (a URLSearchParams, changed in place): a value equal to its `base` (default the
 * row's default) removes its key, and so does a text longer than row.urlLimit (default PLAIN_TEXT_LIMIT):
 * writeLongState adds those compressed. The other spelling of each key (kebab-case, compressed) is removed.
 */
export function writeState(table, values, params, prefix, base = defaultValues(table)) {
  for (const row of table) {
    const key = keyOf(prefix, row.name);
    const value = values[row.name];
    const type = TYPES[row.type];
    const tooLong = typeof value === 'string' && value.length > plainLimit(row);
    for (const other of [keyOf(prefix, attributeName(row.name)), key + COMPRESSED])
      if (other !== key) params.delete(other);
    if (value === base[row.name] || !type.check(value, row) || tooLong) params.delete(key);
    else params.set(key, type.format(value));
  }
  return params;
}

/**
 * writeState, and the long texts it leaves out written compressed under `<key>.z`. Resolves to
 * { params, dropped }: `dropped` names the settings a link cannot carry (a text over its row's maxLength).
 */
export async function writeLongState(table, values, params, prefix, base = defaultValues(table)) {
  writeState(table, values, params, prefix, base);
  for (const row of longValues(table, values, base))
    params.set(keyOf(prefix, row.name) + COMPRESSED, await compress(values[row.name]));
  const dropped = table.filter(
    (row) => row.type === 'text' && values[row.name] !== base[row.name] && !TYPES.text.check(values[row.name], row),
  );
  return { params, dropped: dropped.map((row) => row.name) };
}

/**
 * A copy of `params` with each compressed `<key>.z` of this table's rows replaced by `<key>` and its text.
 * Resolves to { params, problems }: a value that does not decode, or decodes to more than the row's maxLength,
 * is a problem (code 'not_compressed' or 'too_long') and left out.
 */
export async function expandLongState(table, params, prefix) {
  const expanded = new URLSearchParams(params);
  const problems = [];
  for (const row of table.filter((r) => r.type === 'text')) {
    const key = keyOf(prefix, row.name);
    const packed = params.get(key + COMPRESSED);
    if (packed === null) continue;
    expanded.delete(key + COMPRESSED);
    try {
      const text = await decompress(packed, row.maxLength);
      if (text === null) problems.push({ name: row.name, key: key + COMPRESSED, raw: packed, code: 'too_long' });
      else expanded.set(key, text);
    } catch {
      problems.push({ name: row.name, key: key + COMPRESSED, raw: packed, code: 'not_compressed' });
    }
  }
  return { params: expanded, problems };
}

const toBase64Url = (bytes) => {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

function fromBase64Url(text) {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

/** deflate-raw, base64url. */
export async function compress(text) {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('deflate-raw'));
  return toBase64Url(new Uint8Array(await new Response(stream).arrayBuffer()));
}

/** The text of compress(); null when it is longer than `maxLength` characters (read no further: a small link may inflate to gigabytes). */
export async function decompress(packed, maxLength) {
  const stream = new Blob([fromBase64Url(packed)]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const reader = stream.getReader();
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
    if (text.length > maxLength) {
      reader.cancel().catch(() => {});
      return null;
    }
  }
  text += decoder.decode();
  return text.length > maxLength ? null : text;
}
